#pragma once
// animcodec: the compact stream encoding (ENCODING_COMPACT), shared by the daemon (quantize,
// encode) and the clients (decode, rebuild the palette). docs/protocol.md, "Compact encoding",
// describes the bytes; this is the one implementation of them in C++ (client/python has the
// other).
//
// A character's pose is quantized per joint (QJoint) with steps derived from the skeleton's
// proportions (Layout), then coded as a key frame (no baseline) or a delta against the last
// one or two quantized frames the receiver holds (prediction: the last frame, or linear
// extrapolation from the last two). Deltas are exact in the integer domain, so the receiver's
// state equals the sender's after every frame: no drift.
//
// Pure functions over caller-owned buffers: quantize, encode and decode allocate nothing
// (make_layout and skeleton_from_proto do, once per asset). Decoding checks every field of
// hostile bytes and reports a bad frame as an error message; it never reads out of bounds and
// never produces NaN.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

// glm is compiled the way the library was (cmake/AnimdGlm.cmake): its constructors are inline,
// and a program holding two configurations of them gets either one everywhere, silently.
#ifndef GLM_FORCE_CTOR_INIT
#error \
    "animd headers need GLM_FORCE_CTOR_INIT: link the animd CMake targets or use pkg-config --cflags"
#endif
#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>

namespace anim::v1 {
class SkeletonData;
}

namespace animcodec {

inline constexpr int kMaxJoints = 1024;
// Root placement steps: translation 2^-14 world units (0.06 mm in metres), rotation
// components 2^-15.
inline constexpr int kRootTranslationExp = 14;
inline constexpr int kRootRotationBits = 15;
// Rotation component bits per joint are clamped to this range.
inline constexpr int kMinRotationBits = 6;
inline constexpr int kMaxRotationBits = 15;
// Translation and scale exponents are clamped to this range.
inline constexpr int kMinExp = -40;
inline constexpr int kMaxExp = 40;

// A local transform: T * R * S, rotation a unit quaternion (glm: w, x, y, z).
struct Trs {
  glm::vec3 t{0.0f};
  glm::quat r{1.0f, 0.0f, 0.0f, 0.0f};
  glm::vec3 s{1.0f};
};

// One joint's quantization steps (SkeletonData.compact_precision: 3 bytes a joint).
struct JointPrecision {
  uint8_t rotation_bits = kMaxRotationBits;  // smallest-three component step 2^-bits
  int8_t translation_exp = 0;                // translation step 2^-exp, local units
  int8_t scale_exp = 0;                      // scale step 2^-exp
};

// A quantized local transform. Rotation: smallest-three (the largest-magnitude component of
// the quaternion, made positive, is dropped; `r` holds the other three in x, y, z, w order,
// each round(c * 2^bits)). Translation and scale: round((value - rest) * 2^exp), so a
// channel at rest is all zeros.
struct QJoint {
  std::array<int16_t, 3> r{0, 0, 0};
  uint8_t largest = 3;  // 0..3: x, y, z, w
  uint8_t unused = 0;
  std::array<int32_t, 3> t{0, 0, 0};
  std::array<int32_t, 3> s{0, 0, 0};
  bool operator==(const QJoint&) const = default;
};

// The quantized root placement (world space): translation round(t * 2^14) (saturating at
// +-2^46), rotation smallest-three at 15 bits, scale as floats (rarely anything but 1).
struct QRoot {
  std::array<int64_t, 3> t{0, 0, 0};
  std::array<int16_t, 3> r{0, 0, 0};
  uint8_t largest = 3;
  std::array<float, 3> s{1.0f, 1.0f, 1.0f};
  bool operator==(const QRoot&) const = default;
};

// Everything encoding and decoding need to know about a skeleton.
struct Layout {
  uint32_t id = 0;  // SkeletonData.compact_skeleton_id
  std::vector<JointPrecision> precision;
  std::vector<Trs> rest;
  std::vector<QJoint> rest_q;  // each rest rotation quantized (rest_rotation_q), t = s = 0
  // The steps as multipliers, per joint (precomputed for the per-tick quantization).
  struct Scales {
    float rotation = 0, rotation_limit = 0, translation = 0, scale = 0;
  };
  std::vector<Scales> scales;
  int index_bits = 1;  // bits of a joint index: bit_width(num_joints - 1), at least 1

