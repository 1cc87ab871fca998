#include "animops/systemd_notifier.h"

#include <cstdlib>
#include <cstring>

#include <spdlog/spdlog.h>
#include <systemd/sd-daemon.h>

namespace animops {

namespace {

// STATUS= is one line; a newline would start a new (bogus) assignment.
std::string one_line(const std::string& s) {
  std::string out = s;
  for (char& c : out) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return out;
}

}  // namespace

SystemdNotifier::SystemdNotifier() {
  const char* socket = std::getenv("NOTIFY_SOCKET");
  enabled_ = socket != nullptr && *socket != '\0';
  if (!enabled_) return;
  uint64_t usec = 0;
  // > 0: the watchdog is on for this process (WATCHDOG_PID unset or ours).
  if (sd_watchdog_enabled(0, &usec) > 0 && usec > 0) {
    watchdog_timeout_ = std::chrono::microseconds{static_cast<int64_t>(usec)};
  }
  spdlog::info("systemd: notify socket {}, watchdog {}", socket,
               watchdog_timeout_.count() > 0 ? std::to_string(watchdog_timeout_.count()) + " us"
                                             : std::string("off"));
}

bool SystemdNotifier::send(const std::string& message) {
  if (!enabled_) return false;
  const int r = sd_notify(0, message.c_str());
  if (r < 0) {
    if (!error_logged_.exchange(true)) {
      spdlog::warn("systemd: sd_notify failed: {} (further failures not logged)",
                   std::strerror(-r));
    }
    return false;
  }
  return r > 0;
}

void SystemdNotifier::ready(const std::string& status) {
  send(status.empty() ? "READY=1" : "READY=1\nSTATUS=" + one_line(status));
}

void SystemdNotifier::stopping(const std::string& status) {
  send(status.empty() ? "STOPPING=1" : "STOPPING=1\nSTATUS=" + one_line(status));
}

void SystemdNotifier::status(const std::string& line) {
  send("STATUS=" + one_line(line));
}

bool SystemdNotifier::watchdog(Clock::time_point now) {
  if (!enabled_ || watchdog_timeout_.count() <= 0) return false;
  if (watchdog_sent_ && now - last_watchdog_ < watchdog_timeout_ / 2) return false;
  watchdog_sent_ = true;
  last_watchdog_ = now;
  return send("WATCHDOG=1");
}

}  // namespace animops
