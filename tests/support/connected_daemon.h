#pragma once
// A daemon started with some arguments and one client connected to it: the start every
// end-to-end test that drives characters repeats. Header-only; the test target links
// libanimclient.
//
//   animtest::ConnectedDaemon served({"--assets", dir.string()});
//   ASSERT_TRUE(served.ok()) << served.error();
//   auto& daemon = served.daemon();
//   auto& c = served.client();
#include <memory>
#include <string>
#include <vector>

#include "animclient/client.h"
#include "daemon_process.h"

namespace animtest {

class ConnectedDaemon {
 public:
  explicit ConnectedDaemon(std::vector<std::string> args = {}) : daemon_(std::move(args)) {
    if (!daemon_.start()) {
      error_ = "animd did not start: " + daemon_.error() + "\n" + daemon_.log_tail();
      return;
    }
    animclient::ClientOptions options;
    options.port = daemon_.port();
    auto client = animclient::Client::connect(options);
    if (!client) {
      error_ = "connect: " + client.error().to_string() + "\n" + daemon_.log_tail();
      return;
    }
    client_ = std::move(client.value());
  }

  // Started and connected; else error() says why.
  bool ok() const { return client_ != nullptr; }
  const std::string& error() const { return error_; }
  DaemonProcess& daemon() { return daemon_; }
  animclient::Client& client() { return *client_; }

 private:
  DaemonProcess daemon_;
  std::unique_ptr<animclient::Client> client_;
  std::string error_;
};

}  // namespace animtest