  size_t num_joints() const { return precision.size(); }
};

// What a client needs to rebuild palettes: the layout plus the hierarchy and bind data.
struct Skeleton {
  Layout layout;
  std::vector<int> parents;             // parents[i] < i, -1 for a root
  std::vector<glm::mat4> inverse_bind;  // model space -> joint space at bind time
  glm::mat4 root_transform{1.0f};       // root joints' parent space -> model space
};

// ---- Layout (the daemon, once per asset) ----

// The skinned mesh in bind pose, when the asset has one: it tells how far each joint's skin
// reaches (a head's top past the neck joint, a hand past the wrist) and how big the
// character is. Positions in the mesh's bind space (what `inverse_bind` maps from).
struct SkinView {
  std::span<const glm::vec3> positions;
  std::span<const std::array<uint16_t, 4>> joints;
  std::span<const glm::vec4> weights;
  std::span<const glm::mat4> inverse_bind;  // one per joint
};

// Derives each joint's steps from the rest pose so that a joint's quantization moves the
// skinned vertices it carries by about 0.22 mm on the character scaled to 1.8 m (its
// translation by 0.3 of that: translation errors add up along chains). A joint's
// reach is the farthest point its rotation moves: descendant joints and, with `skin`, the
// vertices they carry (rest pose, model space through root_transform, plus 1 % of the size);
// without a mesh, the farthest descendant joint plus a tenth of the size. The size is the
// rest mesh's largest extent (else the joints'). See docs/protocol.md. Fills id. `parents`,
// `rest` have one entry a joint.
Layout make_layout(std::span<const int> parents, std::span<const Trs> rest,
                   const glm::mat4& root_transform, const SkinView* skin = nullptr);

// Builds a layout from given steps (the client side: SkeletonData.compact_precision).
Layout layout_from_precision(std::vector<JointPrecision> precision, std::vector<Trs> rest,
                             uint32_t id);

// The skeleton a client decodes with, from get_asset_data's SkeletonData: every field is
// checked (counts, parents order, finite values, the precision table's ranges). Empty error
// on success.
std::string skeleton_from_proto(const anim::v1::SkeletonData& data, Skeleton& out);

// Writes the layout's precision table as SkeletonData.compact_precision bytes.
std::string precision_bytes(const Layout& layout);

// ---- Quantization (the daemon, per character and tick) ----

// Smallest-three of a rotation at `bits` (float arithmetic; the daemon's per-tick path).
void quantize_rotation(const glm::quat& q, int bits, std::array<int16_t, 3>& r, uint8_t& largest);
// The same in double arithmetic, exactly as docs/protocol.md spells it (rest rotations: both
// sides compute it and must agree bit for bit).
void quantize_rotation_exact(double x, double y, double z, double w, int bits,
                             std::array<int16_t, 3>& r, uint8_t& largest);
// A joint's local transform, quantized. With the joint's previous quantized frames (prev1 the
// newest, as the receivers will hold them), a value within 0.75 of a step of what a delta
// frame predicts takes the prediction instead of the nearest step: at most 0.75 of a step
// off instead of 0.5, and no rounding noise to code for slow or steady motion. Both are
// optional (key frames, a character's first ticks).
QJoint quantize_joint(const Layout& layout, size_t joint, const glm::vec3& t, const glm::quat& r,
                      const glm::vec3& s, const QJoint* prev1 = nullptr,
                      const QJoint* prev2 = nullptr);
QRoot quantize_root(const glm::vec3& t, const glm::quat& r, const glm::vec3& s,
                    const QRoot* prev1 = nullptr, const QRoot* prev2 = nullptr);

// A pose's local transforms as quantize_pose reads them, in place: joint j's translation
// (x, y, z), rotation (x, y, z, w: glm's memory order) and scale (x, y, z) start at
// `translation`, `rotation` and `scale` + j * `stride` floats. Trs and anim::Transform are both
// three such members in one struct of 10 floats (pose_view() makes the view of Trs).
struct PoseView {
  const float* translation = nullptr;
  const float* rotation = nullptr;
  const float* scale = nullptr;
  size_t stride = 0;  // floats from one joint's values to the next joint's
  size_t count = 0;   // joints
};
PoseView pose_view(std::span<const Trs> locals);
// The same view of another struct of glm members `translation`, `rotation`, `scale` laid out
// like Trs (anim::Transform: animcodec does not depend on the core); empty for no joints.
template <class Transform>
PoseView transform_view(std::span<const Transform> locals) {
  static_assert(sizeof(Transform) == 10 * sizeof(float),
                "read in place as translation, rotation, scale: 10 floats, no padding");
  if (locals.empty()) return {};
  return {&locals[0].translation.x, &locals[0].rotation.x, &locals[0].scale.x,
          sizeof(Transform) / sizeof(float), locals.size()};
}

// Every joint of a pose: out[j] = quantize_joint(layout, j, ..., prev1 + j, prev2 + j), the
// same integers, eight joints at a time in AVX2 where the CPU has it, else four at a time in
// SSE2 (groups with values or held frames beyond +-2^20 steps, or not finite, take
// quantize_joint itself; quantize_paths.h runs each path by name). prev1 / prev2: the
// character's previous quantized frames (layout.num_joints() entries each) or null; prev2 only
// with prev1. `out` has pose.count entries, pose.count == layout.num_joints(). Allocates
// nothing.
void quantize_pose(const Layout& layout, const PoseView& pose, const QJoint* prev1,
                   const QJoint* prev2, std::span<QJoint> out);

// ---- Frames ----

enum class FrameKind : uint8_t { kKey = 0, kDelta1 = 1, kDelta2 = 2 };

// Upper bound of an encoded frame for `num_joints` joints.
size_t max_frame_bytes(size_t num_joints);

// The frames a receiver holds for one character: the newest (prev1, one tick ago) and the
// one before (prev2). kDelta1 needs prev1, kDelta2 both.
struct Baseline {
  std::span<const QJoint> prev1;
  const QRoot* root1 = nullptr;
  std::span<const QJoint> prev2;
  const QRoot* root2 = nullptr;
};

// Encodes `pose`/`root` as `kind` into `out`; returns the bytes written (0 when `out` is too
// small: give it max_frame_bytes). Deltas need the baseline of their kind.
size_t encode_frame(const Layout& layout, FrameKind kind, std::span<const QJoint> pose,
                    const QRoot& root, const Baseline& baseline, std::span<uint8_t> out);

// What a frame's first bits say, before the skeleton is known (a key frame names its
// skeleton; a delta refers to the one the receiver holds).
struct FrameHeader {
  FrameKind kind = FrameKind::kKey;
  uint32_t skeleton_id = 0;  // key frames
  uint32_t num_joints = 0;   // key frames
};
std::string read_header(std::span<const uint8_t> bytes, FrameHeader& out);

// Decodes `bytes` against `baseline` into `pose` (num_joints entries) and `root`. On error
// returns the reason and leaves `pose`/`root` unspecified (decode into scratch and commit on
// success to keep the held frames intact).
std::string decode_frame(const Layout& layout, std::span<const uint8_t> bytes,
                         const Baseline& baseline, std::span<QJoint> pose, QRoot& root);

// ---- Back to floats (the clients) ----

glm::quat dequantize_rotation(const std::array<int16_t, 3>& r, uint8_t largest, int bits);
Trs dequantize_joint(const Layout& layout, size_t joint, const QJoint& q);
Trs dequantize_root(const QRoot& q);

// palette[j] = model[j] * inverse_bind[j], model[root] = root_transform * local,
// model[j] = model[parent] * local; written as 12 floats a joint (the top three rows,
// row-major), the float stream's layout. `locals` is scratch (num_joints entries), `model`
// too; `palette` has 12 * num_joints floats.
void build_palette(const Skeleton& skeleton, std::span<const QJoint> pose, std::span<Trs> locals,
                   std::span<glm::mat4> model, std::span<float> palette);

}  // namespace animcodec
