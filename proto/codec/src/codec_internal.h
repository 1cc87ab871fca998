#pragma once
// Shared between the codec's sources; not part of its interface.

#include <cstdint>

namespace animcodec {

// Root translations saturate at +-2^46 steps (2^32 world units at 2^-14).
inline constexpr double kRootLimit = 70368744177664.0;  // 2^46
inline constexpr int64_t kRootLimitInt = int64_t{1} << 46;

// floor(2^bits / sqrt(2)) + 1: the largest magnitude a smallest-three component takes.
int rotation_limit(int bits);

// What this CPU runs beyond the x86-64 baseline, asked once (cpu_features.cpp):
// __builtin_cpu_supports, which also checks that the OS saves the 256-bit registers. False
// where it cannot be asked (not x86-64, or not GCC / clang).
bool cpu_has_avx2();
bool cpu_has_x86_64_v3();  // AVX2, BMI1/2 and LZCNT

}  // namespace animcodec
