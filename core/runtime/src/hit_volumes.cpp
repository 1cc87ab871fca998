// Hit volumes: capsule fitting, scale bounds, pose bounds, edits and posed tests
// (hit_volumes.h).
#include "anim/hit_volumes.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "anim/clip.h"
#include "anim/skeleton.h"
#include "anim/skinned_mesh.h"
#include "anim/transform.h"
#include "simd4.h"

namespace anim {

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
// Bounds are widened by this fraction: float blending, lerps and Hermite bases may land a hair
// outside the exact values they are bounded by.
constexpr float kBoundMargin = 1e-4f;
// A fitted capsule is at least this fraction of the bind mesh's diagonal thick, so that a joint
// owning a single vertex (or a flat row of them) still has a volume.
constexpr double kMinRadiusFraction = 0.002;
constexpr int kPowerIterations = 48;

// double -> float without the undefined behaviour of converting an out-of-range value.
float narrow(double v) {
  constexpr double kMax = std::numeric_limits<float>::max();
  if (std::isnan(v)) return std::numeric_limits<float>::quiet_NaN();
  if (v > kMax) return kInf;
  if (v < -kMax) return -kInf;
  return static_cast<float>(v);
}

// The largest column length of a matrix's 3x3 part: its largest axis scale.
float max_axis_scale(const glm::mat4& m) {
  const float c0 = glm::dot(glm::vec3(m[0]), glm::vec3(m[0]));
  const float c1 = glm::dot(glm::vec3(m[1]), glm::vec3(m[1]));
  const float c2 = glm::dot(glm::vec3(m[2]), glm::vec3(m[2]));
  return std::sqrt(std::max({c0, c1, c2}));
}

// A bound of how much the 3x3 part of `m` can lengthen a vector: its largest column length when
// the columns are orthogonal (rotation x scale), else the Frobenius norm (always an upper bound).
float stretch_bound(const glm::mat4& m) {
  const glm::vec3 c[3] = {glm::vec3(m[0]), glm::vec3(m[1]), glm::vec3(m[2])};
  const float n[3] = {glm::length(c[0]), glm::length(c[1]), glm::length(c[2])};
  bool orthogonal = true;
  for (int i = 0; i < 3; ++i)
    for (int k = i + 1; k < 3; ++k)
      orthogonal = orthogonal && std::abs(glm::dot(c[i], c[k])) <= 1e-5f * n[i] * n[k];
  if (orthogonal) return std::max({n[0], n[1], n[2]});
  return std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
}

float max_abs(const glm::vec3& v) {
  return std::max({std::abs(v.x), std::abs(v.y), std::abs(v.z)});
}

// A bound of the largest component a vec3 channel can sample to.
float channel_bound(const Vec3Channel& ch) {
  float bound = 0.0f;
  if (ch.interpolation != Interpolation::kCubicSpline) {
    for (const glm::vec3& v : ch.values) bound = std::max(bound, max_abs(v));
    return bound;
  }
  // values: (in-tangent, value, out-tangent) per key. Between keys the Hermite bases of the
  // values are >= 0 and sum to 1, those of the tangents are at most 4/27 in size.
  const size_t n = ch.times.size();
  for (size_t k = 0; k < n && 3 * k + 1 < ch.values.size(); ++k)
    bound = std::max(bound, max_abs(ch.values[3 * k + 1]));
  for (size_t k = 0; k + 1 < n && 3 * k + 4 < ch.values.size(); ++k) {
    const float dt = ch.times[k + 1] - ch.times[k];
    const float overshoot =
        (4.0f / 27.0f) * dt * (max_abs(ch.values[3 * k + 2]) + max_abs(ch.values[3 * k + 3]));
    bound = std::max(
        bound, std::max(max_abs(ch.values[3 * k + 1]), max_abs(ch.values[3 * k + 4])) + overshoot);
  }
  return bound;
}

// A bound of the length a vec3 channel can sample to (channel_bound's with lengths).
float length_bound(const Vec3Channel& ch) {
  float bound = 0.0f;
  if (ch.interpolation != Interpolation::kCubicSpline) {
    for (const glm::vec3& v : ch.values) bound = std::max(bound, glm::length(v));
    return bound;
  }
  const size_t n = ch.times.size();
  for (size_t k = 0; k < n && 3 * k + 1 < ch.values.size(); ++k)
    bound = std::max(bound, glm::length(ch.values[3 * k + 1]));
  for (size_t k = 0; k + 1 < n && 3 * k + 4 < ch.values.size(); ++k) {
    const float dt = ch.times[k + 1] - ch.times[k];
    const float overshoot = (4.0f / 27.0f) * dt *
                            (glm::length(ch.values[3 * k + 2]) + glm::length(ch.values[3 * k + 3]));
    bound = std::max(
        bound,
        std::max(glm::length(ch.values[3 * k + 1]), glm::length(ch.values[3 * k + 4])) + overshoot);
  }
  return bound;
}

// True when every value of a scale channel is exactly 1 (and every cubic tangent 0).
bool unit_channel(const Vec3Channel& ch) {
  const bool cubic = ch.interpolation == Interpolation::kCubicSpline;
  for (size_t i = 0; i < ch.values.size(); ++i) {
    const bool tangent = cubic && i % 3 != 1;
    if (ch.values[i] != (tangent ? glm::vec3(0.0f) : glm::vec3(1.0f))) return false;
  }
  return true;
}

// The dominant eigenvector of a symmetric positive semi-definite matrix, by power iteration
// from `start` (deterministic); `start` itself when the matrix is (near) zero.
glm::dvec3 principal_axis(const glm::dmat3& cov, const glm::dvec3& start) {
  glm::dvec3 v = start;
  for (int i = 0; i < kPowerIterations; ++i) {
    const glm::dvec3 next = cov * v;
    const double len = glm::length(next);
    if (!(len > 1e-300) || !std::isfinite(len)) return start;
    v = next / len;
  }
  return v;
}

// The smallest capsule around `axis` (unit) through `center` enclosing every point, at least
// `min_radius` thick (hit_volumes.h).
HitCapsule enclose(std::span<const glm::dvec3> points, const glm::dvec3& center,
                   const glm::dvec3& axis, double min_radius) {
  double r2 = 0.0;
  for (const glm::dvec3& p : points) {
    const glm::dvec3 d = p - center;
    const double t = glm::dot(d, axis);
    r2 = std::max(r2, glm::dot(d, d) - t * t);
  }
  const double r = std::max(std::sqrt(r2), min_radius);
  // A point at axial t and distance rho from the axis lies inside when the segment reaches
  // [t - h, t + h], h = sqrt(r^2 - rho^2): so the segment starts no later than min(t + h) and
  // ends no earlier than max(t - h); when those cross, any one point between them will do.
  double lo = std::numeric_limits<double>::max(), hi = -lo;
  for (const glm::dvec3& p : points) {
    const glm::dvec3 d = p - center;
    const double t = glm::dot(d, axis);
    const double h = std::sqrt(std::max(0.0, r * r - (glm::dot(d, d) - t * t)));
    lo = std::min(lo, t + h);
    hi = std::max(hi, t - h);
  }
  if (lo > hi) lo = hi = 0.5 * (lo + hi);
  const glm::dvec3 a = center + lo * axis, b = center + hi * axis;
  HitCapsule c{glm::vec3(narrow(a.x), narrow(a.y), narrow(a.z)),
               glm::vec3(narrow(b.x), narrow(b.y), narrow(b.z)), narrow(r)};
  if (!is_finite(c.a) || !is_finite(c.b) || !std::isfinite(c.radius)) return {};
  return c;
}

// Per joint: the mean rest translation of its children (the bone direction), and whether it
// has any child.
struct Bones {
  std::vector<glm::vec3> tip;
  std::vector<int> children;
};
Bones bones_of(const Skeleton& s) {
  const size_t n = static_cast<size_t>(s.num_joints());
  Bones b{std::vector<glm::vec3>(n, glm::vec3(0.0f)), std::vector<int>(n, 0)};
  for (size_t k = 0; k < n; ++k) {
    const int p = s.parents[k];
    if (p < 0) continue;
    b.tip[static_cast<size_t>(p)] += s.rest_pose[k].translation;
    ++b.children[static_cast<size_t>(p)];
  }
  for (size_t j = 0; j < n; ++j)
    if (b.children[j] > 0) b.tip[j] /= static_cast<float>(b.children[j]);
  return b;
}

std::vector<HitCapsule> bone_capsules(const Skeleton& s) {
  const Bones bones = bones_of(s);
  std::vector<HitCapsule> out(static_cast<size_t>(s.num_joints()));
  for (size_t j = 0; j < out.size(); ++j) {
    if (bones.children[j] == 0) continue;
    const float len = glm::length(bones.tip[j]);
    if (!(len > 0.0f) || !std::isfinite(len)) continue;
    out[j] = HitCapsule{glm::vec3(0.0f), bones.tip[j], kBoneRadiusFraction * len};
  }
  return out;
}

}  // namespace

