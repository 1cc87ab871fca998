#pragma once
// quantize_pose's ways through a pose, named so that tests and benchmarks can run each one:
// every path gives quantize_joint's integers, joint for joint, so a machine that has only some
// of them must still be able to check the others it has. The daemon calls quantize_pose, which
// takes the best path this CPU runs (chosen once, at the first call).

#include <cstdint>
#include <span>

#include "animcodec/compact.h"

namespace animcodec {

enum class QuantizePath : uint8_t {
  kScalar,  // quantize_joint joint by joint (every CPU; the reference)
  kSse2,    // four joints at a time (x86-64; groups the float comparisons cannot decide exactly
            // take quantize_joint)
  kAvx2,    // eight joints at a time (x86-64 CPUs with AVX2, checked at run time); an 8-group
            // that needs it falls back to the SSE2 path's two groups of four
};

// Whether this build and this CPU run `path` (kScalar always does).
bool quantize_path_available(QuantizePath path);

// quantize_pose through `path`; false (nothing written) when quantize_path_available(path) is
// false. The same arguments, meaning and allocation-free contract as quantize_pose.
bool quantize_pose_with(QuantizePath path, const Layout& layout, const PoseView& pose,
                        const QJoint* prev1, const QJoint* prev2, std::span<QJoint> out);

}  // namespace animcodec
