#pragma once
// ByteBudget: one daemon-wide allowance of bytes that many connections draw from (buffered
// request bodies, queued stream frames). Lock-free; any thread. A connection that cannot draw
// what it needs is refused (its frame dropped or the connection closed) instead of letting the
// daemon grow: the sum of what every holder has drawn never exceeds limit().

#include <atomic>
#include <cstddef>

namespace animd {

class ByteBudget {
 public:
  explicit ByteBudget(size_t limit) : limit_(limit) {}
  ByteBudget(const ByteBudget&) = delete;
  ByteBudget& operator=(const ByteBudget&) = delete;

  // Draws n bytes; false (and nothing drawn) when that would exceed the limit.
  bool try_acquire(size_t n) {
    size_t used = used_.load(std::memory_order_relaxed);
    do {
      if (n > limit_ || used > limit_ - n) return false;
    } while (!used_.compare_exchange_weak(used, used + n, std::memory_order_relaxed));
    return true;
  }
  // Gives back n bytes drawn earlier (n <= what this holder drew).
  void release(size_t n) { used_.fetch_sub(n, std::memory_order_relaxed); }

  size_t used() const { return used_.load(std::memory_order_relaxed); }
  size_t limit() const { return limit_; }

 private:
  const size_t limit_;
  std::atomic<size_t> used_{0};
};

}  // namespace animd
