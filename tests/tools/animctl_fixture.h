#pragma once
// The fixture of the animctl tests: one animd on 127.0.0.1 per test suite, and animctl run
// against it (plain, or --json parsed), spawning built-in characters.
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "daemon_process.h"
#include "run_process.h"
#include "tool_paths.h"

namespace animctl_test {

using animtest::ProcessResult;
using nlohmann::json;

class Animctl : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    daemon_ = std::make_unique<animtest::DaemonProcess>();
    if (!daemon_->start()) {
      start_error_ = daemon_->error() + "\n" + daemon_->log_tail();
      daemon_.reset();
    }
  }
  static void TearDownTestSuite() {
    if (daemon_) {
      EXPECT_EQ(daemon_->stop(), 0) << daemon_->log_tail();
    }
    daemon_.reset();
  }
  void SetUp() override { ASSERT_TRUE(daemon_) << "animd did not start: " << start_error_; }

  // Runs animctl against the daemon with `args` after the connection options.
  static ProcessResult ctl(std::vector<std::string> args) {
    std::vector<std::string> argv = {animtest::animctl_binary(), "--port",
                                     std::to_string(daemon_->port())};
    argv.insert(argv.end(), args.begin(), args.end());
    return animtest::run_process(argv);
  }
  // Runs animctl with --json and parses stdout; fails the test on a non-zero exit.
  static json ctl_json(std::vector<std::string> args) {
    args.insert(args.begin(), "--json");
    const ProcessResult r = ctl(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    try {
      return json::parse(r.out);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "not JSON: " << r.out << " (" << e.what() << ")";
      return json::object();
    }
  }
  static std::string spawn(const std::string& clip = "walk") {
    const json j = ctl_json({"spawn", "builtin", "--clip", clip});
    EXPECT_EQ(j["status"]["code"], "STATUS_OK");
    const uint32_t id = j["spawn"]["character_id"].get<uint32_t>();
    EXPECT_GT(id, 0u);
    return std::to_string(id);
  }

  static inline std::unique_ptr<animtest::DaemonProcess> daemon_;
  static inline std::string start_error_;
};

}  // namespace animctl_test
