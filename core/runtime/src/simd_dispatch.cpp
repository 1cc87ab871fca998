#include "simd_dispatch.h"

#include <atomic>

namespace anim::simd {

namespace {

bool cpu_has_avx2() {
#if defined(ANIM_HAVE_AVX2_VARIANTS) && defined(__x86_64__) && \
    (defined(__GNUC__) || defined(__clang__))
  return __builtin_cpu_supports("avx2");
#else
  return false;
#endif
}

std::atomic<bool>& enabled() {
  static std::atomic<bool> on{cpu_has_avx2()};
  return on;
}

}  // namespace

bool wide_enabled() {
  return enabled().load(std::memory_order_relaxed);
}

void set_wide_enabled(bool on) {
  enabled().store(on && cpu_has_avx2(), std::memory_order_relaxed);
}

}  // namespace anim::simd
