// Root motion arithmetic (root_motion.h).
#include "anim/root_motion.h"

#include <cmath>
#include <numbers>

#include "anim/clip.h"
#include "anim/skeleton.h"

namespace anim {

namespace {

constexpr float kTwoPi = 2.0f * std::numbers::pi_v<float>;

// Into (-pi, pi] (remainder gives [-pi, pi]; -pi and pi are the same turn).
float wrap_angle(float a) {
  const float r = std::remainder(a, kTwoPi);
  return r <= -std::numbers::pi_v<float> ? r + kTwoPi : r;
}

// A turn about +Y written out: exact for vectors on the axis, and cheaper than a quaternion.
glm::vec3 turn(float yaw, const glm::vec3& v) {
  const float c = std::cos(yaw), s = std::sin(yaw);
  return {c * v.x + s * v.z, v.y, -s * v.x + c * v.z};
}

// The model-space placement of the parent of `joint` (Skeleton::root_transform included),
// with `local(k)` giving joint k's local transform; false when the joint is a root joint under
// an identity root_transform (its local transform is then its model placement, bit for bit).
template <class Local>
bool parent_placement(const Skeleton& s, int joint, const Local& local, Transform& out) {
  const int parent = s.parents[joint];
  const bool identity_root = s.root_transform == glm::mat4(1.0f);
  if (parent < 0 && identity_root) return false;
  Transform acc;  // identity
  bool first = true;
  for (int k = parent; k >= 0; k = s.parents[k]) {
    acc = first ? local(k) : combine(local(k), acc);
    first = false;
  }
  if (!identity_root)
    acc = first ? from_matrix(s.root_transform) : combine(from_matrix(s.root_transform), acc);
  out = acc;
  return true;
}

template <class Local>
Transform model_placement(const Skeleton& s, int joint, const Local& local) {
  Transform parent;
  if (!parent_placement(s, joint, local, parent)) return local(joint);
  return combine(parent, local(joint));
}

}  // namespace

glm::vec3 RootMotion::apply(const glm::vec3& p) const {
  return turn(yaw, p) + translation;
}

RootMotion compose(const RootMotion& a, const RootMotion& b) {
  return {a.translation + turn(a.yaw, b.translation), a.yaw + b.yaw};
}

RootMotion inverse(const RootMotion& m) {
  return {-turn(-m.yaw, m.translation), -m.yaw};
}

RootMotion power(const RootMotion& m, int64_t n) {
  RootMotion result;
  RootMotion base = n < 0 ? inverse(m) : m;
  uint64_t k = n < 0 ? uint64_t(0) - static_cast<uint64_t>(n) : static_cast<uint64_t>(n);
  while (k != 0) {
    if (k & 1u) result = compose(result, base);
    k >>= 1;
    if (k != 0) base = compose(base, base);
  }
  return result;
}

RootMotion mix(const RootMotion& a, const RootMotion& b, float t) {
  if (t <= 0.0f) return a;
  if (t >= 1.0f) return b;
  return {a.translation + (b.translation - a.translation) * t, a.yaw + (b.yaw - a.yaw) * t};
}

RootMotion relative(const RootMotion& from, const RootMotion& to) {
  return {turn(-from.yaw, to.translation - from.translation), wrap_angle(to.yaw - from.yaw)};
}

glm::quat yaw_rotation(float yaw) {
  return glm::quat(std::cos(0.5f * yaw), 0.0f, std::sin(0.5f * yaw), 0.0f);
}

RootMotion motion_frame(const glm::vec3& position, const glm::quat& rotation, bool vertical) {
  // Swing-twist: the twist about +Y of q = (x, y, z, w) is (0, y, 0, w) normalized, an angle
  // of 2 atan2(y, w). A turn about +Y applied on the left adds to it exactly.
  const float yaw = wrap_angle(2.0f * std::atan2(rotation.y, rotation.w));
  return {{position.x, vertical ? position.y : 0.0f, position.z}, yaw};
}

RootMotion clip_motion_frame(const Skeleton& s, const Clip* clip, float time,
                             const RootMotionInput& in) {
  const auto local = [&](int k) {
    return clip ? clip->sample_joint(k, time, s.rest_pose[k]) : s.rest_pose[k];
  };
  const Transform m = model_placement(s, in.joint, local);
  return motion_frame(m.translation, m.rotation, in.vertical);
}

RootMotion clip_motion_delta(const Skeleton& s, const Clip& clip, const RootMotionInput& in,
                             float t0, float t1, int64_t wraps) {
  const RootMotion a = clip_motion_frame(s, &clip, t0, in);
  const RootMotion b = clip_motion_frame(s, &clip, t1, in);
  if (wraps == 0) return relative(a, b);
  // To the cycle boundary, whole cycles, then from the boundary on: each piece lies within
  // one cycle, so each yaw difference is taken the short way over the part it covers.
  const RootMotion start = clip_motion_frame(s, &clip, 0.0f, in);
  const RootMotion end = clip_motion_frame(s, &clip, clip.duration, in);
  const RootMotion cycle = relative(start, end);
  if (wraps > 0)
    return compose(compose(relative(a, end), power(cycle, wraps - 1)), relative(start, b));
  return compose(compose(relative(a, start), power(cycle, wraps + 1)), relative(end, b));
}

void remove_root_motion(const Skeleton& s, const RootMotionInput& in, std::span<Transform> locals) {
  if (in.joint < 0) return;
  const int j = in.joint;
  const auto local = [&](int k) { return locals[static_cast<size_t>(k)]; };
  Transform parent;
  const bool has_parent = parent_placement(s, j, local, parent);
  Transform& out = locals[static_cast<size_t>(j)];
  const Transform model = has_parent ? combine(parent, out) : out;
  const RootMotion now = motion_frame(model.translation, model.rotation, in.vertical);
  const RootMotion rest = clip_motion_frame(s, nullptr, 0.0f, in);
  // Moves the joint's frame from where the clip has it to where the rest pose has it.
  const RootMotion fix = compose(rest, inverse(now));
  const glm::vec3 position = fix.apply(model.translation);
  const glm::quat rotation = glm::normalize(yaw_rotation(fix.yaw) * model.rotation);
  if (!has_parent) {
    out.translation = position;
    out.rotation = rotation;
    return;
  }
  const Transform to_parent = inverse(parent);
  out.translation = transform_point(to_parent, position);
  out.rotation = glm::normalize(to_parent.rotation * rotation);
}

Transform apply_root_motion(const Transform& root, const RootMotion& delta) {
  Transform out = root;
  if (delta.translation != glm::vec3(0.0f))
    out.translation = root.translation + root.rotation * (root.scale * delta.translation);
  if (delta.yaw != 0.0f) out.rotation = glm::normalize(root.rotation * yaw_rotation(delta.yaw));
  return out;
}

}  // namespace anim
