#pragma once
// Throwaway TLS certificates for tests, made at test time with the `openssl` command-line
// tool (Debian package openssl) in a folder the test owns. Nothing is checked into the repo.
//
//   animtest::TempDir dir("tls");
//   animtest::TestCerts certs = animtest::make_test_certs(dir.path());
//   ASSERT_TRUE(certs.ok()) << certs.error;
//
// What it makes (PEM, EC P-256 keys, valid for two days):
//   ca                   a CA, trusted by the tests
//   server_cert/key      signed by ca; subjectAltName IP:127.0.0.1, DNS:localhost
//   client_cert/key      signed by ca; subject CN=animd-test-client (a trusted client)
//   untrusted_ca         another CA, trusted by nobody
//   untrusted_client_*   signed by untrusted_ca (a client the daemon must refuse)
//
// POSIX only (runs the tool through /bin/sh); the `openssl` on PATH, or $ANIMD_OPENSSL_BIN.

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace animtest {

struct TestCerts {
  std::string ca;
  std::string server_cert, server_key;
  std::string client_cert, client_key;
  std::string untrusted_ca;
  std::string untrusted_client_cert, untrusted_client_key;
  std::string error;  // empty when every file was made

  bool ok() const { return error.empty(); }
};

// The subject the trusted client certificate carries (RFC 2253 form).
inline constexpr const char* kTestClientSubject = "CN=animd-test-client,O=animd tests";

namespace detail {

inline std::string openssl_binary() {
  if (const char* env = std::getenv("ANIMD_OPENSSL_BIN"); env && *env) return env;
  return "openssl";
}

// The extension sections the certificates are signed with (openssl req/x509 -extensions).
inline constexpr const char* kOpensslConfig = R"(
[req]
distinguished_name = dn
prompt = no
[dn]
CN = unused
[ca_ext]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign,cRLSign
subjectKeyIdentifier = hash
[server_ext]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = IP:127.0.0.1,DNS:localhost
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
[client_ext]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature
extendedKeyUsage = clientAuth
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
)";

// Runs one openssl command line through /bin/sh, appending its output to `log`. The arguments
// are built here; paths are single-quoted (test folders never contain a quote). True on exit
// status 0.
inline bool run_openssl(const std::string& args, const std::filesystem::path& log) {
  const std::string command =
      "'" + openssl_binary() + "' " + args + " >>'" + log.string() + "' 2>&1 </dev/null";
  return std::system(command.c_str()) == 0;
}

inline std::string quoted(const std::filesystem::path& p) {
  // Appended piece by piece: "'" + string + "'" trips GCC 12's false -Wrestrict.
  std::string out = "'";
  out += p.string();
  out += "'";
  return out;
}

}  // namespace detail

// Makes every file of TestCerts in `dir` (which must exist). On failure `error` says which
// step failed and shows openssl's output.
inline TestCerts make_test_certs(const std::filesystem::path& dir) {
  using detail::quoted;
  TestCerts certs;
  const auto log = dir / "openssl.log";
  const auto config = dir / "openssl.cnf";
  {
    std::ofstream out(config);
    out << detail::kOpensslConfig;
    if (!out) {
      certs.error = "cannot write " + config.string();
      return certs;
    }
  }
  const std::string key_options = "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes";
  auto fail = [&](const std::string& step) {
    std::ifstream in(log);
    std::stringstream text;
    text << in.rdbuf();
    certs.error = "openssl failed to make " + step + ":\n" + text.str();
    return certs;
  };
  // A self-signed CA.
  auto make_ca = [&](const std::string& name, const std::string& subject) {
    return detail::run_openssl("req -x509 -config " + quoted(config) + " -extensions ca_ext " +
                                   key_options + " -keyout " + quoted(dir / (name + ".key")) +
                                   " -out " + quoted(dir / (name + ".pem")) + " -days 2 -subj '" +
                                   subject + "'",
                               log);
  };
  // A key + certificate request, signed by CA `ca` with extension section `ext`.
  auto make_leaf = [&](const std::string& name, const std::string& subject, const std::string& ca,
                       const std::string& ext) {
    const auto csr = dir / (name + ".csr");
    return detail::run_openssl("req -new -config " + quoted(config) + " " + key_options +
                                   " -keyout " + quoted(dir / (name + ".key")) + " -out " +
                                   quoted(csr) + " -subj '" + subject + "'",
                               log) &&
           detail::run_openssl("x509 -req -in " + quoted(csr) + " -CA " +
                                   quoted(dir / (ca + ".pem")) + " -CAkey " +
                                   quoted(dir / (ca + ".key")) + " -CAcreateserial -out " +
                                   quoted(dir / (name + ".pem")) + " -days 2 -extfile " +
                                   quoted(config) + " -extensions " + ext,
                               log);
  };
  if (!make_ca("ca", "/CN=animd test CA")) return fail("the CA");
  if (!make_leaf("server", "/CN=localhost", "ca", "server_ext")) return fail("the server cert");
  if (!make_leaf("client", "/O=animd tests/CN=animd-test-client", "ca", "client_ext"))
    return fail("the client cert");
  if (!make_ca("untrusted-ca", "/CN=animd untrusted CA")) return fail("the untrusted CA");
  if (!make_leaf("untrusted-client", "/CN=animd-untrusted-client", "untrusted-ca", "client_ext"))
    return fail("the untrusted client cert");

  auto path = [&](const std::string& file) { return (dir / file).string(); };
  certs.ca = path("ca.pem");
  certs.server_cert = path("server.pem");
  certs.server_key = path("server.key");
  certs.client_cert = path("client.pem");
  certs.client_key = path("client.key");
  certs.untrusted_ca = path("untrusted-ca.pem");
  certs.untrusted_client_cert = path("untrusted-client.pem");
  certs.untrusted_client_key = path("untrusted-client.key");
  return certs;
}

}  // namespace animtest
