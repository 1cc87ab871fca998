// Fuzz target, differential: animcodec::quantize_pose through each path this CPU has (SSE2
// four joints at a time, AVX2 eight at a time; quantize_paths.h) against quantize_joint (joint
// by joint) on arbitrary floats. Byte 0 picks the frames held (none, one, two); then 9 joints'
// local transforms (10 floats each: translation, rotation x y z w, scale; any bit pattern: NaN,
// infinities, denormals, huge values) and the two held frames (32 bytes a joint, as QJoint
// lies in memory), zero-padded when the input is short. Nine joints: two groups of four (or
// one of eight) and one for the scalar tail. Checked: the same integers for every joint and
// path (and no sanitizer report).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "animcodec/compact.h"
#include "animcodec/quantize_paths.h"
#include "fuzz_check.h"

namespace {

constexpr size_t kJoints = 9;

animcodec::Layout layout() {
  std::vector<animcodec::JointPrecision> precision(kJoints);
  std::vector<animcodec::Trs> rest(kJoints);
  for (size_t j = 0; j < kJoints; ++j) {
    precision[j] = {static_cast<uint8_t>(animcodec::kMinRotationBits + j),
                    static_cast<int8_t>(2 + 3 * j), static_cast<int8_t>(4 + j)};
    rest[j].t = {0.0f, j > 0 ? 0.25f : 0.0f, 0.0f};
  }
  return animcodec::layout_from_precision(precision, rest, 0x9A5Eu);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  static const animcodec::Layout l = layout();
  const int held = data[0] % 3;
  // Everything after byte 0, zero-padded to the full record.
  constexpr size_t kPoseBytes = kJoints * 10 * sizeof(float);
  constexpr size_t kHeldBytes = kJoints * sizeof(animcodec::QJoint);
  std::vector<uint8_t> bytes(kPoseBytes + 2 * kHeldBytes, 0);
  std::memcpy(bytes.data(), data + 1, std::min(size - 1, bytes.size()));

  std::vector<float> pose(kJoints * 10);
  std::memcpy(pose.data(), bytes.data(), kPoseBytes);
  std::vector<animcodec::QJoint> prev1(kJoints), prev2(kJoints);
  std::memcpy(static_cast<void*>(prev1.data()), bytes.data() + kPoseBytes, kHeldBytes);
  std::memcpy(static_cast<void*>(prev2.data()), bytes.data() + kPoseBytes + kHeldBytes, kHeldBytes);
  const animcodec::QJoint* p1 = held >= 1 ? prev1.data() : nullptr;
  const animcodec::QJoint* p2 = held >= 2 ? prev2.data() : nullptr;

  const animcodec::PoseView view{pose.data(), pose.data() + 3, pose.data() + 7, 10, kJoints};
  std::vector<animcodec::QJoint> one(kJoints), batch(kJoints);
  for (size_t j = 0; j < kJoints; ++j) {
    const float* f = pose.data() + 10 * j;
    one[j] =
        animcodec::quantize_joint(l, j, {f[0], f[1], f[2]}, glm::quat(f[6], f[3], f[4], f[5]),
                                  {f[7], f[8], f[9]}, p1 ? p1 + j : nullptr, p2 ? p2 + j : nullptr);
  }
  for (const auto path : {animcodec::QuantizePath::kSse2, animcodec::QuantizePath::kAvx2}) {
    if (!animcodec::quantize_pose_with(path, l, view, p1, p2, batch)) continue;
    for (size_t j = 0; j < kJoints; ++j) FUZZ_CHECK(batch[j] == one[j]);
  }
  return 0;
}
