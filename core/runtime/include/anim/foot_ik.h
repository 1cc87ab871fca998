#pragma once
// Foot-to-ground IK: each leg (hip -> knee -> ankle) solves two-bone IK so that its foot
// rests on the ground the host describes (a plane, or a height and normal under each foot),
// the sole tilted to the ground normal (clamped), the pelvis lowered as far as the lower foot
// needs; planted feet (the clip's stride curves, foot_contacts.h) stay locked in world space
// and are released smoothly. docs/animation.md, "Foot IK".
//
// World space is Y up, and the character's root is assumed to stand on its ground (its model
// space floor y = 0 is where its animated feet touch down).

#include <array>
#include <cstdint>
#include <string>

#include <glm/glm.hpp>

namespace anim {

inline constexpr int kNumFeet = 2;  // 0 = left, 1 = right

// One leg's joints by name; empty names are found from the skeleton's names (see
// find_leg_joints). hip = the thigh joint, knee its child in the chain, ankle (the foot
// joint) the knee's child; toe is optional (informative only).
struct LegJointNames {
  std::string hip, knee, ankle, toe;
};

// Ranges are enforced by Animator::set_foot_ik (NaN and infinity refused everywhere).
struct FootIkDesc {
  std::array<LegJointNames, kNumFeet> legs;  // left, right
  std::string pelvis;  // the joint lowered; empty = the nearest common ancestor of the hips
  // Height of each ankle above its sole, asset units; < 0 (default) = the ankle's height
  // above y = 0 in the rest pose. At most 1e6.
  std::array<float, kNumFeet> sole_offsets{-1.0f, -1.0f};
  float max_tilt = 0.6f;  // radians in [0, 1.5]: the sole follows the ground normal up to this
  float weight = 1.0f;    // [0, 1]: blends the whole effect (0 = the animated pose, bit for bit)
  bool lock_feet = true;  // planted feet stay put in world space
  // Contact detection (stride curves): a foot is planted while its ankle is less than
  // contact_height above its lowest point in the clip and its horizontal speed differs from the
  // clip's ground speed by less than contact_speed. <= 0 (default) = 0.02 x leg length and
  // 1.5 x leg length per second (docs/animation.md, "Stride curves"). Asset units, at most 1e6.
  float contact_height = 0.0f;
  float contact_speed = 0.0f;
  float release_time = 0.2f;  // seconds in [0, 10]: a released lock fades out over this
};

// The ground under the character, in world space (Y up). Persists until replaced.
struct GroundDesc {
  enum class Kind : uint8_t {
    kPlane,        // one plane: `point` and `normal`
    kFootSamples,  // under each foot: the ground's height and normal there
  } kind = Kind::kPlane;
  glm::vec3 point{0.0f};                  // kPlane: any point of the plane
  glm::vec3 normal{0.0f, 1.0f, 0.0f};     // kPlane: up-facing (y > 0.1 once normalized)
  std::array<float, kNumFeet> heights{};  // kFootSamples: world y of the ground per foot
  std::array<glm::vec3, kNumFeet> normals{// kFootSamples: up-facing normals per foot
                                          glm::vec3(0.0f, 1.0f, 0.0f), glm::vec3(0.0f, 1.0f, 0.0f)};
};

// What one update did for the feet (Animator::foot_ik_state), for hosts and tests.
struct FootIkState {
  std::array<bool, kNumFeet> planted{};             // the stride curve says planted at this update
  std::array<float, kNumFeet> lock_weight{};        // 1 while planted, fading out after
  std::array<glm::vec3, kNumFeet> lock_position{};  // world-space ankle target held
  // World-space vertical move each ankle needed (target - animated, < 0: down) and the pelvis
  // drop applied (min(0, needs) x weight); zero when the foot IK did not run.
  std::array<float, kNumFeet> need{};
  float pelvis_drop = 0.0f;
};

}  // namespace anim
