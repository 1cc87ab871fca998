#pragma once
// Pose: local (parent-space) transforms of every joint of one skeleton, in skeleton order.
// One contiguous array so that sampling, blending and the model-space pass stream through
// memory front to back.

#include <vector>

#include "anim/transform.h"

namespace anim {

struct Pose {
  std::vector<Transform> locals;  // num_joints entries

  int num_joints() const { return static_cast<int>(locals.size()); }
};

}  // namespace anim
