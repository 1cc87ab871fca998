#pragma once
// What every loader promises about a result, checked on whatever a fuzzer makes it load:
// an error names the input's label; an asset has a valid skeleton, in-range indices, finite
// unit-sum skin weights, finite positions, morph sets whose deltas are finite and lie in their
// ranges, and clips that sample to finite transforms and morph weights.

#include <cmath>
#include <string>
#include <vector>

#include "anim/asset.h"
#include "anim/morph_weights.h"
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
  for (const anim::MorphSet& ms : m.morph_sets) {
    FUZZ_CHECK(ms.num_targets() >= 1);
    FUZZ_CHECK(ms.default_weights.size() == ms.targets.size());
    for (float w : ms.default_weights) FUZZ_CHECK(std::isfinite(w));
    uint64_t end = 0;
    for (const anim::VertexRange& r : ms.ranges) {
      FUZZ_CHECK(r.first_vertex >= end);
      end = uint64_t{r.first_vertex} + r.vertex_count;
      FUZZ_CHECK(end <= static_cast<uint64_t>(verts));
    }
    for (const anim::MorphTarget& t : ms.targets) {
      FUZZ_CHECK(t.position_deltas.size() == t.vertices.size());
      FUZZ_CHECK(t.normal_deltas.empty() || t.normal_deltas.size() == t.vertices.size());
      size_t r = 0;  // the range holding the entry (entries and ranges both ascend)
      for (size_t e = 0; e < t.vertices.size(); ++e) {
        const uint32_t v = t.vertices[e];
        FUZZ_CHECK(e == 0 || v > t.vertices[e - 1]);
        while (r < ms.ranges.size() &&
               uint64_t{ms.ranges[r].first_vertex} + ms.ranges[r].vertex_count <= v)
          ++r;
        FUZZ_CHECK(r < ms.ranges.size() && v >= ms.ranges[r].first_vertex);
        FUZZ_CHECK(anim::is_finite(t.position_deltas[e]));
        if (!t.normal_deltas.empty()) FUZZ_CHECK(anim::is_finite(t.normal_deltas[e]));
      }
    }
  }
  std::vector<anim::Transform> pose(joints);
  std::vector<float> weights;
  for (const anim::Clip& c : a.clips) {
    for (const anim::MorphWeightChannel& ch : c.morph_channels) {
      FUZZ_CHECK(ch.set >= 0 && static_cast<size_t>(ch.set) < m.morph_sets.size());
      FUZZ_CHECK(ch.num_targets == m.morph_sets[ch.set].num_targets());
      weights.resize(ch.num_targets);
      for (float t : {0.0f, c.duration * 0.37f, c.duration, c.duration + 1.0f}) {
        FUZZ_CHECK(anim::sample_morph_weights(c, m, ch.set, t, weights));
        for (float w : weights) FUZZ_CHECK(std::isfinite(w));
      }
    }
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
