#include "fleet/peer_call.h"

#include <array>
#include <optional>

#include <utility>  // before Asio: boost 1.74's awaitable.hpp needs std::exchange in C++20

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>

namespace animd {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

struct PeerConnection::Impl {
  PeerAddress peer;
  asio::io_context io;
  std::optional<asio::ssl::context> tls;
  tcp::socket socket{io};
  std::optional<asio::ssl::stream<tcp::socket&>> stream;  // with TLS
  uint64_t next_id = 1;

  anim::Status unavailable(const std::string& step, const boost::system::error_code& ec) const {
    return anim::Status(anim::StatusCode::kUnavailable,
                        "peer " + peer.describe() + ": " + step + ": " + ec.message());
  }

  // Starts `op` (an asynchronous operation on the connection, given its completion handler)
  // and runs it to completion or to `deadline`, when the socket is closed (timed_out).
  template <typename Op>
  boost::system::error_code perform(Clock::time_point deadline, Op&& op) {
    boost::system::error_code result;
    bool done = false;
    op([&](const boost::system::error_code& ec, auto&&...) {
      result = ec;
      done = true;
    });
    io.restart();
    io.run_until(deadline);
    if (done) return result;
    boost::system::error_code ignored;
    socket.close(ignored);
    io.restart();
    io.run();  // the aborted operation's handler
    return asio::error::timed_out;
  }

  template <typename Buffers>
  boost::system::error_code write(const Buffers& buffers, Clock::time_point deadline) {
    return perform(deadline, [&](auto handler) {
      if (stream)
        asio::async_write(*stream, buffers, handler);
      else
        asio::async_write(socket, buffers, handler);
    });
  }
  boost::system::error_code read(asio::mutable_buffer buffer, Clock::time_point deadline) {
    return perform(deadline, [&](auto handler) {
      if (stream)
        asio::async_read(*stream, buffer, handler);
      else
        asio::async_read(socket, buffer, handler);
    });
  }
};

PeerConnection::PeerConnection(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

PeerConnection::~PeerConnection() {
  if (!impl_) return;
  boost::system::error_code ignored;
  impl_->socket.close(ignored);
}

anim::Expected<std::unique_ptr<PeerConnection>> PeerConnection::open(const PeerAddress& peer,
                                                                     Clock::time_point deadline) {
  auto impl = std::make_unique<Impl>();
  impl->peer = peer;
  Impl& c = *impl;
  tcp::resolver resolver(c.io);
  boost::system::error_code ec;
  const auto endpoints = resolver.resolve(peer.host, std::to_string(peer.port), ec);
  if (ec) return c.unavailable("resolve", ec);
  ec =
      c.perform(deadline, [&](auto handler) { asio::async_connect(c.socket, endpoints, handler); });
  if (ec) return c.unavailable("connect", ec);
  c.socket.set_option(tcp::no_delay(true), ec);
  if (peer.tls) {
    c.tls.emplace(asio::ssl::context::tls_client);
    c.tls->set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                       asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 |
                       asio::ssl::context::no_tlsv1_1);
    if (peer.ca_file.empty())
      c.tls->set_default_verify_paths(ec);
    else
      c.tls->load_verify_file(peer.ca_file, ec);
    if (ec) return c.unavailable("TLS trust (" + peer.ca_file + ")", ec);
    if (!peer.client_cert_file.empty()) {
      c.tls->use_certificate_chain_file(peer.client_cert_file, ec);
      if (!ec) c.tls->use_private_key_file(peer.client_key_file, asio::ssl::context::pem, ec);
      if (ec) return c.unavailable("TLS client certificate", ec);
    }
    c.stream.emplace(c.socket, *c.tls);
    c.stream->set_verify_mode(asio::ssl::verify_peer);
    c.stream->set_verify_callback(asio::ssl::host_name_verification(peer.host));
    if (!SSL_set_tlsext_host_name(c.stream->native_handle(), peer.host.c_str()))
      return anim::Status(anim::StatusCode::kUnavailable,
                          "peer " + peer.describe() + ": TLS: cannot set the server name");
    ec = c.perform(deadline, [&](auto handler) {
      c.stream->async_handshake(asio::ssl::stream_base::client, handler);
    });
    if (ec) return c.unavailable("TLS handshake", ec);
  }
  return std::unique_ptr<PeerConnection>(new PeerConnection(std::move(impl)));
}

anim::Expected<anim::v1::Reply> PeerConnection::call(anim::v1::Request request,
                                                     Clock::time_point deadline,
                                                     size_t max_reply_bytes) {
  Impl& c = *impl_;
  const uint64_t id = c.next_id++;
  request.set_request_id(id);
  if (!c.peer.token.empty()) request.set_auth_token(c.peer.token);
  std::string body;
  if (!request.SerializeToString(&body))
    return anim::invalid_argument("peer " + c.peer.describe() + ": the request does not serialize");
  const uint32_t n = static_cast<uint32_t>(body.size());
  const unsigned char header[4] = {
      static_cast<unsigned char>(n), static_cast<unsigned char>(n >> 8),
      static_cast<unsigned char>(n >> 16), static_cast<unsigned char>(n >> 24)};
  const std::array<asio::const_buffer, 2> out{asio::buffer(header), asio::buffer(body)};
  if (auto ec = c.write(out, deadline)) return c.unavailable("send", ec);
  for (;;) {
    unsigned char len[4];
    if (auto ec = c.read(asio::buffer(len), deadline)) return c.unavailable("receive", ec);
    const size_t size =
        size_t(len[0]) | size_t(len[1]) << 8 | size_t(len[2]) << 16 | size_t(len[3]) << 24;
    if (size > max_reply_bytes)
      return anim::Status(anim::StatusCode::kResourceExhausted,
                          "peer " + c.peer.describe() + ": a frame of " + std::to_string(size) +
                              " bytes, more than " + std::to_string(max_reply_bytes));
    std::string frame(size, '\0');
    if (auto ec = c.read(asio::buffer(frame), deadline)) return c.unavailable("receive", ec);
    anim::v1::ServerMessage message;
    if (!message.ParseFromString(frame))
      return anim::data_loss("peer " + c.peer.describe() + ": a frame that is not a ServerMessage");
    if (message.has_reply() && message.reply().request_id() == id) return message.reply();
  }
}

}  // namespace animd
