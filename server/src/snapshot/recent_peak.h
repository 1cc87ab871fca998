#pragma once
// RecentPeak: the most items a pool had in use at once lately, so that the pool keeps that
// many (in use and spare) instead of freeing and remaking them as a load comes and goes: a
// remade snapshot or frame is mapped and page-faulted again on the tick thread. A peak
// longer ago than two windows no longer counts, and the pool may let its extras go.
//
// Lately: the calls to acquired() of the current window and of the whole window before it,
// a window being `window` calls (ticks, for the tick's pools). Not thread-safe: the
// pool guards it.

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace animd {

class RecentPeak {
 public:
  explicit RecentPeak(uint32_t window) : window_(std::max<uint32_t>(1, window)) {}

  // After each acquisition, with the items then in use.
  void acquired(size_t in_use) {
    current_ = std::max(current_, in_use);
    if (++count_ >= window_) {
      previous_ = current_;
      current_ = in_use;
      count_ = 0;
    }
  }

  // The most in use at once during the current window and the one before it.
  size_t peak() const { return std::max(previous_, current_); }

 private:
  uint32_t window_;      // calls to acquired() a window spans; >= 1
  uint32_t count_ = 0;   // calls to acquired() so far in the current window; < window_
  size_t current_ = 0;   // the most in use at once in the current window
  size_t previous_ = 0;  // the same in the window before it
};

}  // namespace animd