std::vector<HitCapsule> fit_capsules(const Skeleton& s, const SkinnedMesh& mesh) {
  const size_t n = static_cast<size_t>(s.num_joints());
  const size_t nv = std::min({mesh.positions.size(), mesh.joints.size(), mesh.weights.size()});
  if (nv == 0) return bone_capsules(s);

  // Each vertex's owner: its largest weight's joint (ties: the lower index). Then the
  // vertices grouped by owner (counting sort: start[j] .. start[j + 1] in `order`).
  std::vector<int> owner(nv, -1);
  std::vector<size_t> start(n + 1, 0);
  glm::vec3 lo(std::numeric_limits<float>::max()), hi(-std::numeric_limits<float>::max());
  for (size_t v = 0; v < nv; ++v) {
    int best = -1;
    float best_w = 0.0f;
    for (int k = 0; k < 4; ++k) {
      const int j = mesh.joints[v][k];
      const float w = mesh.weights[v][k];
      if (static_cast<size_t>(j) >= n || !(w > 0.0f)) continue;
      if (best < 0 || w > best_w || (w == best_w && j < best)) best = j, best_w = w;
    }
    owner[v] = best;
    if (best >= 0) ++start[static_cast<size_t>(best) + 1];
    lo = glm::min(lo, mesh.positions[v]);
    hi = glm::max(hi, mesh.positions[v]);
  }
  for (size_t j = 0; j < n; ++j) start[j + 1] += start[j];
  std::vector<size_t> order(start[n]);
  {
    std::vector<size_t> next(start.begin(), start.end() - 1);
    for (size_t v = 0; v < nv; ++v)
      if (owner[v] >= 0) order[next[static_cast<size_t>(owner[v])]++] = v;
  }
  const double diagonal = glm::length(glm::dvec3(hi) - glm::dvec3(lo));

  const Bones bones = bones_of(s);
  std::vector<HitCapsule> out(n);
  std::vector<glm::dvec3> points;
  for (size_t j = 0; j < n; ++j) {
    if (start[j] == start[j + 1]) continue;  // owns no vertex: no volume
    const glm::dmat4 to_joint(s.inverse_bind[j]);
    points.clear();
    glm::dvec3 center(0.0);
    for (size_t i = start[j]; i < start[j + 1]; ++i) {
      points.push_back(
          glm::dvec3(to_joint * glm::dvec4(glm::dvec3(mesh.positions[order[i]]), 1.0)));
      center += points.back();
    }
    center /= static_cast<double>(points.size());
    glm::dmat3 cov(0.0);
    for (const glm::dvec3& p : points) cov += glm::outerProduct(p - center, p - center);
    // Start from the bone's direction: limbs converge at once, and the result is the same on
    // every run.
    const glm::dvec3 bone(bones.tip[j]);
    const double bone_len = glm::length(bone);
    const glm::dvec3 from =
        bone_len > 0.0 && std::isfinite(bone_len) ? bone / bone_len : glm::dvec3(0.0, 1.0, 0.0);
    const glm::dvec3 axis = principal_axis(cov, from);
    const double scale = max_axis_scale(s.inverse_bind[j]);
    out[j] = enclose(points, center, axis, kMinRadiusFraction * diagonal * scale);
  }
  return out;
}

