#include "base/log_limiter.h"

namespace animd {

std::string with_commas(uint64_t n) {
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

bool LogLimiter::allow(const std::string& key, double now_s) {
  bool ok;
  {
    std::lock_guard lock(mutex_);
    flush_locked(now_s);
    auto [it, fresh] = windows_.try_emplace(key);
    Window& w = it->second;
    if (fresh) w.start = now_s;
    ok = w.logged < burst_;
    if (ok)
      ++w.logged;
    else
      ++w.suppressed;
  }
  return ok;
}

void LogLimiter::flush(double now_s) {
  std::lock_guard lock(mutex_);
  flush_locked(now_s);
}

void LogLimiter::flush_locked(double now_s) {
  for (auto it = windows_.begin(); it != windows_.end();) {
    if (now_s - it->second.start < window_s_) {
      ++it;
      continue;
    }
    if (it->second.suppressed > 0) {
      const std::string span =
          window_s_ == 60.0 ? "minute" : std::to_string(static_cast<int>(window_s_)) + " s";
      emit_summary_(with_commas(it->second.suppressed) +
                    " similar messages suppressed in the last " + span + ": " + it->first);
    }
    it = windows_.erase(it);
  }
}

}  // namespace animd
