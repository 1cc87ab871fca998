#include "anim/skeleton.h"

#include <cmath>
#include <unordered_set>

namespace anim {

namespace {

bool finite_matrix(const glm::mat4& m) {
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r)
      if (!std::isfinite(m[c][r])) return false;
  return true;
}

}  // namespace

int Skeleton::find_joint(std::string_view name) const {
  for (int i = 0; i < num_joints(); ++i)
    if (names[i] == name) return i;
  return -1;
}

bool Skeleton::is_descendant(int joint, int ancestor) const {
  if (joint < 0 || joint >= num_joints() || ancestor < 0 || ancestor >= num_joints()) return false;
  // Parents come first, so the walk up is strictly decreasing and ends.
  for (int j = joint; j >= 0; j = parents[j])
    if (j == ancestor) return true;
  return false;
}

Status Skeleton::validate() const {
  const size_t n = parents.size();
  if (n == 0) return invalid_argument("skeleton has no joints");
  if (n > static_cast<size_t>(kMaxJoints))
    return invalid_argument("skeleton has " + std::to_string(n) + " joints, more than the limit " +
                            std::to_string(kMaxJoints));
  if (names.size() != n || rest_pose.size() != n || inverse_bind.size() != n ||
      source_of_joint.size() != n || joint_of_source.size() != n)
    return invalid_argument("skeleton per-joint arrays differ in size");
  std::unordered_set<std::string> seen;
  for (size_t i = 0; i < n; ++i) {
    if (names[i].empty()) return invalid_argument("joint " + std::to_string(i) + " has no name");
    if (!seen.insert(names[i]).second)
      return invalid_argument("duplicate joint name '" + names[i] + "'");
    if (parents[i] < -1 || parents[i] >= static_cast<int>(i))
      return invalid_argument("joint '" + names[i] + "' has parent " + std::to_string(parents[i]) +
                              ", which does not come before it");
    if (!is_finite(rest_pose[i]))
      return invalid_argument("joint '" + names[i] + "' has a non-finite rest pose");
    if (!finite_matrix(inverse_bind[i]))
      return invalid_argument("joint '" + names[i] + "' has a non-finite inverse bind matrix");
    int s = source_of_joint[i];
    if (s < 0 || s >= static_cast<int>(n) || joint_of_source[s] != static_cast<int>(i))
      return invalid_argument("skeleton index maps are not inverse permutations");
  }
  if (!finite_matrix(root_transform)) return invalid_argument("non-finite root transform");
  return Status::ok();
}

Expected<Skeleton> Skeleton::from_unordered(std::vector<std::string> names,
                                            std::span<const int> parents_in_source,
                                            std::vector<Transform> rest_pose,
                                            std::vector<glm::mat4> inverse_bind,
                                            const glm::mat4& root_transform) {
  const int n = static_cast<int>(names.size());
  if (static_cast<int>(parents_in_source.size()) != n || static_cast<int>(rest_pose.size()) != n ||
      static_cast<int>(inverse_bind.size()) != n)
    return invalid_argument("joint arrays differ in size");
  if (n == 0) return invalid_argument("skeleton has no joints");
  if (n > kMaxJoints)
    return invalid_argument("skeleton has " + std::to_string(n) + " joints, more than the limit " +
                            std::to_string(kMaxJoints));
  for (int i = 0; i < n; ++i) {
    int p = parents_in_source[i];
    if (p < -1 || p >= n)
      return invalid_argument("joint '" + names[i] + "' has parent index " + std::to_string(p) +
                              " out of range");
    if (p == i) return invalid_argument("joint '" + names[i] + "' is its own parent");
  }
  // A walk up longer than n steps can only happen on a cycle.
  for (int i = 0; i < n; ++i) {
    int steps = 0;
    for (int j = parents_in_source[i]; j >= 0; j = parents_in_source[j]) {
      if (++steps > n)
        return invalid_argument("joint hierarchy has a cycle through '" + names[i] + "'");
    }
  }
  // Sources that are already parent-first keep their order (so indices match the file);
  // others are emitted depth-first from each root, children in source order.
  std::vector<std::vector<int>> children(n);
  std::vector<int> roots;
  for (int i = 0; i < n; ++i) {
    if (parents_in_source[i] < 0)
      roots.push_back(i);
    else
      children[parents_in_source[i]].push_back(i);
  }
  bool already_parent_first = true;
  for (int i = 0; i < n; ++i)
    if (parents_in_source[i] >= i) already_parent_first = false;

  std::vector<int> order;
  order.reserve(n);
  if (already_parent_first) {
    for (int i = 0; i < n; ++i) order.push_back(i);
  } else {
    std::vector<int> stack(roots.rbegin(), roots.rend());
    while (!stack.empty()) {
      int j = stack.back();
      stack.pop_back();
      order.push_back(j);
      for (auto it = children[j].rbegin(); it != children[j].rend(); ++it) stack.push_back(*it);
    }
  }

  Skeleton s;
  s.joint_of_source.assign(n, -1);
  for (int k = 0; k < n; ++k) s.joint_of_source[order[k]] = k;
  s.source_of_joint = order;
  s.names.reserve(n);
  for (int k = 0; k < n; ++k) {
    int src = order[k];
    s.names.push_back(std::move(names[src]));
    int p = parents_in_source[src];
    s.parents.push_back(static_cast<int16_t>(p < 0 ? -1 : s.joint_of_source[p]));
    s.rest_pose.push_back(rest_pose[src]);
    s.inverse_bind.push_back(inverse_bind[src]);
  }
  s.root_transform = root_transform;
  if (Status st = s.validate(); !st) return st;
  return s;
}

}  // namespace anim
