#pragma once
// LocalToModelJob: model-space matrices from a local pose, in one pass over the joints
// (parents come first in a Skeleton):
//
//   model[j] = model[parent[j]] * matrix(local[j])      roots: root * matrix(local[j])
//
// matrix(t) = T * R * S as anim::to_matrix (rotation scaled by 2 / |q|^2, so a quaternion
// whose length drifted by rounding still gives a rotation). Allocates nothing, owns no memory.

#include <span>

#include <glm/glm.hpp>

#include "anim/transform.h"

namespace anim {

class Skeleton;

struct LocalToModelJob {
  const Skeleton* skeleton = nullptr;  // required: the parents
  std::span<const Transform> input;    // one local transform per joint
  std::span<glm::mat4> output;         // one model matrix per joint (affine)
  const glm::mat4* root = nullptr;     // parent of the roots; null: skeleton->root_transform
  // First joint to compute; the matrices of the joints before it are read from `output` as
  // they are (an update after changing the locals of `from` and later joints only, as IK does).
  int from = 0;

  // skeleton set, spans sized to its joint count, 0 <= from <= joint count.
  bool validate() const;
  // Returns false (and writes nothing) when validate() fails.
  bool run() const;
};

}  // namespace anim
