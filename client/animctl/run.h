#pragma once
// Executes a parsed Plan against the daemon and prints the outcome; returns the exit code.

#include <ostream>

#include "plan.h"

namespace animctl {

int execute(const Plan& plan, const GlobalOptions& options, std::ostream& out, std::ostream& err);

}  // namespace animctl
