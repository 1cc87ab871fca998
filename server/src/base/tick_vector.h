#pragma once
// Growing the vectors a tick refills and keeps for the next ticks (history frames,
// snapshots, quantized frames): to what the tick needs and an eighth more, not to twice the
// old size as push_back and resize would. Such a vector never shrinks, so a doubling that a
// need slightly beyond its capacity triggers would hold nearly twice the memory for good.
//
// Call before the resize or the appends that bring the vector to `n` elements.

#include <cstddef>
#include <vector>

namespace animd {

template <class T>
void reserve_for_tick(std::vector<T>& v, size_t n) {
  if (v.capacity() < n) v.reserve(n + n / 8);
}

// The same, then resized to `n` elements.
template <class T>
void resize_for_tick(std::vector<T>& v, size_t n) {
  reserve_for_tick(v, n);
  v.resize(n);
}

}  // namespace animd
