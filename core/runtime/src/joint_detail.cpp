#include "anim/joint_detail.h"

#include <algorithm>
#include <limits>

#include "anim/asset.h"
#include "anim/palette.h"
#include "anim/skeleton.h"
#include "anim/skinned_mesh.h"

namespace anim {

namespace {

// Closed under descent: every joint whose parent is listed is listed too.
bool closed_under_descent(const Skeleton& s, std::span<const uint8_t> in) {
  for (int j = 0; j < s.num_joints(); ++j) {
    const int p = s.parents[static_cast<size_t>(j)];
    if (p >= 0 && in[static_cast<size_t>(p)] && !in[static_cast<size_t>(j)]) return false;
  }
  return true;
}

std::vector<int32_t> listed(std::span<const uint8_t> in) {
  std::vector<int32_t> out;
  for (size_t j = 0; j < in.size(); ++j)
    if (in[j]) out.push_back(static_cast<int32_t>(j));
  return out;
}

}  // namespace

std::vector<int32_t> derive_detail_joints(const Skeleton& s, const SkinnedMesh& mesh) {
  const size_t n = static_cast<size_t>(s.num_joints());
  if (n == 0 || s.rest_pose.size() != n) return {};
  std::vector<glm::mat4> model(n);
  local_to_model(s, s.rest_pose, model);
  glm::vec3 lo(std::numeric_limits<float>::max()), hi(std::numeric_limits<float>::lowest());
  auto grow = [&](const glm::vec3& p) {
    lo = glm::min(lo, p);
    hi = glm::max(hi, p);
  };
  // reach[a]: the largest distance from a's parent to a, a joint below it or a vertex one of
  // them moves; each point walks up its joint's chain once (at load: points x depth steps).
  std::vector<float> reach(n, 0.0f);
  auto reach_up = [&](int joint, const glm::vec3& at, std::span<const glm::vec3> parent_at) {
    for (int a = joint; a >= 0; a = s.parents[static_cast<size_t>(a)]) {
      const int p = s.parents[static_cast<size_t>(a)];
      if (p < 0) break;
      float& r = reach[static_cast<size_t>(a)];
      r = std::max(r, glm::length(at - parent_at[static_cast<size_t>(p)]));
    }
  };
  std::vector<glm::vec3> rest_at(n);
  for (size_t j = 0; j < n; ++j) rest_at[j] = glm::vec3(model[j][3]);
  for (size_t j = 0; j < n; ++j) {
    grow(rest_at[j]);
    reach_up(static_cast<int>(j), rest_at[j], rest_at);
  }
  // Vertices are in bind space: measured from the joints' bind origins.
  const bool skinned = s.inverse_bind.size() == n && mesh.joints.size() == mesh.positions.size() &&
                       mesh.weights.size() == mesh.positions.size();
  if (skinned) {
    std::vector<glm::vec3> bind_at(n);
    for (size_t j = 0; j < n; ++j) bind_at[j] = glm::vec3(glm::inverse(s.inverse_bind[j])[3]);
    for (size_t v = 0; v < mesh.positions.size(); ++v) {
      const glm::vec3& at = mesh.positions[v];
      grow(at);
      for (int k = 0; k < 4; ++k) {
        const int j = mesh.joints[v][static_cast<size_t>(k)];
        if (mesh.weights[v][k] >= kDetailWeight && static_cast<size_t>(j) < n)
          reach_up(j, at, bind_at);
      }
    }
  }
  const glm::vec3 side = hi - lo;
  const float limit = kDetailReach * std::max({side.x, side.y, side.z});
  std::vector<uint8_t> detail(n, 0);
  for (size_t j = 0; j < n; ++j) {
    const int p = s.parents[j];
    if (p < 0) continue;
    detail[j] = detail[static_cast<size_t>(p)] || reach[j] <= limit;
  }
  return listed(detail);
}

Expected<std::vector<int32_t>> detail_joints_named(const Skeleton& s,
                                                   std::span<const std::string> names) {
  const size_t n = static_cast<size_t>(s.num_joints());
  std::vector<uint8_t> detail(n, 0);
  for (size_t k = 0; k < names.size(); ++k) {
    const int j = s.find_joint(names[k]);
    const std::string field = "detail_joints[" + std::to_string(k) + "]";
    if (j < 0) return invalid_argument(field + ": no joint '" + names[k] + "' in the skeleton");
    if (s.parents[static_cast<size_t>(j)] < 0)
      return invalid_argument(field + ": '" + names[k] + "' is a root joint");
    detail[static_cast<size_t>(j)] = 1;
  }
  for (size_t j = 0; j < n; ++j) {
    const int p = s.parents[j];
    if (p >= 0 && detail[static_cast<size_t>(p)]) detail[j] = 1;
  }
  return listed(detail);
}

Status set_detail_joints(Asset& asset, std::vector<int32_t> joints) {
  const Skeleton& s = asset.skeleton;
  const size_t n = static_cast<size_t>(s.num_joints());
  std::vector<uint8_t> detail(n, 0);
  for (size_t k = 0; k < joints.size(); ++k) {
    const int32_t j = joints[k];
    if (j < 0 || static_cast<size_t>(j) >= n || (k > 0 && joints[k - 1] >= j))
      return invalid_argument("detail joints must be ascending joint indices");
    if (s.parents[static_cast<size_t>(j)] < 0)
      return invalid_argument("detail joint '" + s.names[static_cast<size_t>(j)] +
                              "' is a root joint");
    detail[static_cast<size_t>(j)] = 1;
  }
  if (!closed_under_descent(s, detail))
    return invalid_argument("detail joints must include every joint below each of them");
  for (Clip& clip : asset.clips)
    if (clip.joints.size() == n) clip.tracks = ClipTracks::build(clip, detail);
  asset.skeleton.detail_joints = std::move(joints);
  asset.detail_joints_set = true;
  return Status::ok();
}

}  // namespace anim
