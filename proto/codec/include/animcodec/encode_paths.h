#pragma once
// encode_frame's ways through a frame, named so that tests and benchmarks can run each one:
// every path writes the same bytes, so a machine that has only some of them must still be able
// to check the others it has. The daemon calls encode_frame, which takes the best path this
// CPU runs (chosen once, at the first call).

#include <cstddef>
#include <cstdint>
#include <span>

#include "animcodec/compact.h"

namespace animcodec {

enum class EncodePath : uint8_t {
  kBaseline,  // the build's target ISA (every CPU; the reference)
  kX86V3,     // the same code compiled for x86-64-v3 (AVX2, BMI1/2, LZCNT), on x86-64 CPUs
              // that have it (checked at run time)
};

// Whether this build and this CPU run `path` (kBaseline always does).
bool encode_path_available(EncodePath path);

// encode_frame through `path`; 0 (nothing written) when encode_path_available(path) is false.
// The same arguments, meaning and allocation-free contract as encode_frame.
size_t encode_frame_with(EncodePath path, const Layout& l, FrameKind kind,
                         std::span<const QJoint> pose, const QRoot& root, const Baseline& b,
                         std::span<uint8_t> out);

}  // namespace animcodec
