// The built-in character's skeleton. Joints are listed parents-first, so from_unordered keeps
// this order; everything else still looks joints up by name.
#include <numbers>

#include <glm/gtc/quaternion.hpp>

#include "builtin_character_parts.h"

namespace anim::builtin {

namespace {

struct JointDef {
  const char* name;
  const char* parent;   // nullptr for the root
  glm::vec3 offset;     // rest translation in the parent's frame (metres)
  float rest_roll_deg;  // rest rotation about the parent's Z axis (the A-pose of the arms)
};

// Arms hang 18 degrees out from the body (A-pose): the upper arm's rest rotation carries the
// angle, so the elbow and wrist offsets are straight down the arm's own -Y axis.
constexpr float kArmOutDeg = 18.0f;

// Heights at rest: hips 0.95, spine 1.07, chest 1.25, neck 1.50, head 1.60 (the head sphere
// reaches 1.81); shoulders at 1.45; knees 0.50, ankles 0.09.
const JointDef kJoints[] = {
    {"root", nullptr, {0.0f, 0.0f, 0.0f}, 0.0f},
    {"hips", "root", {0.0f, 0.95f, 0.0f}, 0.0f},
    {"spine", "hips", {0.0f, 0.12f, 0.0f}, 0.0f},
    {"chest", "spine", {0.0f, 0.18f, 0.0f}, 0.0f},
    {"neck", "chest", {0.0f, 0.25f, 0.0f}, 0.0f},
    {"head", "neck", {0.0f, 0.10f, 0.0f}, 0.0f},
    {"shoulder_l", "chest", {0.05f, 0.20f, 0.0f}, 0.0f},
    {"upper_arm_l", "shoulder_l", {0.14f, 0.0f, 0.0f}, kArmOutDeg},
    {"forearm_l", "upper_arm_l", {0.0f, -0.28f, 0.0f}, 0.0f},
    {"hand_l", "forearm_l", {0.0f, -0.25f, 0.0f}, 0.0f},
    {"shoulder_r", "chest", {-0.05f, 0.20f, 0.0f}, 0.0f},
    {"upper_arm_r", "shoulder_r", {-0.14f, 0.0f, 0.0f}, -kArmOutDeg},
    {"forearm_r", "upper_arm_r", {0.0f, -0.28f, 0.0f}, 0.0f},
    {"hand_r", "forearm_r", {0.0f, -0.25f, 0.0f}, 0.0f},
    {"thigh_l", "hips", {0.10f, -0.04f, 0.0f}, 0.0f},
    {"shin_l", "thigh_l", {0.0f, -0.41f, 0.0f}, 0.0f},
    {"foot_l", "shin_l", {0.0f, -0.41f, 0.0f}, 0.0f},
    {"toe_l", "foot_l", {0.0f, -0.06f, 0.14f}, 0.0f},
    {"thigh_r", "hips", {-0.10f, -0.04f, 0.0f}, 0.0f},
    {"shin_r", "thigh_r", {0.0f, -0.41f, 0.0f}, 0.0f},
    {"foot_r", "shin_r", {0.0f, -0.41f, 0.0f}, 0.0f},
    {"toe_r", "foot_r", {0.0f, -0.06f, 0.14f}, 0.0f},
};

}  // namespace

Expected<Skeleton> make_rig() {
  constexpr int n = static_cast<int>(std::size(kJoints));
  std::vector<std::string> names;
  std::vector<int> parents;
  std::vector<Transform> rest;
  std::vector<glm::mat4> model(n), inverse_bind;
  for (int i = 0; i < n; ++i) {
    const JointDef& d = kJoints[i];
    int parent = -1;
    for (int p = 0; p < i && d.parent; ++p)
      if (std::string_view(kJoints[p].name) == d.parent) parent = p;
    Transform t;
    t.translation = d.offset;
    t.rotation = glm::angleAxis(glm::radians(d.rest_roll_deg), glm::vec3(0, 0, 1));
    names.emplace_back(d.name);
    parents.push_back(parent);
    rest.push_back(t);
    // Parents come first in the table, so their model matrix is already known.
    model[i] = (parent < 0 ? glm::mat4(1.0f) : model[parent]) * to_matrix(t);
    inverse_bind.push_back(glm::inverse(model[i]));
  }
  return Skeleton::from_unordered(std::move(names), parents, std::move(rest),
                                  std::move(inverse_bind), glm::mat4(1.0f));
}

}  // namespace anim::builtin
