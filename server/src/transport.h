#pragma once
// Transport: the byte stream one Session reads and writes, either plain TCP or TLS (server
// side, over OpenSSL through Boost.Asio SSL).
//
// It is an Asio AsyncReadStream/AsyncWriteStream: boost::asio::async_read(transport, ...) and
// async_write work on it, with plain callable completion handlers. The choice between TCP and
// TLS is made once, at construction, so the Session's code is the same for both.
//
// Threading: like an Asio socket, one Transport must not run two reads (or two writes) at
// once, and its handlers run on the socket's executor (put a strand around it when the
// io_context has several threads).

#include <optional>
#include <string>
#include <utility>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>

namespace animd {

class Transport {
 public:
  using executor_type = boost::asio::ip::tcp::socket::executor_type;

  // Plain TCP over an accepted socket.
  explicit Transport(boost::asio::ip::tcp::socket socket);
  // TLS (server side) over an accepted socket; call async_handshake before reading. `tls`
  // must outlive the Transport (OpenSSL holds a reference to it).
  Transport(boost::asio::ip::tcp::socket socket, boost::asio::ssl::context& tls);

  // Movable before any operation has started (the accept handler builds it, the Session
  // owns it); never copied.
  Transport(Transport&&) = default;
  Transport(const Transport&) = delete;
  Transport& operator=(const Transport&) = delete;
  Transport& operator=(Transport&&) = delete;

  executor_type get_executor() { return socket().get_executor(); }
  bool is_tls() const { return tls_.has_value(); }

  // Runs the TLS server handshake; handler(const boost::system::error_code&). For plain TCP
  // the handler is posted at once with no error (never called from inside this function).
  template <class Handler>
  void async_handshake(Handler&& handler) {
    if (tls_) {
      tls_->async_handshake(boost::asio::ssl::stream_base::server, std::forward<Handler>(handler));
    } else {
      boost::asio::post(get_executor(), [h = std::forward<Handler>(handler)]() mutable {
        h(boost::system::error_code{});
      });
    }
  }

  // handler(const boost::system::error_code&, std::size_t bytes), as for an Asio socket.
  template <class Buffers, class Handler>
  void async_read_some(const Buffers& buffers, Handler&& handler) {
    if (tls_)
      tls_->async_read_some(buffers, std::forward<Handler>(handler));
    else
      plain_->async_read_some(buffers, std::forward<Handler>(handler));
  }

  template <class Buffers, class Handler>
  void async_write_some(const Buffers& buffers, Handler&& handler) {
    if (tls_)
      tls_->async_write_some(buffers, std::forward<Handler>(handler));
    else
      plain_->async_write_some(buffers, std::forward<Handler>(handler));
  }

  // The TCP socket underneath (remote endpoint, socket options). Reading or writing it
  // directly would corrupt a TLS stream: use the Transport's own operations for that.
  boost::asio::ip::tcp::socket& socket() { return tls_ ? tls_->next_layer() : *plain_; }
  const boost::asio::ip::tcp::socket& socket() const { return tls_ ? tls_->next_layer() : *plain_; }

  // Closes at once: TCP shutdown + close, no TLS close_notify exchange (a peer that stopped
  // reading must not hold the connection open). Pending operations complete with
  // operation_aborted. Safe to call more than once.
  void close();

  // The subject of the peer's verified client certificate in RFC 2253 form
  // ("CN=game-1,O=Studio"); empty for plain TCP, before the handshake, or without a client
  // certificate that passed verification.
  std::string peer_subject() const;

 private:
  // Exactly one is engaged, for the Transport's whole life.
  std::optional<boost::asio::ip::tcp::socket> plain_;
  std::optional<boost::asio::ssl::stream<boost::asio::ip::tcp::socket>> tls_;
};

}  // namespace animd
