#pragma once
// SystemdNotifier: the sd_notify(3) protocol for Type=notify units.
//
//   READY=1      once start-up is done (sockets listening, assets loaded)
//   WATCHDOG=1   from the tick loop, at most every WATCHDOG_USEC / 2 (so a stalled tick
//                loop gets the service killed and restarted by systemd)
//   STOPPING=1   when shutdown starts
//   STATUS=...   a one-line human status shown by `systemctl status`
//
// Everything is a no-op when NOTIFY_SOCKET is unset (not started by systemd). The
// environment is read once, at construction. Sending is one non-blocking datagram; errors
// are logged once and never fatal.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

namespace animops {

class SystemdNotifier {
 public:
  using Clock = std::chrono::steady_clock;

  // Reads NOTIFY_SOCKET and, via sd_watchdog_enabled(), WATCHDOG_USEC / WATCHDOG_PID.
  SystemdNotifier();

  bool enabled() const { return enabled_; }
  // The watchdog timeout systemd expects pings within; zero when the watchdog is off.
  std::chrono::microseconds watchdog_timeout() const { return watchdog_timeout_; }

  void ready(const std::string& status = {});
  void stopping(const std::string& status = {});
  void status(const std::string& line);

  // Call from the tick loop every tick; sends WATCHDOG=1 when at least half the timeout has
  // passed since the last one (the first call always sends). Returns whether it sent.
  // `now` is a parameter so that tests need no sleeps. Lock-free; one caller thread.
  bool watchdog(Clock::time_point now = Clock::now());

 private:
  bool send(const std::string& message);

  bool enabled_ = false;
  std::chrono::microseconds watchdog_timeout_{0};
  Clock::time_point last_watchdog_{};
  bool watchdog_sent_ = false;
  std::atomic<bool> error_logged_{false};
};

}  // namespace animops
