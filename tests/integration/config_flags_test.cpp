// The daemon's flags through the real binary: a value a flag does not take stops it before it
// starts (exit 105, CLI11's validation error, with a message naming the flag), including "nan",
// which a floating-point range alone would let through; a value it takes starts nothing here
// (--help) but is accepted.
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

#include "daemon_process.h"

namespace animtest {
namespace config_flags_test {

struct Outcome {
  int exit_code = -1;
  std::string output;  // stderr and stdout
};

// `animd <flag> <value> --help`: parses and checks the flags, then prints help and exits.
Outcome run_flag(const std::string& flag, const std::string& value) {
  const std::string command =
      "'" + animd_binary() + "' " + flag + " '" + value + "' --help 2>&1 >/dev/null";
  Outcome o;
  FILE* p = ::popen(command.c_str(), "r");
  if (!p) return o;
  char buffer[512];
  while (std::fgets(buffer, sizeof buffer, p)) o.output += buffer;
  const int status = ::pclose(p);
  o.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return o;
}

constexpr int kValidationError = 105;

TEST(ConfigFlags, NotANumberIsRefusedByEveryFloatingPointFlag) {
  for (const char* flag :
       {"--tick-rate", "--history-seconds", "--anim-budget-ms", "--anim-cost-us"})
    for (const char* value : {"nan", "NaN", "-nan"}) {
      const Outcome o = run_flag(flag, value);
      EXPECT_EQ(o.exit_code, kValidationError) << flag << " " << value << ": " << o.output;
      EXPECT_NE(o.output.find(flag), std::string::npos) << o.output;
    }
}

TEST(ConfigFlags, AnimCostTakesZeroOrAPositiveCostInRange) {
  for (const char* value : {"0", "0.001", "2.5", "1000000"})
    EXPECT_EQ(run_flag("--anim-cost-us", value).exit_code, 0) << value;
  for (const char* value : {"-1", "0.0005", "1e7", "1e400", "abc", ""}) {
    const Outcome o = run_flag("--anim-cost-us", value);
    EXPECT_EQ(o.exit_code, kValidationError) << "'" << value << "': " << o.output;
    EXPECT_NE(o.output.find("--anim-cost-us"), std::string::npos) << o.output;
  }
}

TEST(ConfigFlags, MaxUpdateIntervalTakesOneToSixtyFour) {
  for (const char* value : {"1", "8", "48", "64"})
    EXPECT_EQ(run_flag("--max-update-interval", value).exit_code, 0) << value;
  for (const char* value : {"0", "65", "-1", "1.5"}) {
    const Outcome o = run_flag("--max-update-interval", value);
    EXPECT_EQ(o.exit_code, kValidationError) << "'" << value << "': " << o.output;
    EXPECT_NE(o.output.find("--max-update-interval"), std::string::npos) << o.output;
  }
}

}  // namespace config_flags_test
}  // namespace animtest
