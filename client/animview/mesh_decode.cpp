#include "mesh_decode.h"

#include <bit>
#include <cmath>
#include <cstring>

namespace animview {
namespace {

// The wire format is little-endian; copying bytes straight into typed arrays is only right on
// a little-endian host (every platform animview targets).
static_assert(std::endian::native == std::endian::little, "animview assumes a little-endian host");

// Copies `bytes` into `out` when it holds exactly `count` values of T.
template <class T>
bool copy_array(const std::string& bytes, size_t count, const char* what, std::vector<T>& out,
                std::string& error) {
  if (bytes.size() != count * sizeof(T)) {
    error = std::string("mesh ") + what + ": " + std::to_string(bytes.size()) +
            " bytes, expected " + std::to_string(count * sizeof(T));
    return false;
  }
  out.resize(count);
  if (count) std::memcpy(out.data(), bytes.data(), bytes.size());
  return true;
}

bool all_finite(const std::vector<float>& v, const char* what, std::string& error) {
  for (size_t i = 0; i < v.size(); ++i) {
    if (!std::isfinite(v[i])) {
      error = std::string("mesh ") + what + ": value " + std::to_string(i) + " is not finite";
      return false;
    }
  }
  return true;
}

void compute_normals(CpuMesh& m) {
  m.normals.assign(m.positions.size(), 0.0f);
  auto pos = [&](uint32_t v) {
    return glm::vec3(m.positions[v * 3], m.positions[v * 3 + 1], m.positions[v * 3 + 2]);
  };
  for (size_t t = 0; t + 2 < m.indices.size(); t += 3) {
    uint32_t a = m.indices[t], b = m.indices[t + 1], c = m.indices[t + 2];
    // The cross product's length is twice the area: larger triangles weigh more.
    glm::vec3 n = glm::cross(pos(b) - pos(a), pos(c) - pos(a));
    for (uint32_t v : {a, b, c})
      for (int k = 0; k < 3; ++k) m.normals[v * 3 + k] += n[k];
  }
  for (uint32_t v = 0; v < m.num_vertices; ++v) {
    glm::vec3 n(m.normals[v * 3], m.normals[v * 3 + 1], m.normals[v * 3 + 2]);
    float len = glm::length(n);
    n = len > 1e-20f ? n / len : glm::vec3(0, 1, 0);
    for (int k = 0; k < 3; ++k) m.normals[v * 3 + k] = n[k];
  }
}

}  // namespace

bool decode_mesh(const anim::v1::MeshData& mesh, uint32_t num_joints, CpuMesh& out,
                 std::string& error) {
  const size_t n = mesh.num_vertices();
  out = CpuMesh{};
  out.num_vertices = mesh.num_vertices();
  if (mesh.indices().size() % (3 * sizeof(uint32_t)) != 0) {
    error = "mesh indices: " + std::to_string(mesh.indices().size()) +
            " bytes is not a whole number of triangles (12 bytes each)";
    return false;
  }
  if (!copy_array(mesh.positions(), n * 3, "positions", out.positions, error) ||
      !copy_array(mesh.joints(), n * 4, "joints", out.joints, error) ||
      !copy_array(mesh.weights(), n * 4, "weights", out.weights, error) ||
      !copy_array(mesh.indices(), mesh.indices().size() / sizeof(uint32_t), "indices", out.indices,
                  error))
    return false;
  if (!all_finite(out.positions, "positions", error) || !all_finite(out.weights, "weights", error))
    return false;
  for (size_t i = 0; i < out.indices.size(); ++i) {
    if (out.indices[i] >= n) {
      error = "mesh indices: index " + std::to_string(i) + " is " + std::to_string(out.indices[i]) +
              ", but there are " + std::to_string(n) + " vertices";
      return false;
    }
  }
  for (size_t v = 0; v < n; ++v) {
    float sum = 0.0f;
    for (int k = 0; k < 4; ++k) {
      float w = out.weights[v * 4 + k];
      if (w < 0.0f) {
        error = "mesh weights: vertex " + std::to_string(v) + " has a negative weight";
        return false;
      }
      // A zero-weight influence may name any joint; only used ones must exist.
      if (w > 0.0f && out.joints[v * 4 + k] >= num_joints) {
        error = "mesh joints: vertex " + std::to_string(v) + " uses joint " +
                std::to_string(out.joints[v * 4 + k]) + ", but the skeleton has " +
                std::to_string(num_joints) + " joints";
        return false;
      }
      if (out.joints[v * 4 + k] >= num_joints) out.joints[v * 4 + k] = 0;
      sum += w;
    }
    if (!(sum > 1e-6f)) {
      error = "mesh weights: vertex " + std::to_string(v) + " has all weights zero";
      return false;
    }
    if (std::abs(sum - 1.0f) > 1e-6f)
      for (int k = 0; k < 4; ++k) out.weights[v * 4 + k] /= sum;
  }
  if (mesh.normals().empty()) {
    compute_normals(out);
  } else {
    if (!copy_array(mesh.normals(), n * 3, "normals", out.normals, error) ||
        !all_finite(out.normals, "normals", error))
      return false;
  }
  if (!decode_morph_sets(mesh, out.morph_sets, error)) return false;
  out.joint_bounds.assign(num_joints, Aabb{});
  auto add_bounds = [&out](size_t v, const glm::vec3& p) {
    out.bounds.add(p);
    for (int k = 0; k < 4; ++k)
      if (out.weights[v * 4 + k] > 0.0f) out.joint_bounds[out.joints[v * 4 + k]].add(p);
  };
  for (size_t v = 0; v < n; ++v)
    add_bounds(v,
               glm::vec3(out.positions[v * 3], out.positions[v * 3 + 1], out.positions[v * 3 + 2]));
  for (const CpuMorphSet& set : out.morph_sets)
    for (const CpuMorphTarget& t : set.targets)
      for (size_t i = 0; i < t.vertices.size(); ++i) {
        const size_t v = t.vertices[i];
        add_bounds(v, glm::vec3(out.positions[v * 3] + t.position_deltas[i * 3],
                                out.positions[v * 3 + 1] + t.position_deltas[i * 3 + 1],
                                out.positions[v * 3 + 2] + t.position_deltas[i * 3 + 2]));
      }
  return true;
}

}  // namespace animview
