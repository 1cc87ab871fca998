#pragma once
// The TLS settings of the protocol port (--tls-cert, --tls-key, --tls-client-ca,
// --tls-require-client-cert): plain values; net/tls_context.h makes the context from them.

#include <string>

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

}  // namespace animd
