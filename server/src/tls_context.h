#pragma once
// The daemon's TLS settings (--tls-cert, --tls-key, --tls-client-ca,
// --tls-require-client-cert) and the OpenSSL server context built from them.

#include <memory>
#include <string>

#include <boost/asio/ssl/context.hpp>

#include "anim/status.h"

namespace animd {

struct TlsConfig {
  // PEM files. TLS is on when cert_file is set; key_file is then required too.
  std::string cert_file;             // server certificate, optionally followed by its chain
  std::string key_file;              // its private key (unencrypted)
  std::string client_ca_file;        // when set: client certificates are requested and verified
                                     // against these CAs (a client without one is still accepted
                                     // unless require_client_cert)
  bool require_client_cert = false;  // refuse clients without a verified certificate;
                                     // needs client_ca_file

  bool enabled() const { return !cert_file.empty(); }
};

// A server context: TLS 1.2 and 1.3 only (SSLv2/3, TLS 1.0/1.1 refused), forward-secret AEAD
// ciphers for TLS 1.2, no renegotiation, the certificate + key loaded and checked to match,
// and client-certificate verification as configured. An error names the file (or the flag)
// and OpenSSL's reason: kInvalidArgument for a bad combination of flags, kNotFound for a file
// OpenSSL could not use.
anim::Expected<std::shared_ptr<boost::asio::ssl::context>> make_server_tls_context(
    const TlsConfig& config);

}  // namespace animd
