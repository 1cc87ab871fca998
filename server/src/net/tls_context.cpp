#include "net/tls_context.h"

#include <cstring>

#include <openssl/err.h>
#include <openssl/ssl.h>

namespace animd {

namespace {

namespace ssl = boost::asio::ssl;

// TLS 1.2 suites: ECDHE/DHE key exchange (forward secrecy) with AES-GCM or ChaCha20-Poly1305.
// TLS 1.3 suites are all AEAD and OpenSSL's defaults are kept.
constexpr const char* kTls12Ciphers =
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:"
    "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:"
    "ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305:"
    "DHE-RSA-AES128-GCM-SHA256:DHE-RSA-AES256-GCM-SHA384";

// Session-id context: lets OpenSSL resume sessions when client certificates are verified
// (without one it refuses resumption with an error).
constexpr unsigned char kSessionIdContext[] = "animd";

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

anim::Status file_error(const char* what, const std::string& file) {
  return anim::not_found(std::string(what) + " " + file + ": " + openssl_reason());
}

}  // namespace

anim::Expected<std::shared_ptr<ssl::context>> make_server_tls_context(const TlsConfig& config) {
  if (config.cert_file.empty()) return anim::invalid_argument("--tls-cert is not set");
  if (config.key_file.empty())
    return anim::invalid_argument("--tls-cert needs --tls-key (the certificate's private key)");
  if (config.require_client_cert && config.client_ca_file.empty())
    return anim::invalid_argument(
        "--tls-require-client-cert needs --tls-client-ca (the CAs client certificates are "
        "verified against)");

  ERR_clear_error();
  auto context = std::make_shared<ssl::context>(ssl::context::tls_server);
  SSL_CTX* native = context->native_handle();

  // No SSLv2/3, TLS 1.0 or 1.1: the minimum version rules them out, the options say it twice.
  if (SSL_CTX_set_min_proto_version(native, TLS1_2_VERSION) != 1)
    return anim::invalid_argument("TLS: cannot set the minimum version: " + openssl_reason());
  SSL_CTX_set_options(native, SSL_OP_NO_SSLv2 | SSL_OP_NO_SSLv3 | SSL_OP_NO_TLSv1 |
                                  SSL_OP_NO_TLSv1_1 | SSL_OP_NO_COMPRESSION |
                                  SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE |
                                  SSL_OP_SINGLE_DH_USE | SSL_OP_SINGLE_ECDH_USE);
  if (SSL_CTX_set_cipher_list(native, kTls12Ciphers) != 1)
    return anim::invalid_argument("TLS: cipher list refused: " + openssl_reason());
  SSL_CTX_set_session_id_context(native, kSessionIdContext, sizeof kSessionIdContext - 1);

  if (SSL_CTX_use_certificate_chain_file(native, config.cert_file.c_str()) != 1)
    return file_error("TLS certificate (--tls-cert)", config.cert_file);
  if (SSL_CTX_use_PrivateKey_file(native, config.key_file.c_str(), SSL_FILETYPE_PEM) != 1)
    return file_error("TLS private key (--tls-key)", config.key_file);
  if (SSL_CTX_check_private_key(native) != 1)
    return anim::invalid_argument("TLS private key (--tls-key) " + config.key_file +
                                  " does not match the certificate " + config.cert_file + ": " +
                                  openssl_reason());

  if (!config.client_ca_file.empty()) {
    if (SSL_CTX_load_verify_locations(native, config.client_ca_file.c_str(), nullptr) != 1)
      return file_error("TLS client CA (--tls-client-ca)", config.client_ca_file);
    // The CA names sent in the CertificateRequest, so a client can pick the right certificate.
    STACK_OF(X509_NAME)* names = SSL_load_client_CA_file(config.client_ca_file.c_str());
    if (!names) return file_error("TLS client CA (--tls-client-ca)", config.client_ca_file);
    SSL_CTX_set_client_CA_list(native, names);  // takes ownership
    int mode = SSL_VERIFY_PEER;
    if (config.require_client_cert) mode |= SSL_VERIFY_FAIL_IF_NO_PEER_CERT;
    SSL_CTX_set_verify(native, mode, nullptr);
  } else {
    SSL_CTX_set_verify(native, SSL_VERIFY_NONE, nullptr);
  }
  ERR_clear_error();
  return context;
}

}  // namespace animd
