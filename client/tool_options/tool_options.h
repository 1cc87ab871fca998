#pragma once
// Command-line pieces shared by animload and animhostile (CLI11).

#include <CLI/CLI.hpp>

namespace animtool {

// Refuses a value that is not a finite number. CLI::Range lets NaN through (every comparison
// with NaN is false), so a floating-point option is checked `finite() & CLI::Range(lo, hi)`.
const CLI::Validator& finite();

// Parses argv with `app`. Returns -1 to go on, or the exit code: 0 after --help, 2 on a
// usage error, printed on stderr as "<app name>: <what is wrong>".
int parse_command_line(CLI::App& app, int argc, char** argv);

}  // namespace animtool
