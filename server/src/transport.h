#pragma once
// PLACEHOLDER (plain TCP only) until the TLS transport lands; same interface.
#include <boost/asio.hpp>
#include <string>
#include <utility>

namespace animd {

class Transport {
 public:
  using executor_type = boost::asio::ip::tcp::socket::executor_type;
  explicit Transport(boost::asio::ip::tcp::socket socket) : socket_(std::move(socket)) {}
  executor_type get_executor() { return socket_.get_executor(); }
  bool is_tls() const { return false; }
  template <class Handler>
  void async_handshake(Handler&& handler) {
    boost::asio::post(socket_.get_executor(), [h = std::forward<Handler>(handler)]() mutable {
      h(boost::system::error_code{});
    });
  }
  template <class Buffers, class Handler>
  void async_read_some(const Buffers& b, Handler&& h) {
    socket_.async_read_some(b, std::forward<Handler>(h));
  }
  template <class Buffers, class Handler>
  void async_write_some(const Buffers& b, Handler&& h) {
    socket_.async_write_some(b, std::forward<Handler>(h));
  }
  boost::asio::ip::tcp::socket& socket() { return socket_; }
  void close() {
    boost::system::error_code ec;
    socket_.shutdown(boost::asio::ip::tcp::socket::shutdown_both, ec);
    socket_.close(ec);
  }
  std::string peer_subject() const { return {}; }

 private:
  boost::asio::ip::tcp::socket socket_;
};

}  // namespace animd