JointScales joint_scales(const Skeleton& s, std::span<const Clip> clips) {
  const size_t n = static_cast<size_t>(s.num_joints());
  std::vector<float> local(n);  // per joint: its largest local scale component
  JointScales out;
  for (size_t k = 0; k < n; ++k) {
    local[k] = max_abs(s.rest_pose[k].scale);
    out.unit = out.unit && s.rest_pose[k].scale == glm::vec3(1.0f);
  }
  for (const Clip& clip : clips) {
    const size_t joints = std::min(n, clip.joints.size());
    for (size_t k = 0; k < joints; ++k) {
      const int32_t c = clip.joints[k].scale;
      if (c < 0 || static_cast<size_t>(c) >= clip.vec3_channels.size()) continue;
      local[k] = std::max(local[k], channel_bound(clip.vec3_channels[static_cast<size_t>(c)]));
      out.unit = out.unit && unit_channel(clip.vec3_channels[static_cast<size_t>(c)]);
    }
  }
  // A joint's matrix is its parent's times rotation x scale: it lengthens a vector by at most
  // the product of the largest scale components down its chain (and the root transform's).
  const float root_stretch = stretch_bound(s.root_transform);
  out.bound.resize(n);
  for (size_t k = 0; k < n; ++k) {
    const int p = s.parents[k];
    out.bound[k] = (p < 0 ? root_stretch : out.bound[static_cast<size_t>(p)]) * local[k];
  }
  for (float& b : out.bound) b = std::isnan(b) ? kInf : b * (1.0f + kBoundMargin);
  return out;
}

