#include "net/transport.h"

#include <openssl/bio.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <memory>

namespace animd {

Transport::Transport(boost::asio::ip::tcp::socket socket) : plain_(std::move(socket)) {}

Transport::Transport(boost::asio::ip::tcp::socket socket, boost::asio::ssl::context& tls)
    : tls_(std::in_place, std::move(socket), tls) {}

namespace {
template <class WebSocket>
void set_up(WebSocket& ws) {
  ws.binary(true);
  // No Beast-side timeouts: the Session's watchdog owns every deadline (auth, slow sender,
  // idle), as for TCP. The server identifies itself like the HTTP endpoint.
  ws.set_option(boost::beast::websocket::stream_base::decorator(
      [](boost::beast::websocket::response_type& res) {
        res.set(boost::beast::http::field::server, "animd");
      }));
  ws.auto_fragment(false);
}
}  // namespace

Transport::Transport(boost::asio::ip::tcp::socket socket, UpgradeRequest request)
    : ws_(std::in_place, std::move(socket)), ws_request_(std::move(request)) {
  set_up(*ws_);
}

Transport::Transport(TlsStream stream, UpgradeRequest request)
    : wss_(std::in_place, std::move(stream)), ws_request_(std::move(request)) {
  set_up(*wss_);
}

void Transport::close() {
  boost::system::error_code ignored;
  auto& s = socket();
  s.shutdown(boost::asio::ip::tcp::socket::shutdown_both, ignored);
  s.close(ignored);
}

std::string Transport::peer_subject() const {
  if (!tls_ && !wss_) return {};
  // native_handle() is not const in Asio; reading the peer certificate changes nothing.
  SSL* ssl = tls_ ? const_cast<boost::asio::ssl::stream<boost::asio::ip::tcp::socket>&>(*tls_)
                        .native_handle()
                  : const_cast<TlsStream&>(wss_->next_layer()).native_handle();
  if (SSL_get_verify_result(ssl) != X509_V_OK) return {};
  std::unique_ptr<X509, decltype(&X509_free)> cert(SSL_get1_peer_certificate(ssl), &X509_free);
  if (!cert) return {};
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new(BIO_s_mem()), &BIO_free);
  if (!bio) return {};
  if (X509_NAME_print_ex(bio.get(), X509_get_subject_name(cert.get()), 0,
                         XN_FLAG_RFC2253 & ~ASN1_STRFLGS_ESC_MSB) < 0)
    return {};
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio.get(), &data);
  return size > 0 ? std::string(data, static_cast<size_t>(size)) : std::string();
}

}  // namespace animd
