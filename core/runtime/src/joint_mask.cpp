#include "anim/joint_mask.h"

#include <cmath>
#include <string>

#include "anim/skeleton.h"

namespace anim {

Expected<JointMask> JointMask::subtree(const Skeleton& skeleton, int root, float weight) {
  const int n = skeleton.num_joints();
  if (root < 0 || root >= n)
    return not_found("mask root joint index " + std::to_string(root) + " is not a joint (0.." +
                     std::to_string(n - 1) + ")");
  if (!std::isfinite(weight) || weight < 0.0f || weight > 1.0f)
    return invalid_argument("mask weight " + std::to_string(weight) + " for subtree of '" +
                            skeleton.names[root] + "' is outside [0, 1]");
  JointMask mask;
  mask.weights.assign(n, 0.0f);
  // Parents come first, so one forward pass from the root marks the whole subtree: a joint
  // is inside when it is the root or its parent is inside.
  std::vector<char> inside(n, 0);
  for (int j = root; j < n; ++j) {
    const int p = skeleton.parents[j];
    inside[j] = j == root || (p >= root && inside[p]);
    if (inside[j]) mask.weights[j] = weight;
  }
  return mask;
}

Expected<JointMask> JointMask::per_joint(const Skeleton& skeleton, std::vector<float> weights) {
  const int n = skeleton.num_joints();
  if (static_cast<int>(weights.size()) != n)
    return invalid_argument("joint mask has " + std::to_string(weights.size()) +
                            " weights, the skeleton has " + std::to_string(n) + " joints");
  for (int j = 0; j < n; ++j)
    if (!std::isfinite(weights[j]) || weights[j] < 0.0f || weights[j] > 1.0f)
      return invalid_argument("joint mask weight " + std::to_string(weights[j]) + " of joint '" +
                              skeleton.names[j] + "' is outside [0, 1]");
  JointMask mask;
  mask.weights = std::move(weights);
  return mask;
}

}  // namespace anim
