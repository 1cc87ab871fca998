#pragma once
// LogLimiter: keeps messages an attacker can trigger (one per bad frame, bad request, failed
// login, library complaint) from flooding the log. Each message has a key (its kind, e.g.
// "session closed: unparsable request"); up to `burst` messages of a key are logged per
// window, the rest are counted, and when the window ends one line says
// "1,234 similar messages suppressed in the last minute: <key>". Thread-safe.
//
// The clock is passed in (steady seconds) so tests need no sleeping.

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>

namespace animd {

class LogLimiter {
 public:
  // `emit` writes one line (level already chosen by the caller's lambda).
  using Emit = std::function<void(const std::string& line)>;
  LogLimiter(size_t burst, double window_s, Emit emit_summary)
      : burst_(burst), window_s_(window_s), emit_summary_(std::move(emit_summary)) {}

  // True when the caller should log this message now; false when it is suppressed (counted).
  // Also emits the summary of keys whose window has ended.
  bool allow(const std::string& key, double now_s);
  // Emits the summaries of every ended window (call periodically, e.g. once a second).
  void flush(double now_s);

 private:
  struct Window {
    double start = 0;
    size_t logged = 0;
    uint64_t suppressed = 0;
  };
  void flush_locked(double now_s);

  const size_t burst_;
  const double window_s_;
  Emit emit_summary_;
  std::mutex mutex_;
  std::unordered_map<std::string, Window> windows_;
};

// "1,234": thousands separated by commas (for log lines).
std::string with_commas(uint64_t n);

}  // namespace animd
