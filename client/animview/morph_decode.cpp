#include "morph_decode.h"

#include <bit>
#include <cmath>
#include <cstring>

namespace animview {
namespace {

static_assert(std::endian::native == std::endian::little, "animview assumes a little-endian host");

std::string label(const anim::v1::MorphSetData& set, int s) {
  return "morph set " + std::to_string(s) + " '" + set.name() + "'";
}

template <class T>
void copy_bytes(const std::string& bytes, std::vector<T>& out) {
  out.resize(bytes.size() / sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));
}

bool all_finite(const std::vector<float>& v) {
  for (float x : v)
    if (!std::isfinite(x)) return false;
  return true;
}

bool decode_ranges(const anim::v1::MorphSetData& in, uint32_t num_vertices, const std::string& what,
                   std::vector<CpuVertexRange>& out, std::string& error) {
  if (in.ranges_size() == 0 || in.ranges_size() % 2 != 0) {
    error = what + ": ranges has " + std::to_string(in.ranges_size()) +
            " values, expected (first_vertex, vertex_count) pairs, at least one";
    return false;
  }
  uint64_t end_of_previous = 0;
  for (int i = 0; i < in.ranges_size(); i += 2) {
    const CpuVertexRange r{in.ranges(i), in.ranges(i + 1)};
    const uint64_t end = uint64_t{r.first} + r.count;
    const std::string which = what + ": range " + std::to_string(i / 2) + " (" +
                              std::to_string(r.first) + ", " + std::to_string(r.count) + ")";
    if (r.count == 0) {
      error = which + " is empty";
      return false;
    }
    if (end > num_vertices) {
      error = which + " ends past the mesh's " + std::to_string(num_vertices) + " vertices";
      return false;
    }
    if (r.first < end_of_previous) {
      error = which + " overlaps or precedes the range before it";
      return false;
    }
    end_of_previous = end;
    out.push_back(r);
  }
  return true;
}

bool decode_target(const anim::v1::MorphTargetData& in, const std::vector<CpuVertexRange>& ranges,
                   const std::string& what, CpuMorphTarget& out, std::string& error) {
  out.name = in.name();
  if (in.vertices().size() % 4 != 0) {
    error = what + ": vertices is " + std::to_string(in.vertices().size()) +
            " bytes, not a whole number of uint32 (4 bytes each)";
    return false;
  }
  const size_t n = in.vertices().size() / 4;
  if (in.position_deltas().size() != 12 * n) {
    error = what + ": position_deltas is " + std::to_string(in.position_deltas().size()) +
            " bytes, expected " + std::to_string(12 * n) + " (3 floats for each of " +
            std::to_string(n) + " vertices)";
    return false;
  }
  if (!in.normal_deltas().empty() && in.normal_deltas().size() != 12 * n) {
    error = what + ": normal_deltas is " + std::to_string(in.normal_deltas().size()) +
            " bytes, expected 0 or " + std::to_string(12 * n) + " (3 floats for each of " +
            std::to_string(n) + " vertices)";
    return false;
  }
  copy_bytes(in.vertices(), out.vertices);
  copy_bytes(in.position_deltas(), out.position_deltas);
  copy_bytes(in.normal_deltas(), out.normal_deltas);
  if (!all_finite(out.position_deltas) || !all_finite(out.normal_deltas)) {
    error = what + ": a delta is not finite";
    return false;
  }
  // Both lists are increasing: one walk checks every vertex against the ranges.
  size_t r = 0;
  for (size_t i = 0; i < n; ++i) {
    const uint32_t v = out.vertices[i];
    if (i > 0 && v <= out.vertices[i - 1]) {
      error = what + ": vertices are not increasing (entry " + std::to_string(i) + " is " +
              std::to_string(v) + " after " + std::to_string(out.vertices[i - 1]) + ")";
      return false;
    }
    while (r < ranges.size() && uint64_t{ranges[r].first} + ranges[r].count <= v) ++r;
    if (r == ranges.size() || v < ranges[r].first) {
      error = what + ": vertex " + std::to_string(i) + " is " + std::to_string(v) +
              ", outside the set's ranges";
      return false;
    }
  }
  return true;
}

}  // namespace

bool decode_morph_sets(const anim::v1::MeshData& mesh, std::vector<CpuMorphSet>& out,
                       std::string& error) {
  out.clear();
  out.reserve(static_cast<size_t>(mesh.morph_sets_size()));
  for (int s = 0; s < mesh.morph_sets_size(); ++s) {
    const anim::v1::MorphSetData& in = mesh.morph_sets(s);
    const std::string what = label(in, s);
    CpuMorphSet& set = out.emplace_back();
    set.name = in.name();
    set.node = in.node();
    if (in.targets_size() == 0) {
      error = what + ": has no targets";
      return false;
    }
    if (in.default_weights_size() != in.targets_size()) {
      error = what + ": " + std::to_string(in.default_weights_size()) + " default weights for " +
              std::to_string(in.targets_size()) + " targets";
      return false;
    }
    set.default_weights.assign(in.default_weights().begin(), in.default_weights().end());
    if (!all_finite(set.default_weights)) {
      error = what + ": a default weight is not finite";
      return false;
    }
    if (!decode_ranges(in, mesh.num_vertices(), what, set.ranges, error)) return false;
    set.targets.resize(static_cast<size_t>(in.targets_size()));
    for (int k = 0; k < in.targets_size(); ++k) {
      const std::string target =
          what + " target " + std::to_string(k) + " '" + in.targets(k).name() + "'";
      if (!decode_target(in.targets(k), set.ranges, target, set.targets[k], error)) return false;
    }
  }
  return true;
}

uint32_t morph_weight_count(const std::vector<CpuMorphSet>& sets) {
  size_t n = 0;
  for (const CpuMorphSet& s : sets) n += s.targets.size();
  return static_cast<uint32_t>(n);
}

std::vector<float> default_morph_weights(const std::vector<CpuMorphSet>& sets) {
  std::vector<float> w;
  for (const CpuMorphSet& s : sets)
    w.insert(w.end(), s.default_weights.begin(), s.default_weights.end());
  return w;
}

void apply_morph_positions(const std::vector<CpuMorphSet>& sets, const float* weights,
                           std::vector<float>& positions) {
  size_t k = 0;
  for (const CpuMorphSet& s : sets) {
    for (const CpuMorphTarget& t : s.targets) {
      const float w = weights[k++];
      if (w == 0.0f) continue;
      for (size_t i = 0; i < t.vertices.size(); ++i)
        for (int c = 0; c < 3; ++c)
          positions[3 * size_t{t.vertices[i]} + c] += w * t.position_deltas[3 * i + c];
    }
  }
}

}  // namespace animview
