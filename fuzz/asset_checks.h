#pragma once
// What every loader promises about a result, checked on whatever a fuzzer makes it load:
// an error names the input's label; an asset has a valid skeleton, in-range indices, finite
// unit-sum skin weights, finite positions, and clips that sample to finite transforms.

#include <cmath>
#include <string>
#include <vector>

#include "anim/asset.h"
#include "anim/status.h"
#include "anim/transform.h"
#include "fuzz_check.h"

namespace animfuzz {

inline bool near(float a, float b, float eps) {
  return a - b <= eps && b - a <= eps;
}

inline void check_asset(const anim::Asset& a) {
  const anim::Skeleton& s = a.skeleton;
  FUZZ_CHECK(s.validate().is_ok());
  const int joints = s.num_joints();
  const anim::SkinnedMesh& m = a.mesh;
  const int verts = m.num_vertices();
  FUZZ_CHECK(m.normals.size() == m.positions.size());
  FUZZ_CHECK(m.joints.size() == m.positions.size());
  FUZZ_CHECK(m.weights.size() == m.positions.size());
  FUZZ_CHECK(m.uvs.empty() || m.uvs.size() == m.positions.size());
  for (int v = 0; v < verts; ++v) {
    FUZZ_CHECK(anim::is_finite(m.positions[v]));
    FUZZ_CHECK(anim::is_finite(m.normals[v]));
    FUZZ_CHECK(near(glm::length(m.normals[v]), 1.0f, 1e-3f));
    const glm::vec4 w = m.weights[v];
    FUZZ_CHECK(w.x >= 0 && w.y >= 0 && w.z >= 0 && w.w >= 0);
    FUZZ_CHECK(near(w.x + w.y + w.z + w.w, 1.0f, 1e-3f));
    for (uint16_t j : m.joints[v]) FUZZ_CHECK(j < joints);
  }
  FUZZ_CHECK(m.indices.size() % 3 == 0);
  for (uint32_t i : m.indices) FUZZ_CHECK(i < static_cast<uint32_t>(verts));
  for (const anim::Submesh& sm : m.submeshes) {
    FUZZ_CHECK(sm.index_count % 3 == 0);
    FUZZ_CHECK(uint64_t{sm.first_index} + sm.index_count <= m.indices.size());
  }
  std::vector<anim::Transform> pose(joints);
  for (const anim::Clip& c : a.clips) {
    FUZZ_CHECK(c.duration >= 0.0f && std::isfinite(c.duration));
    FUZZ_CHECK(static_cast<int>(c.joints.size()) == joints);
    for (float t : {0.0f, c.duration * 0.37f, c.duration, c.duration + 1.0f}) {
      c.sample(t, s.rest_pose, pose);
      for (const anim::Transform& x : pose) FUZZ_CHECK(anim::is_finite(x));
    }
  }
}

// A load result: an error naming `label`, or an asset keeping every invariant.
inline void check_result(const anim::Expected<anim::Asset>& r, const std::string& label) {
  if (!r) {
    FUZZ_CHECK(!r.error().is_ok());
    FUZZ_CHECK(r.error().message().find(label) != std::string::npos);
    return;
  }
  check_asset(*r);
}

}  // namespace animfuzz
