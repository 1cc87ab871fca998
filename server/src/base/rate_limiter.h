#pragma once
// A token bucket: `rate` requests per second, bursts up to one second's worth. One per
// connection, on its strand (not thread-safe).

#include <algorithm>
#include <chrono>

namespace animd {

class RateLimiter {
 public:
  explicit RateLimiter(double rate)
      : rate_(rate), tokens_(rate), last_(std::chrono::steady_clock::now()) {}
  // Takes one token; false when the bucket is empty.
  bool take(std::chrono::steady_clock::time_point now) {
    tokens_ = std::min(rate_, tokens_ + std::chrono::duration<double>(now - last_).count() * rate_);
    last_ = now;
    if (tokens_ < 1.0) return false;
    tokens_ -= 1.0;
    return true;
  }
  double rate() const { return rate_; }

 private:
  double rate_;
  double tokens_;
  std::chrono::steady_clock::time_point last_;
};

}  // namespace animd
