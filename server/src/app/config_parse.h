#pragma once
// The command line and config file (--config FILE, TOML/INI; keys are the long flag names)
// into a Config (base/config.h), with every flag's help text and range.

#include <optional>

#include "base/config.h"

namespace animd {

// Parses argv (and --config FILE). Returns the exit code when the process should exit right
// away (--help, a bad flag), nullopt to run.
std::optional<int> parse_config(int argc, char** argv, Config& config);

}  // namespace animd
