#include "tool_options.h"

#include <charconv>
#include <cmath>
#include <iostream>
#include <string>

namespace animtool {

const CLI::Validator& finite() {
  static const CLI::Validator validator(
      [](std::string& text) -> std::string {
        double value = 0;
        const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(value))
          return "'" + text + "' is not a finite number";
        return {};
      },
      "FINITE");
  return validator;
}

void add_tls_flags(CLI::App& app, TlsFlags& f) {
  auto* tls = app.add_flag("--tls", f.tls, "connect with TLS (1.2+), verifying the server");
  app.add_option("--ca", f.ca_file,
                 "PEM CA file the server certificate must chain to (default: the system store)")
      ->needs(tls);
  auto* cert =
      app.add_option("--cert", f.cert_file, "PEM client certificate (with --key)")->needs(tls);
  auto* key = app.add_option("--key", f.key_file, "PEM private key of --cert")->needs(tls);
  cert->needs(key);
  key->needs(cert);
  app.add_option("--server-name", f.server_name,
                 "name the server certificate must carry (default: --host)")
      ->needs(tls);
}

int parse_command_line(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << app.get_name() << ": " << e.what() << "\n";
    return 2;
  }
  return -1;
}

}  // namespace animtool
