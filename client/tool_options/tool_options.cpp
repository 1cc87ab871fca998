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
