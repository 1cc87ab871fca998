// Per-joint precision from the skeleton's proportions, and the skeleton a client decodes with.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <string>

#include <glm/gtc/matrix_transform.hpp>

#include "anim/v1/assets.pb.h"
#include "animcodec/compact.h"
#include "codec_internal.h"

namespace animcodec {

namespace {

// The quantization of one joint should move the vertices it carries by no more than about
// this, in metres on the character scaled to 1.8 m (errors of a chain's joints add up, mostly
// at random: the accuracy tests measure the sum, p99 <= 0.5 mm).
constexpr double kJointBudget = 2.2e-4;
constexpr double kReferenceHeight = 1.8;
// Skin reaches past the last joint of a chain (a hand past the wrist, a head past the neck):
// every reach gets this fraction of the character's size on top.
constexpr double kSkinMargin = 0.1;
// With a mesh the reach is measured; this covers the poses where skin stretches a little.
constexpr double kMeshMargin = 0.01;
// Translations are cheap to code finely (most joints keep their rest translation), and their
// errors add up along a chain: they get this share of the budget.
constexpr double kTranslationShare = 0.3;

glm::dmat4 trs_matrix(const Trs& t) {
  glm::dmat4 m = glm::translate(glm::dmat4(1.0), glm::dvec3(t.t));
  m *= glm::mat4_cast(glm::dquat(t.r.w, t.r.x, t.r.y, t.r.z));
  m = glm::scale(m, glm::dvec3(t.s));
  return m;
}

double max_axis_scale(const glm::dmat4& m) {
  double s = 0.0;
  for (int c = 0; c < 3; ++c) s = std::max(s, glm::length(glm::dvec3(m[c])));
  return s;
}

int8_t exponent_for(double units_per_step_bound) {
  // The smallest e with 2^-e <= bound, clamped.
  if (!(units_per_step_bound > 0.0) || !std::isfinite(units_per_step_bound)) return kMaxExp;
  const int e = static_cast<int>(std::ceil(-std::log2(units_per_step_bound)));
  return static_cast<int8_t>(std::clamp(e, kMinExp, kMaxExp));
}

uint32_t fnv1a(uint32_t h, const void* data, size_t n) {
  const auto* p = static_cast<const uint8_t*>(data);
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 16777619u;
  return h;
}

void fill_rest_q(Layout& l) {
  l.rest_q.resize(l.rest.size());
  for (size_t j = 0; j < l.rest.size(); ++j) {
    const glm::quat& r = l.rest[j].r;
    quantize_rotation_exact(r.x, r.y, r.z, r.w, l.precision[j].rotation_bits, l.rest_q[j].r,
                            l.rest_q[j].largest);
  }
  l.index_bits = std::max(1, static_cast<int>(std::bit_width(l.rest.size() - 1)));
  l.scales.resize(l.rest.size());
  for (size_t j = 0; j < l.rest.size(); ++j) {
    const JointPrecision& p = l.precision[j];
    l.scales[j] = {std::ldexp(1.0f, p.rotation_bits),
                   static_cast<float>(rotation_limit(p.rotation_bits)),
                   std::ldexp(1.0f, p.translation_exp), std::ldexp(1.0f, p.scale_exp)};
  }
}

}  // namespace

Layout make_layout(std::span<const int> parents, std::span<const Trs> rest,
                   const glm::mat4& root_transform, const SkinView* skin) {
  const size_t n = rest.size();
  std::vector<glm::dmat4> model(n);
  std::vector<glm::dvec3> pos(n);
  glm::dvec3 lo(INFINITY), hi(-INFINITY);
  for (size_t j = 0; j < n; ++j) {
    const glm::dmat4 parent = parents[j] < 0 ? glm::dmat4(root_transform) : model[parents[j]];
    model[j] = parent * trs_matrix(rest[j]);
    pos[j] = glm::dvec3(model[j][3]);
    lo = glm::min(lo, pos[j]);
    hi = glm::max(hi, pos[j]);
  }
  // How far each joint's own skin reaches from it, from the mesh skinned at rest.
  std::vector<double> own(n, 0.0);
  const bool meshed = skin && !skin->positions.empty() && skin->inverse_bind.size() == n &&
                      skin->joints.size() == skin->positions.size() &&
                      skin->weights.size() == skin->positions.size();
  if (meshed) {
    std::vector<glm::dmat4> palette(n);
    for (size_t j = 0; j < n; ++j) palette[j] = model[j] * glm::dmat4(skin->inverse_bind[j]);
    glm::dvec3 mlo(INFINITY), mhi(-INFINITY);
    for (size_t v = 0; v < skin->positions.size(); ++v) {
      const glm::dvec4 p(glm::dvec3(skin->positions[v]), 1.0);
      glm::dvec3 at(0.0);
      for (int i = 0; i < 4; ++i)
        if (skin->joints[v][i] < n)
          at += double{skin->weights[v][i]} * glm::dvec3(palette[skin->joints[v][i]] * p);
      if (!std::isfinite(at.x + at.y + at.z)) continue;
      mlo = glm::min(mlo, at);
      mhi = glm::max(mhi, at);
      for (int i = 0; i < 4; ++i) {
        const size_t k = skin->joints[v][i];
        if (k < n && skin->weights[v][i] > 0.0f)
          own[k] = std::max(own[k], glm::length(at - pos[k]));
      }
    }
    if (mhi.x >= mlo.x) lo = glm::min(lo, mlo), hi = glm::max(hi, mhi);
  }
  // The character's size: the largest extent of its rest mesh and joints (model space, i.e.
  // metres for glTF).
  double size = n > 0 ? std::max({hi.x - lo.x, hi.y - lo.y, hi.z - lo.z}) : 0.0;
  if (!(size > 1e-9) || !std::isfinite(size)) size = 1.0;
  // The budget in model units: the error allowed on the 1.8 m character, scaled back.
  const double budget = kJointBudget * size / kReferenceHeight;
  const double margin = (meshed ? kMeshMargin : kSkinMargin) * size;

  // Reach: over the joint's subtree (children come after their parents: walk back), each
  // joint's distance plus its own skin's reach (an upper bound of the vertices' distance).
  std::vector<double> reach(own);
  for (size_t j = n; j-- > 0;)
    for (int a = parents[j]; a >= 0; a = parents[a])
      reach[a] = std::max(reach[a], glm::length(pos[j] - pos[a]) + own[j]);

  Layout l;
  l.rest.assign(rest.begin(), rest.end());
  l.precision.resize(n);
  for (size_t j = 0; j < n; ++j) {
    const double r = reach[j] + margin;
    // A component step q moves the joint's frame by an angle of at most ~2.5 q radians.
    const double step = budget / (2.5 * r);
    const int bits = static_cast<int>(std::ceil(-std::log2(step)));
    JointPrecision& p = l.precision[j];
    p.rotation_bits = static_cast<uint8_t>(std::clamp(bits, kMinRotationBits, kMaxRotationBits));
    // Translation moves the joint by step * (the parent frame's scale) per axis.
    const double parent_scale =
        max_axis_scale(parents[j] < 0 ? glm::dmat4(root_transform) : model[parents[j]]);
    p.translation_exp =
        exponent_for(kTranslationShare * budget / (0.87 * std::max(parent_scale, 1e-30)));
    // Scale moves the vertices within reach by step * reach.
    p.scale_exp = exponent_for(budget / (0.87 * r));
  }
  fill_rest_q(l);
  uint32_t h = 2166136261u;
  for (size_t j = 0; j < n; ++j) {
    const int32_t p = parents[j];
    h = fnv1a(h, &p, sizeof p);
    h = fnv1a(h, &l.rest[j], sizeof(Trs));
    h = fnv1a(h, &l.precision[j], sizeof(JointPrecision));
  }
  h = fnv1a(h, &root_transform, sizeof root_transform);
  l.id = h;
  return l;
}

Layout layout_from_precision(std::vector<JointPrecision> precision, std::vector<Trs> rest,
                             uint32_t id) {
  Layout l;
  l.id = id;
  l.precision = std::move(precision);
  l.rest = std::move(rest);
  fill_rest_q(l);
  return l;
}

std::string precision_bytes(const Layout& layout) {
  std::string out;
  out.reserve(layout.precision.size() * 3);
  for (const JointPrecision& p : layout.precision) {
    out.push_back(static_cast<char>(p.rotation_bits));
    out.push_back(static_cast<char>(p.translation_exp));
    out.push_back(static_cast<char>(p.scale_exp));
  }
  return out;
}

namespace {
bool finite(const anim::v1::Vec3& v) {
  return std::isfinite(v.x()) && std::isfinite(v.y()) && std::isfinite(v.z());
}
}  // namespace

std::string skeleton_from_proto(const anim::v1::SkeletonData& d, Skeleton& out) {
  const int n = d.parents_size();
  if (n < 1 || n > kMaxJoints)
    return "skeleton has " + std::to_string(n) + " joints (1.." + std::to_string(kMaxJoints) +
           " allowed)";
  if (d.rest_pose_size() != n)
    return "skeleton has " + std::to_string(d.rest_pose_size()) + " rest transforms for " +
           std::to_string(n) + " joints";
  if (d.inverse_bind_size() != 16 * n)
    return "skeleton has " + std::to_string(d.inverse_bind_size()) +
           " inverse_bind floats, expected " + std::to_string(16 * n);
  if (d.root_transform_size() != 16)
    return "skeleton root_transform has " + std::to_string(d.root_transform_size()) +
           " floats, expected 16";
  if (d.compact_precision().size() != 3 * static_cast<size_t>(n))
    return "skeleton compact_precision has " + std::to_string(d.compact_precision().size()) +
           " bytes, expected " + std::to_string(3 * n) +
           " (a daemon without the compact encoding?)";
  Skeleton s;
  s.parents.resize(n);
  std::vector<Trs> rest(n);
  std::vector<JointPrecision> precision(n);
  for (int j = 0; j < n; ++j) {
    const int p = d.parents(j);
    if (p < -1 || p >= j)
      return "skeleton joint " + std::to_string(j) + " has parent " + std::to_string(p) +
             " (must be -1 or an earlier joint)";
    s.parents[j] = p;
    const auto& t = d.rest_pose(j);
    if (!finite(t.translation()) || !finite(t.scale()) || !std::isfinite(t.rotation().x()) ||
        !std::isfinite(t.rotation().y()) || !std::isfinite(t.rotation().z()) ||
        !std::isfinite(t.rotation().w()))
      return "skeleton joint " + std::to_string(j) + " has a non-finite rest transform";
    rest[j].t = {t.translation().x(), t.translation().y(), t.translation().z()};
    // Unset rotation = identity, unset scale = 1 (types.proto).
    if (t.has_rotation() && (t.rotation().x() != 0 || t.rotation().y() != 0 ||
                             t.rotation().z() != 0 || t.rotation().w() != 0))
      rest[j].r = glm::quat(t.rotation().w(), t.rotation().x(), t.rotation().y(), t.rotation().z());
    rest[j].s =
        t.has_scale() ? glm::vec3(t.scale().x(), t.scale().y(), t.scale().z()) : glm::vec3(1.0f);
    const auto* b = reinterpret_cast<const uint8_t*>(d.compact_precision().data()) + 3 * j;
    JointPrecision& pr = precision[j];
    pr.rotation_bits = b[0];
    pr.translation_exp = static_cast<int8_t>(b[1]);
    pr.scale_exp = static_cast<int8_t>(b[2]);
    if (pr.rotation_bits < kMinRotationBits || pr.rotation_bits > kMaxRotationBits ||
        pr.translation_exp < kMinExp || pr.translation_exp > kMaxExp || pr.scale_exp < kMinExp ||
        pr.scale_exp > kMaxExp)
      return "skeleton joint " + std::to_string(j) + " has an out-of-range compact precision";
  }
  s.inverse_bind.resize(n);
  for (int j = 0; j < n; ++j)
    for (int c = 0; c < 4; ++c)
      for (int r = 0; r < 4; ++r) {
        const float v = d.inverse_bind(16 * j + 4 * c + r);
        if (!std::isfinite(v))
          return "skeleton joint " + std::to_string(j) + " has a non-finite inverse_bind";
        s.inverse_bind[j][c][r] = v;
      }
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r) {
      const float v = d.root_transform(4 * c + r);
      if (!std::isfinite(v)) return "skeleton root_transform is not finite";
      s.root_transform[c][r] = v;
    }
  s.layout = layout_from_precision(std::move(precision), std::move(rest), d.compact_skeleton_id());
  out = std::move(s);
  return {};
}

}  // namespace animcodec
