#pragma once
// Transport: what one Session reads and writes: a byte stream, either plain TCP or TLS (server
// side, over OpenSSL through Boost.Asio SSL), or WebSocket messages (Boost.Beast, upgraded
// from an HTTP request on the HTTP port: see docs/web-viewer.md).
//
// The byte streams are Asio AsyncReadStream/AsyncWriteStream: boost::asio::async_read(transport,
// ...) and async_write work on them, with plain callable completion handlers. A WebSocket is
// message-framed instead: the Session reads it with async_read_message_part() and writes each
// frame as one message (async_write_message()); its reads and writes have no 4-byte length.
// The choice is made once, at construction, so the Session's code is the same for all three
// apart from the framing.
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
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <boost/beast/websocket/ssl.hpp>
#include <boost/beast/websocket/stream.hpp>

namespace animd {

class Transport {
 public:
  using executor_type = boost::asio::ip::tcp::socket::executor_type;

  // Plain TCP over an accepted socket.
  explicit Transport(boost::asio::ip::tcp::socket socket);
  // TLS (server side) over an accepted socket; call async_handshake before reading. `tls`
  // must outlive the Transport (OpenSSL holds a reference to it).
  Transport(boost::asio::ip::tcp::socket socket, boost::asio::ssl::context& tls);
  // WebSocket (server side) over a socket, or over a TLS stream after its handshake, whose
  // HTTP upgrade `request` was read already; async_handshake sends the 101 answer.
  using UpgradeRequest = boost::beast::http::request<boost::beast::http::string_body>;
  using TlsStream = boost::beast::ssl_stream<boost::beast::tcp_stream>;
  Transport(boost::asio::ip::tcp::socket socket, UpgradeRequest request);
  Transport(TlsStream stream, UpgradeRequest request);

  // Movable before any operation has started (the accept handler builds it, the Session
  // owns it); never copied.
  Transport(Transport&&) = default;
  Transport(const Transport&) = delete;
  Transport& operator=(const Transport&) = delete;
  Transport& operator=(Transport&&) = delete;

  executor_type get_executor() { return socket().get_executor(); }
  bool is_tls() const { return tls_.has_value() || wss_.has_value(); }
  bool is_websocket() const { return ws_.has_value() || wss_.has_value(); }

  // Runs the TLS server handshake, or answers the WebSocket upgrade;
  // handler(const boost::system::error_code&). For plain TCP the handler is posted at once
  // with no error (never called from inside this function).
  template <class Handler>
  void async_handshake(Handler&& handler) {
    if (is_websocket()) {
      with_ws([&](auto& ws) { ws.async_accept(ws_request_, std::forward<Handler>(handler)); });
    } else if (tls_) {
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

  // WebSocket only. Reads the next piece of the current message's payload into `buffers`;
  // handler(error_code, bytes). Afterwards message_done() says whether the message ended and
  // message_is_text() whether it is a text message. Control frames (ping, pong, close) are
  // answered by Beast; a close from the peer completes the read with websocket::error::closed.
  template <class Buffers, class Handler>
  void async_read_message_part(const Buffers& buffers, Handler&& handler) {
    with_ws([&](auto& ws) { ws.async_read_some(buffers, std::forward<Handler>(handler)); });
  }
  bool message_done() const { return ws_ ? ws_->is_message_done() : wss_->is_message_done(); }
  bool message_is_text() const { return ws_ ? ws_->got_text() : wss_->got_text(); }
  // WebSocket only. Sends `buffer` as one binary message; handler(error_code, bytes).
  template <class Handler>
  void async_write_message(boost::asio::const_buffer buffer, Handler&& handler) {
    with_ws([&](auto& ws) { ws.async_write(buffer, std::forward<Handler>(handler)); });
  }
  // WebSocket only: the largest message Beast lets a peer start (its own check, on each frame
  // header; 0 = none: the Session's reader applies the limits, which depend on trust).
  void set_message_limit(size_t bytes) {
    with_ws([&](auto& ws) { ws.read_message_max(bytes); });
  }
  // WebSocket only. Starts the closing handshake (close frame with `code` and `reason`, cut
  // to the 123 bytes a close frame can hold); handler(error_code) once it was sent and the
  // peer answered, or failed. Follow it with close() on a deadline: a peer that does not read
  // never lets it finish.
  template <class Handler>
  void async_close_message(uint16_t code, const std::string& reason, Handler&& handler) {
    boost::beast::websocket::close_reason why(code);
    why.reason = reason.size() > 123 ? reason.substr(0, 120) + "..." : reason;
    with_ws([&](auto& ws) { ws.async_close(why, std::forward<Handler>(handler)); });
  }

  // The TCP socket underneath (remote endpoint, socket options). Reading or writing it
  // directly would corrupt a TLS stream: use the Transport's own operations for that.
  boost::asio::ip::tcp::socket& socket() {
    if (wss_) return boost::beast::get_lowest_layer(*wss_).socket();
    return ws_ ? ws_->next_layer() : tls_ ? tls_->next_layer() : *plain_;
  }
  const boost::asio::ip::tcp::socket& socket() const {
    if (wss_) return boost::beast::get_lowest_layer(*wss_).socket();
    return ws_ ? ws_->next_layer() : tls_ ? tls_->next_layer() : *plain_;
  }

  // Closes at once: TCP shutdown + close, no TLS close_notify or WebSocket close exchange (a
  // peer that stopped reading must not hold the connection open). Pending operations
  // complete with operation_aborted. Safe to call more than once.
  void close();

  // The subject of the peer's verified client certificate in RFC 2253 form
  // ("CN=game-1,O=Studio"); empty for plain TCP, before the handshake, or without a client
  // certificate that passed verification.
  std::string peer_subject() const;

 private:
  // Runs f(websocket stream) on the WebSocket in use (plain or over TLS).
  template <class F>
  void with_ws(F&& f) {
    if (ws_)
      f(*ws_);
    else
      f(*wss_);
  }

  // Exactly one is engaged, for the Transport's whole life.
  std::optional<boost::asio::ip::tcp::socket> plain_;
  std::optional<boost::asio::ssl::stream<boost::asio::ip::tcp::socket>> tls_;
  std::optional<boost::beast::websocket::stream<boost::asio::ip::tcp::socket>> ws_;
  std::optional<boost::beast::websocket::stream<TlsStream>> wss_;
  UpgradeRequest ws_request_;  // the upgrade request, until async_handshake answered it
};

}  // namespace animd
