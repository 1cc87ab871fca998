#pragma once
// Skeleton: the joint hierarchy of a character.
//
// Invariants (checked by Skeleton::validate and guaranteed for every Skeleton a loader or
// the builtin character returns):
//  - joints are stored parents-before-children: parents[i] < i, or -1 for a root joint;
//  - every per-joint vector has num_joints() entries;
//  - names are unique and non-empty;
//  - source_of_joint / joint_of_source are inverse permutations between this order and the
//    order of the source file (glTF skin.joints, MD5 joint list);
//  - num_joints() <= kMaxJoints.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <glm/glm.hpp>

#include "anim/status.h"
#include "anim/transform.h"

namespace anim {

class Skeleton {
 public:
  static constexpr int kMaxJoints = 1024;

  std::vector<std::string> names;       // joint names (unique)
  std::vector<int16_t> parents;         // parent joint index, -1 for a root; parents[i] < i
  std::vector<Transform> rest_pose;     // local (parent-space) transform of each joint at rest
  std::vector<glm::mat4> inverse_bind;  // model space -> joint space at bind time
  std::vector<int> source_of_joint;     // joint index here -> index in the source file
  std::vector<int> joint_of_source;     // index in the source file -> joint index here

  // Model space is the asset's scene space (docs/protocol.md, "Spaces"): Y up; glTF: the
  // default scene's space in metres, MD5: Doom units. root_transform maps the parent space of
  // the root joints into it: glTF folds in the root joints' non-joint ancestor nodes
  // ("Armature", "Z_UP", 0.01 unit scales), MD5 the Z-up -> Y-up turn. So model matrices are
  // the joints' scene-space matrices and a palette (model x inverse_bind) maps the bind-pose
  // mesh into scene space; IK targets and pose queries use this space too.
  glm::mat4 root_transform{1.0f};

  // The joints a distant character may leave at rest (joint_detail.h): ascending, closed
  // under descent, no root. Empty: none (every pose is evaluated in full). Set with the clips'
  // tracks by anim::set_detail_joints.
  std::vector<int32_t> detail_joints;

  int num_joints() const { return static_cast<int>(parents.size()); }

  // Index of the joint called `name`, or -1.
  int find_joint(std::string_view name) const;

  // True when `joint` is `ancestor` or lies in its subtree.
  bool is_descendant(int joint, int ancestor) const;

  // Checks every invariant above, plus finite rest pose and inverse binds.
  Status validate() const;

  // Builds a skeleton from joints given in any order. `parents_in_source` uses source indices
  // (-1 for roots). Reorders parents-before-children (stable: keeps source order where it can)
  // and fills the index maps. Fails on cycles, out-of-range parents and duplicate names.
  static Expected<Skeleton> from_unordered(std::vector<std::string> names,
                                           std::span<const int> parents_in_source,
                                           std::vector<Transform> rest_pose,
                                           std::vector<glm::mat4> inverse_bind,
                                           const glm::mat4& root_transform);
};

}  // namespace anim
