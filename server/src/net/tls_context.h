#pragma once
// The daemon's TLS settings (--tls-cert, --tls-key, --tls-client-ca,
// --tls-require-client-cert) and the OpenSSL server context built from them.

#include <memory>
#include <string>

#include <boost/asio/ssl/context.hpp>

#include "anim/status.h"

#include "base/tls_config.h"

namespace animd {

// A server context: TLS 1.2 and 1.3 only (SSLv2/3, TLS 1.0/1.1 refused), forward-secret AEAD
// ciphers for TLS 1.2, no renegotiation, the certificate + key loaded and checked to match,
// and client-certificate verification as configured. An error names the file (or the flag)
// and OpenSSL's reason: kInvalidArgument for a bad combination of flags, kNotFound for a file
// OpenSSL could not use.
anim::Expected<std::shared_ptr<boost::asio::ssl::context>> make_server_tls_context(
    const TlsConfig& config);

}  // namespace animd
