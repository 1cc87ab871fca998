#pragma once
// Shared between the codec's sources; not part of its interface.

#include <cstdint>

namespace animcodec {

// Root translations saturate at +-2^46 steps (2^32 world units at 2^-14).
inline constexpr double kRootLimit = 70368744177664.0;  // 2^46
inline constexpr int64_t kRootLimitInt = int64_t{1} << 46;

// floor(2^bits / sqrt(2)) + 1: the largest magnitude a smallest-three component takes.
int rotation_limit(int bits);

}  // namespace animcodec
