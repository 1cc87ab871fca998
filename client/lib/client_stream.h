#pragma once
// ClientStream: libanimclient's byte stream to animd, plain TCP or TLS (client side). An Asio
// AsyncReadStream/AsyncWriteStream, so asio::async_read/async_write work on it; the choice
// is made once, by start_tls() after the TCP connect. Private to client/lib.

#include <memory>
#include <optional>
#include <string>
#include <utility>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>

#include "animclient/client.h"

namespace animclient::detail {

class ClientStream {
 public:
  using tcp = boost::asio::ip::tcp;
  using executor_type = tcp::socket::executor_type;

  explicit ClientStream(boost::asio::io_context& io) : plain_(std::in_place, io) {}

  // The TCP socket: connect it first, then (for TLS) call start_tls.
  tcp::socket& socket() { return tls_ ? tls_->next_layer() : *plain_; }
  executor_type get_executor() { return socket().get_executor(); }

  // Wraps the connected socket in TLS over `context`, verifying the server as `server_name`
  // (an IP address is checked against the certificate's IP subjectAltNames, a host name
  // against its DNS names and sent as SNI). Returns an error message, or empty on success.
  std::string start_tls(std::shared_ptr<boost::asio::ssl::context> context,
                        const std::string& server_name);

  // handler(const error_code&); call once after start_tls.
  template <class Handler>
  void async_handshake(Handler&& handler) {
    tls_->async_handshake(boost::asio::ssl::stream_base::client, std::forward<Handler>(handler));
  }

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

  // Why the last TLS handshake failed, in words: OpenSSL's reason plus, for a certificate
  // that did not verify, the verification error ("certificate verify failed (unable to get
  // local issuer certificate)").
  std::string tls_failure(const boost::system::error_code& ec) const;

  // TCP shutdown + close, no TLS close_notify (the daemon needs none).
  void close() {
    boost::system::error_code ignored;
    socket().shutdown(tcp::socket::shutdown_both, ignored);
    socket().close(ignored);
  }

 private:
  std::shared_ptr<boost::asio::ssl::context> context_;  // outlives tls_ (declared first)
  std::optional<tcp::socket> plain_;
  std::optional<boost::asio::ssl::stream<tcp::socket>> tls_;
};

// A client TLS context from the options: TLS 1.2+, the server verified against
// options.ca_file (the system store when empty), the client certificate when given.
Result<std::shared_ptr<boost::asio::ssl::context>> make_client_tls_context(
    const ClientOptions& options);

}  // namespace animclient::detail
