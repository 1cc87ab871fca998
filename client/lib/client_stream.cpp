#include "client_stream.h"

#include <cstring>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <boost/asio/ip/address.hpp>
#include <boost/asio/ssl/error.hpp>

namespace animclient::detail {

namespace ssl = boost::asio::ssl;

namespace {

// OpenSSL's reason for the most recent failure, and an empty error queue afterwards so that
// nothing leaks into a later, unrelated call. OpenSSL stacks the errors from the root cause
// up ("No such file or directory", "no such file", "system lib"): the first one says most,
// and an operating-system error reads best as its errno text.
std::string openssl_reason() {
  std::string reason;
  unsigned long code = 0;
  while ((code = ERR_get_error()) != 0) {
    if (!reason.empty()) continue;
    if (ERR_GET_LIB(code) == ERR_LIB_SYS) {
      reason = std::strerror(ERR_GET_REASON(code));
    } else if (const char* text = ERR_reason_error_string(code)) {
      reason = text;
    }
  }
  return reason.empty() ? "unknown OpenSSL error" : reason;
}

Error tls_error(std::string message) {
  return Error{Error::Kind::kConnect, anim::v1::STATUS_INTERNAL, std::move(message)};
}

}  // namespace

Result<std::shared_ptr<ssl::context>> make_client_tls_context(const ClientOptions& options) {
  ERR_clear_error();
  auto context = std::make_shared<ssl::context>(ssl::context::tls_client);
  SSL_CTX* native = context->native_handle();
  SSL_CTX_set_min_proto_version(native, TLS1_2_VERSION);
  SSL_CTX_set_options(native, SSL_OP_NO_SSLv2 | SSL_OP_NO_SSLv3 | SSL_OP_NO_TLSv1 |
                                  SSL_OP_NO_TLSv1_1 | SSL_OP_NO_COMPRESSION |
                                  SSL_OP_NO_RENEGOTIATION);
  SSL_CTX_set_verify(native, SSL_VERIFY_PEER, nullptr);
  if (options.ca_file.empty()) {
    if (SSL_CTX_set_default_verify_paths(native) != 1)
      return tls_error("TLS: cannot load the system CA store: " + openssl_reason());
  } else if (SSL_CTX_load_verify_locations(native, options.ca_file.c_str(), nullptr) != 1) {
    return tls_error("TLS CA file " + options.ca_file + ": " + openssl_reason());
  }
  if (options.cert_file.empty() != options.key_file.empty())
    return tls_error("TLS client certificate needs both a certificate file and a key file");
  if (!options.cert_file.empty()) {
    if (SSL_CTX_use_certificate_chain_file(native, options.cert_file.c_str()) != 1)
      return tls_error("TLS client certificate " + options.cert_file + ": " + openssl_reason());
    if (SSL_CTX_use_PrivateKey_file(native, options.key_file.c_str(), SSL_FILETYPE_PEM) != 1)
      return tls_error("TLS client key " + options.key_file + ": " + openssl_reason());
    if (SSL_CTX_check_private_key(native) != 1)
      return tls_error("TLS client key " + options.key_file + " does not match the certificate " +
                       options.cert_file + ": " + openssl_reason());
  }
  return context;
}

std::string ClientStream::start_tls(std::shared_ptr<ssl::context> context,
                                    const std::string& server_name) {
  context_ = std::move(context);
  tcp::socket socket = std::move(*plain_);
  plain_.reset();
  tls_.emplace(std::move(socket), *context_);
  SSL* native = tls_->native_handle();
  X509_VERIFY_PARAM* param = SSL_get0_param(native);
  boost::system::error_code not_ip;
  boost::asio::ip::make_address(server_name, not_ip);
  if (!not_ip) {
    if (X509_VERIFY_PARAM_set1_ip_asc(param, server_name.c_str()) != 1)
      return "TLS: cannot verify the server as " + server_name + ": " + openssl_reason();
  } else {
    X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
    if (X509_VERIFY_PARAM_set1_host(param, server_name.c_str(), 0) != 1)
      return "TLS: cannot verify the server as " + server_name + ": " + openssl_reason();
    if (SSL_set_tlsext_host_name(native, server_name.c_str()) != 1)
      return "TLS: cannot send the server name " + server_name + ": " + openssl_reason();
  }
  return {};
}

std::string ClientStream::tls_failure(const boost::system::error_code& ec) const {
  std::string text = ec.message();
  if (ec.category() == ssl::error::get_stream_category() && ec == ssl::error::stream_truncated)
    text = "the server closed the connection during the handshake (is it serving TLS?)";
  if (tls_) {
    auto& stream = const_cast<ssl::stream<tcp::socket>&>(*tls_);
    const long verify = SSL_get_verify_result(stream.native_handle());
    if (verify != X509_V_OK)
      text += std::string(" (") + X509_verify_cert_error_string(verify) + ")";
  }
  ERR_clear_error();
  return text;
}

}  // namespace animclient::detail