PoseReach pose_reach(const Skeleton& s, std::span<const Clip> clips, const JointScales& scales) {
  const size_t n = static_cast<size_t>(s.num_joints());
  PoseReach out;
  if (n == 0 || scales.bound.size() != n) return out;
  std::vector<float> longest(n);  // per joint: its largest translation
  for (size_t k = 0; k < n; ++k) longest[k] = glm::length(s.rest_pose[k].translation);
  for (const Clip& clip : clips) {
    const size_t joints = std::min(n, clip.joints.size());
    for (size_t k = 0; k < joints; ++k) {
      const int32_t c = clip.joints[k].translation;
      if (c < 0 || static_cast<size_t>(c) >= clip.vec3_channels.size()) continue;
      longest[k] = std::max(longest[k], length_bound(clip.vec3_channels[static_cast<size_t>(c)]));
    }
  }
  int roots = 0;
  for (size_t k = 0; k < n; ++k) roots += s.parents[k] < 0;
  out.center_joint = -1;
  if (roots == 1)
    for (size_t k = 0; k < n; ++k)
      if (s.parents[k] < 0) out.center_joint = static_cast<int>(k);
  const float root_stretch = stretch_bound(s.root_transform);
  // Parents come before their children (Skeleton's order).
  std::vector<float> reach(n, 0.0f);
  float radius = 0.0f;
  for (size_t k = 0; k < n; ++k) {
    const int p = s.parents[k];
    if (p < 0)
      reach[k] = out.center_joint >= 0 ? 0.0f : longest[k] * root_stretch;
    else
      reach[k] = reach[static_cast<size_t>(p)] + longest[k] * scales.bound[static_cast<size_t>(p)];
    radius = std::max(radius, reach[k]);
  }
  out.radius = std::isfinite(radius) ? radius * (1.0f + kBoundMargin) + 1e-6f
                                     : std::numeric_limits<float>::infinity();
  return out;
}

