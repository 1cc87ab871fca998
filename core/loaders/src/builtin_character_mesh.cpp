// The built-in character's skinned mesh: one low-poly "lathe" (a stack of elliptical rings
// around an axis) per body part. Limbs are capsules, the head is an ellipsoid and the feet
// are flat-bottomed octagonal prisms. Rings near a joint are weighted half-and-half between
// the two bones meeting there (fading to the bone's own joint over 30% of the segment), so
// elbows and knees bend smoothly; the weights of each vertex sum to 1.
#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <string>

#include "anim/palette.h"
#include "builtin_character_parts.h"

namespace anim::builtin {

namespace {

constexpr float kPi = std::numbers::pi_v<float>;

// Up to three (joint, weight) influences shared by every vertex of a ring.
struct Influences {
  std::array<int, 3> joint{0, 0, 0};
  std::array<float, 3> weight{0.0f, 0.0f, 0.0f};
};

struct Ring {
  glm::vec3 center;
  float rx = 0.0f, ry = 0.0f;  // half-extents along the frame's u and v axes; 0 = a point
  float normal_radial = 1.0f;  // normal = normalize(radial * ellipse normal + axial * axis)
  float normal_axial = 0.0f;
  bool connect_to_next = true;  // false where a flat cap starts (a hard normal edge)
  Influences influences;
};

// An orthonormal frame around a segment axis: u is `side` made perpendicular to the axis,
// and (u, v, axis) is right-handed so that triangles wound below face outward.
struct Frame {
  glm::vec3 u, v, axis;
};

Frame make_frame(glm::vec3 axis, glm::vec3 side) {
  axis = glm::normalize(axis);
  glm::vec3 u = glm::normalize(side - axis * glm::dot(side, axis));
  return {u, glm::cross(axis, u), axis};
}

class MeshBuilder {
 public:
  // Adds the rings as one closed surface into the submesh `material` (0 = cloth, 1 = skin).
  void add_lathe(const std::vector<Ring>& rings, const Frame& f, int sides, int material) {
    const uint32_t base = static_cast<uint32_t>(mesh_.positions.size());
    const int per_ring = sides + 1;  // the seam vertex is repeated so the uvs wrap
    // Octagons etc. are turned by half a side and widened so that their flat faces sit
    // exactly at +-rx, +-ry (the feet then rest flat on y = 0).
    const float turn = kPi / static_cast<float>(sides);
    const float widen = 1.0f / std::cos(turn);
    for (size_t r = 0; r < rings.size(); ++r) {
      const Ring& ring = rings[r];
      for (int i = 0; i <= sides; ++i) {
        const float a = turn + 2.0f * kPi * static_cast<float>(i % sides) / sides;
        const float c = std::cos(a), s = std::sin(a);
        mesh_.positions.push_back(ring.center + f.u * (ring.rx * widen * c) +
                                  f.v * (ring.ry * widen * s));
        // Normal of the ellipse (x/rx)^2 + (y/ry)^2 = 1 at this angle; a circle for points.
        const float ex = ring.rx > 0.0f ? ring.rx : 1.0f, ey = ring.ry > 0.0f ? ring.ry : 1.0f;
        const glm::vec3 radial = glm::normalize(f.u * (c * ey) + f.v * (s * ex));
        mesh_.normals.push_back(
            glm::normalize(radial * ring.normal_radial + f.axis * ring.normal_axial));
        mesh_.uvs.emplace_back(static_cast<float>(i) / sides,
                               static_cast<float>(r) / static_cast<float>(rings.size() - 1));
        std::array<uint16_t, 4> joints{};
        glm::vec4 weights(0.0f);
        for (int k = 0; k < 3; ++k) {
          joints[k] = static_cast<uint16_t>(ring.influences.joint[k]);
          weights[k] = ring.influences.weight[k];
        }
        mesh_.joints.push_back(joints);
        mesh_.weights.push_back(weights);
      }
    }
    std::vector<uint32_t>& out = indices_[material];
    for (size_t r = 0; r + 1 < rings.size(); ++r) {
      if (!rings[r].connect_to_next) continue;
      const bool low_point = rings[r].rx == 0.0f, high_point = rings[r + 1].rx == 0.0f;
      for (int i = 0; i < sides; ++i) {
        const uint32_t a = base + static_cast<uint32_t>(r * per_ring + i), b = a + 1;
        const uint32_t c = a + per_ring, d = c + 1;
        // Skip the triangle that would collapse where a ring is a single point (a pole).
        if (!low_point) out.insert(out.end(), {a, b, d});
        if (!high_point) out.insert(out.end(), {a, d, c});
      }
    }
  }

  SkinnedMesh finish() {
    const char* names[2] = {"cloth", "skin"};
    for (int m = 0; m < 2; ++m) {
      Submesh sub;
      sub.first_index = static_cast<uint32_t>(mesh_.indices.size());
      sub.index_count = static_cast<uint32_t>(indices_[m].size());
      sub.material = names[m];
      mesh_.indices.insert(mesh_.indices.end(), indices_[m].begin(), indices_[m].end());
      mesh_.submeshes.push_back(sub);
    }
    return std::move(mesh_);
  }

