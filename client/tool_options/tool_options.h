#pragma once
// Command-line pieces shared by animload and animhostile (CLI11).

#include <string>

#include <CLI/CLI.hpp>

namespace animtool {

// How a tool's clients reach a TLS daemon (animclient::ClientOptions has the same fields).
struct TlsFlags {
  bool tls = false;
  std::string ca_file;      // PEM CAs the server's certificate must chain to (default: system)
  std::string cert_file;    // client certificate, for daemons that verify clients
  std::string key_file;     // its private key
  std::string server_name;  // name the certificate must carry (default: host)
};

// Adds --tls, --ca, --cert, --key and --server-name (the files need --tls; --cert and --key
// go together).
void add_tls_flags(CLI::App& app, TlsFlags& flags);

// Refuses a value that is not a finite number. CLI::Range lets NaN through (every comparison
// with NaN is false), so a floating-point option is checked `finite() & CLI::Range(lo, hi)`.
const CLI::Validator& finite();

// Parses argv with `app`. Returns -1 to go on, or the exit code: 0 after --help, 2 on a
// usage error, printed on stderr as "<app name>: <what is wrong>".
int parse_command_line(CLI::App& app, int argc, char** argv);

}  // namespace animtool