PoseBound reach_bound(const Skeleton& s, const PoseReach& reach,
                      std::span<const Transform> locals) {
  PoseBound b;
  const glm::vec3 local =
      reach.center_joint >= 0 && static_cast<size_t>(reach.center_joint) < locals.size()
          ? locals[static_cast<size_t>(reach.center_joint)].translation
          : glm::vec3(0.0f);
  b.center = glm::vec3(s.root_transform * glm::vec4(local, 1.0f));
  b.radius = reach.radius;
  return b;
}

HitVolumes make_hit_volumes(std::vector<HitCapsule> capsules, JointScales scales) {
  HitVolumes v;
  v.capsules = std::move(capsules);
  v.scales = std::move(scales);
  v.extents.assign(v.capsules.size(), 0.0f);
  const size_t n = std::min(v.capsules.size(), v.scales.bound.size());
  for (size_t j = 0; j < v.capsules.size(); ++j) {
    const HitCapsule& c = v.capsules[j];
    if (!c.present()) continue;
    // A joint beyond the scale bounds (a hand-made HitVolumes) can reach anywhere.
    const float scale = j < n ? v.scales.bound[j] : kInf;
    const float extent = scale * (std::max(glm::length(c.a), glm::length(c.b)) + c.radius);
    v.extents[j] = std::isnan(extent) ? kInf : extent;
    v.capsule_reach = std::max(v.capsule_reach, v.extents[j]);
    v.empty = false;
  }
  return v;
}

HitVolumes fit_hit_volumes(const Skeleton& skeleton, std::span<const Clip> clips,
                           const SkinnedMesh& mesh) {
  return make_hit_volumes(fit_capsules(skeleton, mesh), joint_scales(skeleton, clips));
}

PoseBound pose_bound(std::span<const glm::mat4> model) {
  if (model.empty()) return {};
  // Four lanes at a time (the translation column, w = 1), with two independent running
  // bounds so that each min/max does not wait for the previous one: the tick runs this per
  // character.
  simd::F4 lo_a = simd::load(&model[0][3][0]), hi_a = lo_a, lo_b = lo_a, hi_b = lo_a;
  size_t j = 1;
  for (; j + 1 < model.size(); j += 2) {
    const simd::F4 t = simd::load(&model[j][3][0]), u = simd::load(&model[j + 1][3][0]);
    lo_a = simd::min(lo_a, t);
    hi_a = simd::max(hi_a, t);
    lo_b = simd::min(lo_b, u);
    hi_b = simd::max(hi_b, u);
  }
  if (j < model.size()) {
    const simd::F4 t = simd::load(&model[j][3][0]);
    lo_a = simd::min(lo_a, t);
    hi_a = simd::max(hi_a, t);
  }
  glm::vec4 lo, hi;
  simd::store(&lo[0], simd::min(lo_a, lo_b));
  simd::store(&hi[0], simd::max(hi_a, hi_b));
  const glm::vec3 half = 0.5f * (glm::vec3(hi) - glm::vec3(lo));
  // Widened a hair: the centre and half diagonal are rounded (relative to the coordinates).
  const float size = std::max(max_abs(glm::vec3(lo)), max_abs(glm::vec3(hi)));
  return {glm::vec3(lo) + half, glm::length(half) * (1.0f + kBoundMargin) + 1e-6f * size};
}

