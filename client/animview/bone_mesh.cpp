#include "bone_mesh.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include <glm/glm.hpp>

namespace animview {

namespace {

void add_vertex(CpuMesh& m, const glm::vec3& p, const glm::vec3& normal, uint16_t joint) {
  m.positions.insert(m.positions.end(), {p.x, p.y, p.z});
  m.normals.insert(m.normals.end(), {normal.x, normal.y, normal.z});
  m.joints.insert(m.joints.end(), {joint, 0, 0, 0});
  m.weights.insert(m.weights.end(), {1.0f, 0.0f, 0.0f, 0.0f});
  ++m.num_vertices;
}

// A quad of 4 vertices (two triangles) with one normal; corner k is bound to joints[k].
void add_quad(CpuMesh& m, const glm::vec3 (&corner)[4], const uint16_t (&joint)[4],
              const glm::vec3& normal) {
  const uint32_t first = m.num_vertices;
  for (int k = 0; k < 4; ++k) add_vertex(m, corner[k], normal, joint[k]);
  m.indices.insert(m.indices.end(), {first, first + 1, first + 2, first, first + 2, first + 3});
}

// A box from `a` (half width wa, bound to joint ja) to `b` (half width wb, joint jb):
// four sides and two end caps, each flat-shaded.
void add_box(CpuMesh& m, const glm::vec3& a, const glm::vec3& b, float wa, float wb, uint16_t ja,
             uint16_t jb) {
  const glm::vec3 d = glm::normalize(b - a);
  const glm::vec3 helper = std::fabs(d.y) < 0.9f ? glm::vec3(0, 1, 0) : glm::vec3(1, 0, 0);
  const glm::vec3 u = glm::normalize(glm::cross(d, helper));
  const glm::vec3 v = glm::cross(d, u);
  const glm::vec3 ring[4] = {u + v, -u + v, -u - v, u - v};
  glm::vec3 at_a[4], at_b[4];
  for (int k = 0; k < 4; ++k) {
    at_a[k] = a + wa * ring[k];
    at_b[k] = b + wb * ring[k];
  }
  for (int k = 0; k < 4; ++k) {
    const int n = (k + 1) % 4;
    const glm::vec3 side[4] = {at_a[k], at_a[n], at_b[n], at_b[k]};
    glm::vec3 normal = glm::normalize(glm::cross(at_a[n] - at_a[k], at_b[k] - at_a[k]));
    if (glm::dot(normal, ring[k] + ring[n]) < 0.0f) normal = -normal;  // outwards
    add_quad(m, side, {ja, ja, jb, jb}, normal);
  }
  add_quad(m, at_a, {ja, ja, ja, ja}, -d);
  add_quad(m, at_b, {jb, jb, jb, jb}, d);
}

bool all_finite(const glm::mat4& m) {
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r)
      if (!std::isfinite(m[c][r])) return false;
  return true;
}

}  // namespace

bool build_bone_mesh(const anim::v1::SkeletonData& skeleton, CpuMesh& out, std::string& error) {
  out = CpuMesh{};
  const int n = skeleton.joint_names_size();
  if (n == 0) {
    error = "the skeleton has no joints";
    return false;
  }
  if (n > 65536) {
    error = "the skeleton has " + std::to_string(n) + " joints, more than 16-bit indices reach";
    return false;
  }
  if (skeleton.parents_size() != n || skeleton.inverse_bind_size() != 16 * n) {
    error = "skeleton arrays differ in size: " + std::to_string(n) + " joints, " +
            std::to_string(skeleton.parents_size()) + " parents, " +
            std::to_string(skeleton.inverse_bind_size()) + " inverse bind floats";
    return false;
  }
  std::vector<glm::vec3> bind(n);
  for (int j = 0; j < n; ++j) {
    const int p = skeleton.parents(j);
    if (p < -1 || p >= j) {
      error = "joint " + std::to_string(j) + " has parent " + std::to_string(p) +
              ": parents must come before their children";
      return false;
    }
    glm::mat4 inverse_bind;
    for (int c = 0; c < 4; ++c)
      for (int r = 0; r < 4; ++r) inverse_bind[c][r] = skeleton.inverse_bind(16 * j + 4 * c + r);
    const float det = glm::determinant(inverse_bind);
    if (!all_finite(inverse_bind) || !std::isfinite(det) || std::fabs(det) < 1e-30f) {
      error = "joint " + std::to_string(j) + " has a non-finite or singular inverse bind matrix";
      return false;
    }
    bind[j] = glm::vec3(glm::inverse(inverse_bind)[3]);
    if (!std::isfinite(bind[j].x + bind[j].y + bind[j].z)) {
      error = "joint " + std::to_string(j) + " has a non-finite bind position";
      return false;
    }
  }
  Aabb joints_box;
  for (const glm::vec3& p : bind) joints_box.add(p);
  const glm::vec3 extent = joints_box.size();
  float size = std::max({extent.x, extent.y, extent.z});
  if (!(size > 0.0f) || !std::isfinite(size)) size = 1.0f;
  const float w = kBoneHalfWidth * size;

  std::vector<bool> drawn(n, false);
  for (int j = 0; j < n; ++j) {
    const int p = skeleton.parents(j);
    if (p < 0 || glm::length(bind[j] - bind[p]) < 1e-6f * size) continue;
    add_box(out, bind[p], bind[j], w, 0.6f * w, static_cast<uint16_t>(p), static_cast<uint16_t>(j));
    drawn[p] = drawn[j] = true;
  }
  // A joint no bone reaches (a lone root, bones of length zero all round): a small cube.
  for (int j = 0; j < n; ++j)
    if (!drawn[j]) {
      const glm::vec3 half(0.0f, 1.5f * w, 0.0f);
      const auto k = static_cast<uint16_t>(j);
      add_box(out, bind[j] - half, bind[j] + half, 1.5f * w, 1.5f * w, k, k);
    }

  out.joint_bounds.assign(n, Aabb{});
  for (uint32_t v = 0; v < out.num_vertices; ++v) {
    const glm::vec3 p(out.positions[v * 3], out.positions[v * 3 + 1], out.positions[v * 3 + 2]);
    out.bounds.add(p);
    out.joint_bounds[out.joints[v * 4]].add(p);
  }
  return true;
}

}  // namespace animview
