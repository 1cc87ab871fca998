#pragma once
// JointMask: how much a blend or layer affects each joint, 0..1 per joint.
// An empty mask means "every joint at weight 1".

#include <span>
#include <vector>

#include "anim/status.h"

namespace anim {

class Skeleton;

struct JointMask {
  std::vector<float> weights;  // empty, or num_joints entries in [0, 1]

  bool empty() const { return weights.empty(); }
  float weight(int joint) const { return weights.empty() ? 1.0f : weights[joint]; }

  static JointMask all() { return {}; }
  // `weight` for `root` and every joint below it, 0 elsewhere.
  static Expected<JointMask> subtree(const Skeleton& skeleton, int root, float weight = 1.0f);
  // Per-joint weights; checks count, finiteness and range.
  static Expected<JointMask> per_joint(const Skeleton& skeleton, std::vector<float> weights);
};

}  // namespace anim
