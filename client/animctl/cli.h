#pragma once
// The animctl command line (CLI11): global options and one subcommand per protocol command.
// Parsing fills a Plan; values are validated while parsing (UsageError on a bad one).

#include <CLI/CLI.hpp>

#include "plan.h"

namespace animctl {

void add_global_options(CLI::App& app, GlobalOptions& options);
void add_commands(CLI::App& app, Plan& plan);
// blend-space and param (cli_blend.cpp).
void add_blend_commands(CLI::App& app, Plan& plan);

}  // namespace animctl