 private:
  SkinnedMesh mesh_;
  std::vector<uint32_t> indices_[2];
};

constexpr int kCloth = 0, kSkin = 1;

// Weights at a point `s` (0..1) along the bone of `joint`, blending with `from` near s = 0
// and with `to` near s = 1 (either may be -1 for no blend): half-and-half exactly at the
// joint, none beyond 30% of the segment, smoothstep in between.
Influences blend_along(int joint, int from, int to, float s) {
  constexpr float kBlend = 0.3f;
  auto fade = [](float x) {
    x = std::clamp(x, 0.0f, 1.0f);
    return x * x * (3.0f - 2.0f * x);
  };
  Influences w;
  const float w_from = from >= 0 ? 0.5f * fade((kBlend - s) / kBlend) : 0.0f;
  const float w_to = to >= 0 ? 0.5f * fade((s - (1.0f - kBlend)) / kBlend) : 0.0f;
  w.joint = {joint, from >= 0 ? from : joint, to >= 0 ? to : joint};
  w.weight = {1.0f - w_from - w_to, w_from, w_to};
  return w;
}

struct Segment {
  int joint, from, to;  // the bone's joint and its blend partners (-1: none)
  glm::vec3 p0, p1;     // axis ends in model space
  glm::vec2 r0, r1;     // (rx, ry) half-extents at p0 and p1
  glm::vec3 side;       // direction of the rx axis
  int sides;
  int material;
  bool rounded;  // capsule ends (limbs) or flat caps (feet)
};

void add_segment(MeshBuilder& mb, const Segment& seg) {
  const Frame f = make_frame(seg.p1 - seg.p0, seg.side);
  const float len = glm::length(seg.p1 - seg.p0);
  std::vector<Ring> rings;
  const Influences w0 = blend_along(seg.joint, seg.from, seg.to, 0.0f);
  const Influences w1 = blend_along(seg.joint, seg.from, seg.to, 1.0f);
  // The side's slope tilts its normals toward the thinner end.
  const float slope = (0.5f * (seg.r0.x + seg.r0.y) - 0.5f * (seg.r1.x + seg.r1.y)) / len;
  auto cap = [&](bool at_start) {
    const glm::vec3 p = at_start ? seg.p0 : seg.p1;
    const glm::vec2 r = at_start ? seg.r0 : seg.r1;
    const Influences& w = at_start ? w0 : w1;
    const float sign = at_start ? -1.0f : 1.0f;
    std::vector<Ring> cap_rings;
    if (seg.rounded) {
      // A half-ellipsoid: rings at 40 and 70 degrees of latitude, then the pole.
      const float depth = 0.5f * (r.x + r.y);
      for (float deg : {40.0f, 70.0f, 90.0f}) {
        const float lat = glm::radians(deg);
        const float k = deg == 90.0f ? 0.0f : std::cos(lat);
        cap_rings.push_back({p + f.axis * (sign * depth * std::sin(lat)), r.x * k, r.y * k,
                             std::cos(lat), sign * std::sin(lat), true, w});
      }
    } else {
      // A flat cap: the end ring again with an axial normal, then its centre.
      cap_rings.push_back({p, r.x, r.y, 0.0f, sign, true, w});
      cap_rings.push_back({p, 0.0f, 0.0f, 0.0f, sign, true, w});
    }
    return cap_rings;
  };
  std::vector<Ring> start = cap(true);
  std::reverse(start.begin(), start.end());  // pole first, then outward to the body
  rings.insert(rings.end(), start.begin(), start.end());
  if (!seg.rounded) rings.back().connect_to_next = false;
  for (float s : {0.0f, 0.12f, 0.3f, 0.5f, 0.7f, 0.88f, 1.0f}) {
    const glm::vec2 r = glm::mix(seg.r0, seg.r1, s);
    rings.push_back({glm::mix(seg.p0, seg.p1, s), r.x, r.y, 1.0f, slope, true,
                     blend_along(seg.joint, seg.from, seg.to, s)});
  }
  if (!seg.rounded) rings.back().connect_to_next = false;
  std::vector<Ring> end = cap(false);
  rings.insert(rings.end(), end.begin(), end.end());
  mb.add_lathe(rings, f, seg.sides, seg.material);
}

// The head: an ellipsoid around `center`, all on the head joint.
void add_head(MeshBuilder& mb, int head, glm::vec3 center, glm::vec3 radii) {
  const Frame f = make_frame({0, 1, 0}, {1, 0, 0});  // u = +X, v = -Z
  Influences w;
  w.joint = {head, head, head};
  w.weight = {1.0f, 0.0f, 0.0f};
  std::vector<Ring> rings;
  constexpr int kStacks = 8;
  for (int k = 0; k <= kStacks; ++k) {
    const float lat = -0.5f * kPi + kPi * static_cast<float>(k) / kStacks;
    const float c = (k == 0 || k == kStacks) ? 0.0f : std::cos(lat), s = std::sin(lat);
    rings.push_back({center + f.axis * (radii.y * s), radii.x * c, radii.z * c, c, s, true, w});
  }
  mb.add_lathe(rings, f, 10, kSkin);
}

}  // namespace

SkinnedMesh make_mesh(const Skeleton& rig) {
  std::vector<glm::mat4> model(rig.num_joints());
  local_to_model(rig, rig.rest_pose, model);
  auto J = [&](const char* name) { return rig.find_joint(name); };
  auto P = [&](const char* name) { return glm::vec3(model[J(name)][3]); };
  const glm::vec3 X(1, 0, 0), Z(0, 0, 1);

  MeshBuilder mb;
  // Torso: pelvis, abdomen and chest; wide along X, shallower along Z.
  add_segment(mb, {J("hips"),
                   -1,
                   J("spine"),
                   P("hips") - glm::vec3(0, 0.08f, 0),
                   P("spine"),
                   {0.15f, 0.10f},
                   {0.14f, 0.095f},
                   X,
                   10,
                   kCloth,
                   true});
  add_segment(mb, {J("spine"),
                   J("hips"),
                   J("chest"),
                   P("spine"),
                   P("chest"),
                   {0.14f, 0.095f},
                   {0.15f, 0.10f},
                   X,
                   10,
                   kCloth,
                   false});
  add_segment(mb, {J("chest"),
                   J("spine"),
                   -1,
                   P("chest"),
                   P("chest") + glm::vec3(0, 0.22f, 0),
                   {0.15f, 0.10f},
                   {0.17f, 0.09f},
                   X,
                   10,
                   kCloth,
                   false});
  add_segment(mb, {J("neck"),
                   J("chest"),
                   J("head"),
                   P("neck") - glm::vec3(0, 0.03f, 0),
                   P("head"),
                   {0.05f, 0.05f},
                   {0.045f, 0.045f},
                   X,
                   8,
                   kSkin,
                   false});
  add_head(mb, J("head"), P("head") + glm::vec3(0, 0.095f, 0.01f), {0.095f, 0.115f, 0.11f});

  for (const char* sfx : {"_l", "_r"}) {
    auto side_joint = [&](const char* base) { return rig.find_joint(std::string(base) + sfx); };
    const int shoulder = side_joint("shoulder"), upper = side_joint("upper_arm");
    const int fore = side_joint("forearm"), hand = side_joint("hand");
    const int thigh = side_joint("thigh"), shin = side_joint("shin");
    const int foot = side_joint("foot"), toe = side_joint("toe");
    auto pos = [&](int j) { return glm::vec3(model[j][3]); };
    const glm::vec3 arm_dir = glm::normalize(pos(hand) - pos(fore));

    add_segment(mb, {shoulder,
                     J("chest"),
                     upper,
                     pos(shoulder),
                     pos(upper),
                     {0.06f, 0.06f},
                     {0.06f, 0.06f},
                     Z,
                     8,
                     kCloth,
                     true});
    add_segment(mb, {upper,
                     shoulder,
                     fore,
                     pos(upper),
                     pos(fore),
                     {0.055f, 0.055f},
                     {0.045f, 0.045f},
                     Z,
                     10,
                     kCloth,
                     true});
    add_segment(mb, {fore,
                     upper,
                     hand,
                     pos(fore),
                     pos(hand),
                     {0.045f, 0.045f},
                     {0.035f, 0.035f},
                     Z,
                     10,
                     kSkin,
                     true});
    // Hands: flat paddles, wide along Z (palms face the thighs in the A-pose).
    add_segment(mb, {hand,
                     fore,
                     -1,
                     pos(hand),
                     pos(hand) + arm_dir * 0.16f,
                     {0.045f, 0.022f},
                     {0.04f, 0.018f},
                     Z,
                     8,
                     kSkin,
                     true});
    add_segment(mb, {thigh,
                     J("hips"),
                     shin,
                     pos(thigh),
                     pos(shin),
                     {0.085f, 0.085f},
                     {0.06f, 0.06f},
                     X,
                     10,
                     kCloth,
                     true});
    add_segment(mb, {shin,
                     thigh,
                     foot,
                     pos(shin),
                     pos(foot),
                     {0.055f, 0.055f},
                     {0.042f, 0.042f},
                     X,
                     10,
                     kCloth,
                     true});
    // Feet and toes: flat-bottomed boxes along +Z resting on y = 0.
    const float x = pos(foot).x, toe_z = pos(toe).z;
    add_segment(mb, {foot,
                     -1,
                     toe,
                     {x, 0.045f, -0.06f},
                     {x, 0.04f, toe_z},
                     {0.045f, 0.045f},
                     {0.045f, 0.04f},
                     X,
                     8,
                     kCloth,
                     false});
    add_segment(mb, {toe,
                     foot,
                     -1,
                     {x, 0.03f, toe_z},
                     {x, 0.025f, toe_z + 0.08f},
                     {0.045f, 0.03f},
                     {0.04f, 0.025f},
                     X,
                     8,
                     kCloth,
                     false});
  }
  return mb.finish();
}

}  // namespace anim::builtin
