#pragma once
// Whether the jobs' AVX2 variants run (simd8.h): only where the CPU has AVX2 (and the OS saves
// its registers), which is checked once. They give the baseline's bits (simd8.h), so the
// choice changes the speed only; tests turn them off to compare the two.

namespace anim::simd {

// True when the AVX2 variants are compiled in, the CPU supports them and they are not turned
// off. Cheap (a relaxed load).
bool wide_enabled();

// Turns the AVX2 variants off (false) or back on where supported (true). For tests and
// benchmarks; not meant to be called while jobs run on other threads.
void set_wide_enabled(bool enabled);

}  // namespace anim::simd