Expected<HitVolumes> edit_hit_volumes(const HitVolumes& base, std::span<const CapsuleEdit> edits) {
  const size_t n = base.capsules.size();
  std::vector<char> seen(n, 0);
  for (size_t i = 0; i < edits.size(); ++i) {
    const CapsuleEdit& e = edits[i];
    const std::string what = "capsule edit " + std::to_string(i);
    if (e.joint < 0 || static_cast<size_t>(e.joint) >= n)
      return invalid_argument(what + ": joint index " + std::to_string(e.joint) +
                              " out of range (the skeleton has " + std::to_string(n) + " joints)");
    if (seen[static_cast<size_t>(e.joint)]++)
      return invalid_argument(what + ": joint " + std::to_string(e.joint) + " is given twice");
    if (!is_finite(e.capsule.a) || !is_finite(e.capsule.b) || !std::isfinite(e.capsule.radius))
      return invalid_argument(what + ": a value is NaN or infinite");
    if (e.capsule.radius < 0.0f) return invalid_argument(what + ": the radius is negative");
  }
  std::vector<HitCapsule> capsules = base.capsules;
  for (const CapsuleEdit& e : edits) capsules[static_cast<size_t>(e.joint)] = e.capsule;
  return make_hit_volumes(std::move(capsules), base.scales);
}

HitPose hit_pose(std::span<const glm::mat4> model, const Transform& root,
                 bool scales_within_reach) {
  HitPose p;
  p.model = model;
  p.root = to_matrix(root);
  p.root_scale = max_abs(root.scale);
  p.scales_within_reach = scales_within_reach;
  return p;
}

WorldCapsule world_capsule(const HitCapsule& c, const HitPose& pose, int joint) {
  const glm::mat4& m = pose.model[static_cast<size_t>(joint)];
  const glm::mat4 w = pose.root * m;
  return {glm::vec3(w * glm::vec4(c.a, 1.0f)), glm::vec3(w * glm::vec4(c.b, 1.0f)),
          c.radius * max_axis_scale(m) * pose.root_scale};
}

std::optional<JointHit> raycast_pose(const HitVolumes& volumes, const HitPose& pose,
                                     const Ray& ray) {
  std::optional<JointHit> best;
  Ray r = ray;
  const size_t n = std::min(volumes.capsules.size(), pose.model.size());
  const bool extents =
      pose.scales_within_reach && volumes.extents.size() == volumes.capsules.size();
  for (size_t j = 0; j < n; ++j) {
    const HitCapsule& c = volumes.capsules[j];
    if (!c.present()) continue;
    if (extents) {
      // The capsule lies within extents[j] (x the root's scale) of the joint's origin: skip
      // it when the ray segment passes farther from that point.
      const glm::vec3 origin(pose.root * pose.model[j][3]);
      const glm::vec3 d = origin - r.origin;
      const float t = std::clamp(glm::dot(d, r.direction), 0.0f, r.max_distance);
      const glm::vec3 off = d - t * r.direction;
      const float reach = volumes.extents[j] * pose.root_scale;
      if (glm::dot(off, off) > reach * reach) continue;
    }
    const WorldCapsule w = world_capsule(c, pose, static_cast<int>(j));
    const auto t = ray_capsule(r, w.a, w.b, w.radius);
    if (!t || (best && !(*t < best->distance))) continue;
    JointHit hit;
    hit.joint = static_cast<int>(j);
    hit.distance = *t;
    hit.point = ray.origin + *t * ray.direction;
    hit.normal = capsule_normal(hit.point, w.a, w.b, -ray.direction);
    if (*t == 0.0f) hit.normal = -ray.direction;  // inside: no surface was crossed
    best = hit;
    r.max_distance = *t;  // later joints must be nearer to count
  }
  return best;
}

void overlap_pose(const HitVolumes& volumes, const HitPose& pose, const glm::vec3& center,
                  float radius, std::vector<uint32_t>& joints) {
  const size_t n = std::min(volumes.capsules.size(), pose.model.size());
  for (size_t j = 0; j < n; ++j) {
    const HitCapsule& c = volumes.capsules[j];
    if (!c.present()) continue;
    const WorldCapsule w = world_capsule(c, pose, static_cast<int>(j));
    if (sphere_capsule(center, radius, w.a, w.b, w.radius))
      joints.push_back(static_cast<uint32_t>(j));
  }
}

}  // namespace anim
