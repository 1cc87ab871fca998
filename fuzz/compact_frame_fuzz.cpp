// Fuzz target: ENCODING_COMPACT frames from a hostile server, as a client decodes them. The
// first byte picks what the client holds (nothing, one frame, two frames: key, delta1 and
// delta2 paths); the rest is the frame. Checked: no crash or sanitizer report; a frame that
// decodes gives finite transforms with unit rotations, and values inside their ranges; a
// frame that does not decode says why.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "animcodec/compact.h"
#include "compact_frame_support.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  static const animcodec::Layout layout = compactfuzz::layout();
  static const std::vector<animcodec::QJoint> prev2 = compactfuzz::pose(layout, 0);
  static const std::vector<animcodec::QJoint> prev1 = compactfuzz::pose(layout, 1);
  static const animcodec::QRoot root2 = compactfuzz::root(0), root1 = compactfuzz::root(1);
  animcodec::Baseline b;
  const int held = data[0] % 3;
  if (held >= 1) b.prev1 = prev1, b.root1 = &root1;
  if (held >= 2) b.prev2 = prev2, b.root2 = &root2;
  const std::span<const uint8_t> frame(data + 1, size - 1);

  animcodec::FrameHeader header;
  (void)animcodec::read_header(frame, header);
  std::vector<animcodec::QJoint> pose(layout.num_joints());
  animcodec::QRoot root;
  const std::string error = animcodec::decode_frame(layout, frame, b, pose, root);
  if (!error.empty()) {
    FUZZ_CHECK(error.rfind("compact frame: ", 0) == 0);
    return 0;
  }
  for (size_t j = 0; j < pose.size(); ++j) {
    FUZZ_CHECK(pose[j].largest < 4);
    const animcodec::Trs t = animcodec::dequantize_joint(layout, j, pose[j]);
    FUZZ_CHECK(std::isfinite(t.t.x) && std::isfinite(t.t.y) && std::isfinite(t.t.z));
    FUZZ_CHECK(std::isfinite(t.s.x) && std::isfinite(t.s.y) && std::isfinite(t.s.z));
    FUZZ_CHECK(std::fabs(glm::length(t.r) - 1.0f) < 1e-3f);
  }
  const animcodec::Trs r = animcodec::dequantize_root(root);
  FUZZ_CHECK(std::isfinite(r.t.x) && std::isfinite(r.s.x) && r.s.x != 0.0f);
  FUZZ_CHECK(std::fabs(glm::length(r.r) - 1.0f) < 1e-3f);
  return 0;
}
