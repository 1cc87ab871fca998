// glTF mesh primitives -> SkinnedMesh (triangles only), joints mapped to skeleton order, and
// their morph targets -> SkinnedMesh::morph_sets.
#include <algorithm>
#include <array>
#include <cmath>
#include <set>
#include <unordered_set>
#include <utility>

#include "gltf_internal.h"

namespace anim::gltf {

namespace {

// One morph target of one primitive, a delta per vertex of the primitive.
struct TargetDeltas {
  std::vector<glm::vec3> positions;  // empty when the target has no POSITION
  std::vector<glm::vec3> normals;    // empty when the target has no NORMAL
  int accessor = -1;                 // POSITION's accessor, else NORMAL's (for messages)
  std::string what;                  // names that accessor's use in messages
};

// One primitive's vertex attributes before they join the mesh.
struct Primitive {
  std::vector<glm::vec3> positions, normals;
  std::vector<glm::vec2> uvs;
  std::vector<std::array<uint16_t, 4>> joints;
  std::vector<glm::vec4> weights;
  std::vector<uint32_t> indices;  // primitive-local
  std::vector<TargetDeltas> targets;
};

std::string mesh_label(const tinygltf::Model& m, int mesh) {
  std::string s = "mesh " + std::to_string(mesh);
  if (!m.meshes[mesh].name.empty()) s += " '" + m.meshes[mesh].name + "'";
  return s;
}

int attribute(const tinygltf::Primitive& p, const char* name) {
  auto it = p.attributes.find(name);
  return it == p.attributes.end() ? -1 : it->second;
}

Expected<std::vector<glm::vec3>> read_vec3(const Context& ctx, int accessor, size_t count,
                                           const std::string& what) {
  Expected<AccessorData> d = read_accessor(ctx, accessor, {TINYGLTF_TYPE_VEC3}, what);
  if (!d) return d.error();
  if (count != 0 && d->count != count)
    return ctx.fail(StatusCode::kDataLoss, what + ": " + std::to_string(d->count) +
                                               " elements, POSITION has " + std::to_string(count));
  std::vector<glm::vec3> out(d->count);
  for (size_t i = 0; i < d->count; ++i) {
    for (int c = 0; c < 3; ++c) {
      const double v = d->values[3 * i + c];
      if (!std::isfinite(v) || std::abs(v) > 3.0e38)
        return ctx.fail(StatusCode::kInvalidArgument,
                        what + ": vertex " + std::to_string(i) + " is NaN or infinite");
      out[i][c] = static_cast<float>(v);
    }
  }
  return out;
}

// A morph target's POSITION or NORMAL deltas: VEC3, float or normalized integers (as
// KHR_mesh_quantization allows), `count` elements (the primitive's POSITION count).
Expected<std::vector<glm::vec3>> read_deltas(const Context& ctx, int accessor, size_t count,
                                             const std::string& what) {
  AccessorSpec spec{TINYGLTF_TYPE_VEC3};
  spec.allow_normalized = true;
  Expected<AccessorData> d = read_accessor(ctx, accessor, spec, what);
  if (!d) return d.error();
  const std::string named = what + " (accessor " + std::to_string(accessor) + ")";
  if (d->count != count)
    return ctx.fail(StatusCode::kDataLoss, named + ": " + std::to_string(d->count) +
                                               " elements, POSITION has " + std::to_string(count));
  std::vector<glm::vec3> out(d->count);
  for (size_t i = 0; i < d->count; ++i)
    for (int c = 0; c < 3; ++c) {
      const double v = d->values[3 * i + c];
      if (!std::isfinite(v) || std::abs(v) > 3.0e38)
        return ctx.fail(StatusCode::kInvalidArgument,
                        named + ": vertex " + std::to_string(i) + " is NaN or infinite");
      out[i][c] = static_cast<float>(v);
    }
  return out;
}

// Every morph target of a primitive (the plan has checked their count).
Status read_targets(const Context& ctx, const tinygltf::Primitive& prim, const std::string& label,
                    Primitive* p) {
  const size_t nv = p->positions.size();
  std::set<std::string> ignored;
  p->targets.resize(prim.targets.size());
  for (size_t k = 0; k < prim.targets.size(); ++k) {
    TargetDeltas& t = p->targets[k];
    const std::string tl = label + " target " + std::to_string(k);
    for (const auto& [name, accessor] : prim.targets[k]) {
      if (name != "POSITION" && name != "NORMAL") {
        ignored.insert(name);
        continue;
      }
      Expected<std::vector<glm::vec3>> d = read_deltas(ctx, accessor, nv, tl + " " + name);
      if (!d) return d.error();
      (name == "POSITION" ? t.positions : t.normals) = std::move(*d);
      if (name == "POSITION" || t.accessor < 0) {
        t.accessor = accessor;
        t.what = tl + " " + name + " (accessor " + std::to_string(accessor) + ")";
      }
    }
    if (t.accessor < 0) t.what = tl;
  }
  if (!ignored.empty()) {
    std::string list;
    for (const std::string& name : ignored) list += (list.empty() ? "" : ", ") + name;
    ctx.warn(label + ": morph target attributes " + list +
             " ignored (only POSITION and NORMAL deltas are loaded)");
  }
  return Status::ok();
}

// Area-weighted vertex normals from the triangles (flat for unshared vertices).
void generate_normals(Primitive* p) {
  p->normals.assign(p->positions.size(), glm::vec3(0.0f));
  for (size_t t = 0; t + 2 < p->indices.size(); t += 3) {
    const uint32_t a = p->indices[t], b = p->indices[t + 1], c = p->indices[t + 2];
    const glm::vec3 n =
        glm::cross(p->positions[b] - p->positions[a], p->positions[c] - p->positions[a]);
    p->normals[a] += n;
    p->normals[b] += n;
    p->normals[c] += n;
  }
}

// Every vertex bound to `joint` with weight 1 (a mesh rigidly attached to a joint node).
void bind_rigidly(int joint, Primitive* p) {
  const size_t nv = p->positions.size();
  p->joints.assign(nv, {static_cast<uint16_t>(joint), 0, 0, 0});
  p->weights.assign(nv, glm::vec4(1.0f, 0.0f, 0.0f, 0.0f));
}

// JOINTS_n / WEIGHTS_n pairs into the 4 strongest influences per vertex, weights summing to 1,
// joint indices in skeleton order (through the part's skin joint -> source map).
Status read_skinning(const Context& ctx, const tinygltf::Primitive& prim, const Skeleton& skeleton,
                     const MeshPart& part, const std::string& label, Primitive* p) {
  const size_t nv = p->positions.size();
  const int skin_joints = static_cast<int>(part.source_of_skin_joint.size());
  std::vector<std::vector<std::pair<float, int>>> influences(nv);
  for (int set = 0;; ++set) {
    const std::string jn = "JOINTS_" + std::to_string(set), wn = "WEIGHTS_" + std::to_string(set);
    const int ja = attribute(prim, jn.c_str()), wa = attribute(prim, wn.c_str());
    if (ja < 0 && wa < 0) {
      if (set == 0)
        return ctx.fail(StatusCode::kInvalidArgument,
                        label + ": skinned primitive has no JOINTS_0 / WEIGHTS_0");
      break;
    }
    if (ja < 0 || wa < 0)
      return ctx.fail(StatusCode::kInvalidArgument, label + ": " + (ja < 0 ? jn : wn) +
                                                        " is missing (" + (ja < 0 ? wn : jn) +
                                                        " is present)");
    AccessorSpec jspec{TINYGLTF_TYPE_VEC4};
    jspec.allow_float = false;
    jspec.allow_unsigned_int = true;
    Expected<AccessorData> j = read_accessor(ctx, ja, jspec, label + " " + jn);
    if (!j) return j.error();
    AccessorSpec wspec{TINYGLTF_TYPE_VEC4};
    wspec.allow_normalized = true;
    Expected<AccessorData> w = read_accessor(ctx, wa, wspec, label + " " + wn);
    if (!w) return w.error();
    if (j->count != nv || w->count != nv)
      return ctx.fail(StatusCode::kDataLoss, label + ": " + jn + " / " + wn + " have " +
                                                 std::to_string(j->count) + " / " +
                                                 std::to_string(w->count) +
                                                 " elements, POSITION has " + std::to_string(nv));
    for (size_t v = 0; v < nv; ++v)
      for (int c = 0; c < 4; ++c) {
        const double joint = j->values[4 * v + c];
        const double weight = w->values[4 * v + c];
        if (joint >= skin_joints)
          return ctx.fail(StatusCode::kInvalidArgument,
                          label + " " + jn + ": vertex " + std::to_string(v) + " uses joint " +
                              std::to_string(static_cast<int64_t>(joint)) + ", but the skin has " +
                              std::to_string(skin_joints) + " joints (joint index out of range)");
        if (!std::isfinite(weight) || weight < 0.0)
          return ctx.fail(
              StatusCode::kInvalidArgument,
              label + " " + wn + ": vertex " + std::to_string(v) + " has a negative or NaN weight");
        if (weight > 0.0)
          influences[v].emplace_back(
              static_cast<float>(weight),
              skeleton.joint_of_source[part.source_of_skin_joint[static_cast<int>(joint)]]);
      }
  }
  p->joints.assign(nv, {0, 0, 0, 0});
  p->weights.assign(nv, glm::vec4(0.0f));
  size_t unweighted = 0;
  for (size_t v = 0; v < nv; ++v) {
    auto& inf = influences[v];
    // Strongest first; ties by joint index so the result does not depend on the sort.
    std::sort(inf.begin(), inf.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    if (inf.size() > 4) inf.resize(4);
    float sum = 0.0f;
    for (const auto& [weight, joint] : inf) sum += weight;
    if (!(sum > 0.0f)) {
      // No influence at all: pin the vertex to the first joint rather than collapse it.
      ++unweighted;
      p->weights[v] = glm::vec4(1.0f, 0.0f, 0.0f, 0.0f);
      continue;
    }
    for (size_t k = 0; k < inf.size(); ++k) {
      p->joints[v][k] = static_cast<uint16_t>(inf[k].second);
      p->weights[v][static_cast<int>(k)] = inf[k].first / sum;
    }
  }
  if (unweighted > 0)
    ctx.warn(label + ": " + std::to_string(unweighted) +
             " vertices have no joint weight; bound to joint 0");
  return Status::ok();
}

// Triangle i of a strip is (v[i], v[i+1], v[i+2]) with the first two swapped on odd i, so
// that every triangle keeps the winding of the first (glTF 2.0 spec, section 3.7.2.1).
std::vector<uint32_t> strip_to_list(const std::vector<uint32_t>& strip) {
  std::vector<uint32_t> list;
  list.reserve(3 * (strip.size() - 2));
  for (size_t i = 0; i + 2 < strip.size(); ++i) {
    const bool odd = (i & 1u) != 0;
    list.push_back(strip[i]);
    list.push_back(strip[odd ? i + 2 : i + 1]);
    list.push_back(strip[odd ? i + 1 : i + 2]);
  }
  return list;
}

// Triangle i of a fan is (v[i+1], v[i+2], v[0]) (same spec section).
std::vector<uint32_t> fan_to_list(const std::vector<uint32_t>& fan) {
  std::vector<uint32_t> list;
  list.reserve(3 * (fan.size() - 2));
  for (size_t i = 0; i + 2 < fan.size(); ++i) {
    list.push_back(fan[i + 1]);
    list.push_back(fan[i + 2]);
    list.push_back(fan[0]);
  }
  return list;
}

// Reads one triangle primitive (list, strip or fan; strips and fans become lists). `ok == false`
// with an OK status means "skipped with a warning".
Status read_primitive(const Context& ctx, const tinygltf::Primitive& prim, const Skeleton& skeleton,
                      const MeshPart& part, const std::string& label, Primitive* p, bool* ok) {
  *ok = false;
  const int mode = prim.mode < 0 ? TINYGLTF_MODE_TRIANGLES : prim.mode;
  if (mode != TINYGLTF_MODE_TRIANGLES && mode != TINYGLTF_MODE_TRIANGLE_STRIP &&
      mode != TINYGLTF_MODE_TRIANGLE_FAN) {
    ctx.warn(label + ": primitive mode " + std::to_string(mode) +
             " is not a triangle list, strip or fan; skipped");
    return Status::ok();
  }
  const int pa = attribute(prim, "POSITION");
  if (pa < 0) {
    ctx.warn(label + ": no POSITION attribute; skipped");
    return Status::ok();
  }
  Expected<std::vector<glm::vec3>> pos = read_vec3(ctx, pa, 0, label + " POSITION");
  if (!pos) return pos.error();
  p->positions = std::move(*pos);
  const size_t nv = p->positions.size();

  if (prim.indices >= 0) {
    AccessorSpec ispec{TINYGLTF_TYPE_SCALAR};
    ispec.allow_float = false;
    ispec.allow_unsigned_int = true;
    Expected<AccessorData> idx = read_accessor(ctx, prim.indices, ispec, label + " indices");
    if (!idx) return idx.error();
    p->indices.resize(idx->count);
    for (size_t i = 0; i < idx->count; ++i) {
      const double v = idx->values[i];
      if (v >= static_cast<double>(nv))
        return ctx.fail(StatusCode::kDataLoss, label + ": index " + std::to_string(i) + " is " +
                                                   std::to_string(static_cast<uint64_t>(v)) +
                                                   ", beyond the " + std::to_string(nv) +
                                                   " vertices");
      p->indices[i] = static_cast<uint32_t>(v);
    }
  } else {
    p->indices.resize(nv);
    for (size_t i = 0; i < nv; ++i) p->indices[i] = static_cast<uint32_t>(i);
  }
  if (mode != TINYGLTF_MODE_TRIANGLES) {
    if (p->indices.size() < 3)
      return ctx.fail(StatusCode::kDataLoss,
                      label + ": triangle " +
                          (mode == TINYGLTF_MODE_TRIANGLE_STRIP ? "strip" : "fan") + " has " +
                          std::to_string(p->indices.size()) + " indices, fewer than one triangle");
    p->indices =
        mode == TINYGLTF_MODE_TRIANGLE_STRIP ? strip_to_list(p->indices) : fan_to_list(p->indices);
  }
  if (p->indices.size() % 3 != 0)
    return ctx.fail(StatusCode::kDataLoss, label + ": " + std::to_string(p->indices.size()) +
                                               " indices is not a whole number of triangles");

  if (const int na = attribute(prim, "NORMAL"); na >= 0) {
    Expected<std::vector<glm::vec3>> n = read_vec3(ctx, na, nv, label + " NORMAL");
    if (!n) return n.error();
    p->normals = std::move(*n);
  } else {
    generate_normals(p);
  }
  // Divided by the largest component before normalizing: squaring a component above ~1.8e19
  // overflows a float, and dividing by that infinite length gave a zero "normal" (found by
  // fuzz/gltf_fuzz.cpp). Generated normals of huge triangles can be infinite or NaN (inf - inf
  // in a cross product; std::max then skips a NaN component, found by the same fuzzer): any
  // non-finite component, like a zero normal, gives +Y.
  for (glm::vec3& n : p->normals) {
    const float m = std::max({std::abs(n.x), std::abs(n.y), std::abs(n.z)});
    n = is_finite(n) && m > 1e-20f ? glm::normalize(n / m) : glm::vec3(0.0f, 1.0f, 0.0f);
  }

  if (const int ua = attribute(prim, "TEXCOORD_0"); ua >= 0) {
    AccessorSpec uspec{TINYGLTF_TYPE_VEC2};
    uspec.allow_normalized = true;
    Expected<AccessorData> uv = read_accessor(ctx, ua, uspec, label + " TEXCOORD_0");
    if (!uv) return uv.error();
    if (uv->count != nv)
      return ctx.fail(StatusCode::kDataLoss, label + ": TEXCOORD_0 has " +
                                                 std::to_string(uv->count) +
                                                 " elements, POSITION has " + std::to_string(nv));
    p->uvs.resize(nv);
    for (size_t i = 0; i < nv; ++i) {
      const double u = uv->values[2 * i], v = uv->values[2 * i + 1];
      if (!std::isfinite(u) || !std::isfinite(v))
        return ctx.fail(StatusCode::kInvalidArgument,
                        label + " TEXCOORD_0: vertex " + std::to_string(i) + " is NaN");
      p->uvs[i] = glm::vec2(u, v);
    }
  }
  if (part.rigid_source >= 0)
    bind_rigidly(skeleton.joint_of_source[part.rigid_source], p);
  else if (Status s = read_skinning(ctx, prim, skeleton, part, label, p); !s)
    return s;
  if (Status s = read_targets(ctx, prim, label, p); !s) return s;
  *ok = true;
  return Status::ok();
}

// Moves a primitive into bind space: positions by `m`, normals by its inverse transpose; a
// mirroring `m` reverses the triangles' winding so that they stay front-facing. False (the
// primitive is then refused) when a position leaves the float range: finite node matrices
// and positions can still multiply past it (found by fuzz/gltf_fuzz.cpp).
//
// Morph deltas are differences of positions and normals, so they take the linear part of `m`
// only. A normal delta dn of a vertex with normal n becomes normal_matrix * dn / |normal_matrix
// * n|: n + w dn then maps to a vector along normal_matrix * (n + w dn), so the morphed normal
// keeps the direction the source gives it, whatever the weights.
bool to_bind_space(const glm::dmat4& m, Primitive* p) {
  if (m == glm::dmat4(1.0)) return true;
  const glm::dmat3 linear(m);
  const glm::dmat3 normal_matrix = glm::transpose(glm::inverse(linear));
  for (glm::vec3& v : p->positions) {
    v = glm::vec3(m * glm::dvec4(glm::dvec3(v), 1.0));
    if (!is_finite(v)) return false;
  }
  bool normal_deltas = false;
  for (TargetDeltas& t : p->targets) {
    for (glm::vec3& d : t.positions) {
      d = glm::vec3(linear * glm::dvec3(d));
      if (!is_finite(d)) return false;
    }
    normal_deltas |= !t.normals.empty();
  }
  // Per vertex, 1 / |normal_matrix * n| for the normal deltas (0 where that is not finite).
  std::vector<double> normal_scale(normal_deltas ? p->normals.size() : 0, 0.0);
  for (size_t i = 0; i < p->normals.size(); ++i) {
    glm::vec3& n = p->normals[i];
    // A near-singular `m` has an inverse with huge components: dividing by the largest one
    // first keeps the length finite; a singular one gives non-finite components, and those
    // normals, like zero ones, become +Y (as in read_primitive).
    const glm::dvec3 t = normal_matrix * glm::dvec3(n);
    const bool finite = std::isfinite(t.x) && std::isfinite(t.y) && std::isfinite(t.z);
    const double big = std::max({std::abs(t.x), std::abs(t.y), std::abs(t.z)});
    const bool usable = finite && big > 1e-20;
    n = usable ? glm::vec3(glm::normalize(t / big)) : glm::vec3(0.0f, 1.0f, 0.0f);
    if (normal_deltas && usable) {
      const double len = big * glm::length(t / big);
      normal_scale[i] = std::isfinite(1.0 / len) ? 1.0 / len : 0.0;
    }
  }
  for (TargetDeltas& t : p->targets)
    for (size_t i = 0; i < t.normals.size(); ++i) {
      glm::vec3& d = t.normals[i];
      d = glm::vec3(normal_scale[i] * (normal_matrix * glm::dvec3(d)));
      if (!is_finite(d)) d = glm::vec3(0.0f);
    }
  if (glm::determinant(glm::dmat3(m)) < 0.0)
    for (size_t t = 0; t + 2 < p->indices.size(); t += 3)
      std::swap(p->indices[t + 1], p->indices[t + 2]);
  return true;
}

// The target names of a mesh: extras.targetNames when it is an array of one distinct,
// non-empty string per target, else "target<i>" (with a warning when targetNames is there).
std::vector<std::string> target_names(const Context& ctx, int mi, int count) {
  const tinygltf::Mesh& gm = ctx.model.meshes[mi];
  std::vector<std::string> names;
  if (gm.extras.IsObject() && gm.extras.Has("targetNames")) {
    const tinygltf::Value& list = gm.extras.Get("targetNames");
    std::unordered_set<std::string> seen;
    if (list.IsArray() && static_cast<int>(list.ArrayLen()) == count)
      for (int k = 0; k < count; ++k) {
        const tinygltf::Value& v = list.Get(k);
        if (!v.IsString() || v.Get<std::string>().empty() ||
            !seen.insert(v.Get<std::string>()).second)
          break;
        names.push_back(v.Get<std::string>());
      }
    if (static_cast<int>(names.size()) != count) {
      ctx.warn(mesh_label(ctx.model, mi) + ": extras.targetNames is not a list of " +
               std::to_string(count) + " distinct non-empty names; targets named target0, ...");
      names.clear();
    }
  }
  if (names.empty())
    for (int k = 0; k < count; ++k) names.push_back("target" + std::to_string(k));
  return names;
}

// The default weights of a mesh node's morph set: node.weights, else mesh.weights, else 0.
Expected<std::vector<float>> default_weights(const Context& ctx, int node, int mi, int count) {
  const tinygltf::Model& m = ctx.model;
  const bool from_node = !m.nodes[node].weights.empty();
  const std::vector<double>& w = from_node ? m.nodes[node].weights : m.meshes[mi].weights;
  const std::string what =
      from_node ? node_label(m, node) + " weights" : mesh_label(m, mi) + " weights";
  if (w.empty()) return std::vector<float>(count, 0.0f);
  if (static_cast<int>(w.size()) != count)
    return ctx.fail(StatusCode::kInvalidArgument, what + ": " + std::to_string(w.size()) +
                                                      " weights for " + std::to_string(count) +
                                                      " morph targets");
  std::vector<float> out(count);
  for (int k = 0; k < count; ++k) {
    if (!std::isfinite(w[k]) || std::abs(w[k]) > 1e30)
      return ctx.fail(StatusCode::kInvalidArgument,
                      what + ": weight " + std::to_string(k) + " is NaN or infinite");
    out[k] = static_cast<float>(w[k]);
  }
  return out;
}

// An empty morph set for part `node` (names and default weights; no vertices yet).
Expected<MorphSet> start_morph_set(const Context& ctx, int node, int count) {
  const tinygltf::Model& m = ctx.model;
  const int mi = m.nodes[node].mesh;
  MorphSet set;
  set.name = m.meshes[mi].name.empty() ? "mesh_" + std::to_string(mi) : m.meshes[mi].name;
  set.node = m.nodes[node].name.empty() ? "node_" + std::to_string(node) : m.nodes[node].name;
  Expected<std::vector<float>> w = default_weights(ctx, node, mi, count);
  if (!w) return w.error();
  set.default_weights = std::move(*w);
  const std::vector<std::string> names = target_names(ctx, mi, count);
  set.targets.resize(count);
  for (int k = 0; k < count; ++k) set.targets[k].name = names[k];
  return set;
}

// Appends the vertices of primitive `p` (its first vertex at `base` in the merged arrays) that
// each target moves. `delta_bytes` is what the file's targets keep so far.
Status add_morph_vertices(const Context& ctx, const Primitive& p, uint32_t base, MorphSet* set,
                          size_t* delta_bytes) {
  const size_t nv = p.positions.size();
  set->ranges.push_back({base, static_cast<uint32_t>(nv)});
  const glm::vec3 zero(0.0f);
  for (size_t k = 0; k < p.targets.size(); ++k) {
    const TargetDeltas& d = p.targets[k];
    MorphTarget& t = set->targets[k];
    const bool has_pos = !d.positions.empty(), has_nrm = !d.normals.empty();
    size_t moved = 0;
    for (size_t v = 0; v < nv; ++v)
      moved += (has_pos && d.positions[v] != zero) || (has_nrm && d.normals[v] != zero);
    // Normal deltas are kept for every entry of a target once one primitive has them.
    const bool normals = has_nrm || !t.normal_deltas.empty();
    const size_t bytes =
        moved * (sizeof(uint32_t) + sizeof(glm::vec3) + (normals ? sizeof(glm::vec3) : 0)) +
        (has_nrm && t.normal_deltas.empty() ? t.vertices.size() * sizeof(glm::vec3) : 0);
    const size_t limit = ctx.budget->limits().max_morph_delta_bytes;
    if (bytes > limit - std::min(limit, *delta_bytes))
      return ctx.fail(StatusCode::kResourceExhausted,
                      d.what + ": the morph targets would keep " +
                          std::to_string(*delta_bytes + bytes) + " bytes of deltas, more than " +
                          "the limit of " + std::to_string(limit) + " (max_morph_delta_bytes)");
    if (Status s = ctx.budget->charge(bytes, d.what); !s) return ctx.fail(s.code(), s.message());
    *delta_bytes += bytes;
    if (has_nrm && t.normal_deltas.empty()) t.normal_deltas.assign(t.vertices.size(), zero);
    for (size_t v = 0; v < nv; ++v) {
      const glm::vec3 dp = has_pos ? d.positions[v] : zero;
      const glm::vec3 dn = has_nrm ? d.normals[v] : zero;
      if (dp == zero && dn == zero) continue;
      t.vertices.push_back(base + static_cast<uint32_t>(v));
      t.position_deltas.push_back(dp);
      if (normals) t.normal_deltas.push_back(dn);
    }
  }
  return Status::ok();
}

}  // namespace

Expected<MorphPlan> plan_morph_sets(const Context& ctx, const std::vector<MeshPart>& parts) {
  const tinygltf::Model& m = ctx.model;
  MorphPlan plan;
  plan.set_of_part.assign(parts.size(), -1);
  plan.set_of_node.assign(m.nodes.size(), -1);
  const int limit = ctx.budget->limits().max_morph_targets_per_mesh;
  for (size_t pi = 0; pi < parts.size(); ++pi) {
    const int node = parts[pi].node;
    const int mi = m.nodes[node].mesh;
    if (mi < 0 || mi >= static_cast<int>(m.meshes.size())) continue;  // load_mesh refuses it
    const tinygltf::Mesh& gm = m.meshes[mi];
    if (gm.primitives.empty()) continue;
    const size_t count = gm.primitives[0].targets.size();
    for (size_t p = 1; p < gm.primitives.size(); ++p)
      if (gm.primitives[p].targets.size() != count)
        return ctx.fail(StatusCode::kInvalidArgument,
                        mesh_label(m, mi) + ": primitive " + std::to_string(p) + " has " +
                            std::to_string(gm.primitives[p].targets.size()) +
                            " morph targets, primitive 0 has " + std::to_string(count) +
                            " (every primitive of a mesh must have the same targets)");
    if (count == 0) continue;
    if (count > static_cast<size_t>(std::max(limit, 0)))
      return ctx.fail(StatusCode::kResourceExhausted,
                      mesh_label(m, mi) + ": " + std::to_string(count) +
                          " morph targets, more than the limit of " + std::to_string(limit) +
                          " (max_morph_targets_per_mesh)");
    plan.set_of_part[pi] = static_cast<int>(plan.num_targets.size());
    plan.set_of_node[node] = plan.set_of_part[pi];
    plan.num_targets.push_back(static_cast<int>(count));
  }
  return plan;
}

Status load_mesh(const Context& ctx, const std::vector<MeshPart>& parts, const Skeleton& skeleton,
                 const MorphPlan& morphs, SkinnedMesh* mesh) {
  const tinygltf::Model& m = ctx.model;
  SkinnedMesh out;
  bool any_uvs = false;
  size_t delta_bytes = 0;
  for (size_t part_index = 0; part_index < parts.size(); ++part_index) {
    const MeshPart& part = parts[part_index];
    const int node = part.node;
    const int mi = m.nodes[node].mesh;
    if (mi >= static_cast<int>(m.meshes.size()))
      return ctx.fail(StatusCode::kDataLoss, node_label(m, node) + " uses mesh " +
                                                 std::to_string(mi) + ", which does not exist");
    const tinygltf::Mesh& gm = m.meshes[mi];
    const int set_index = morphs.set_of_part[part_index];
    MorphSet* set = nullptr;
    if (set_index >= 0) {
      Expected<MorphSet> started = start_morph_set(ctx, node, morphs.num_targets[set_index]);
      if (!started) return started.error();
      out.morph_sets.push_back(std::move(*started));
      set = &out.morph_sets.back();
    }
    for (size_t pi = 0; pi < gm.primitives.size(); ++pi) {
      const tinygltf::Primitive& prim = gm.primitives[pi];
      const std::string label = "mesh " + std::to_string(mi) +
                                (gm.name.empty() ? "" : " '" + gm.name + "'") + " primitive " +
                                std::to_string(pi);
      if (Status s = ctx.budget->check_time(label); !s) return ctx.fail(s.code(), s.message());
      Primitive p;
      bool ok = false;
      if (Status s = read_primitive(ctx, prim, skeleton, part, label, &p, &ok); !s) return s;
      if (!ok) continue;
      if (!to_bind_space(part.to_bind, &p))
        return ctx.fail(
            StatusCode::kInvalidArgument,
            label + ": the node transforms carry its positions outside the float range");
      const size_t base = out.positions.size();
      if (base + p.positions.size() > UINT32_MAX)
        return ctx.fail(StatusCode::kResourceExhausted, label + ": too many vertices");
      if (!p.uvs.empty() && !any_uvs) {
        out.uvs.assign(base, glm::vec2(0.0f));  // earlier primitives had none
        any_uvs = true;
      }
      if (any_uvs && p.uvs.empty()) p.uvs.assign(p.positions.size(), glm::vec2(0.0f));
      Submesh sub;
      sub.first_index = static_cast<uint32_t>(out.indices.size());
      sub.index_count = static_cast<uint32_t>(p.indices.size());
      if (prim.material >= 0 && prim.material < static_cast<int>(m.materials.size()))
        sub.material = m.materials[prim.material].name;
      out.submeshes.push_back(std::move(sub));
      out.positions.insert(out.positions.end(), p.positions.begin(), p.positions.end());
      out.normals.insert(out.normals.end(), p.normals.begin(), p.normals.end());
      out.uvs.insert(out.uvs.end(), p.uvs.begin(), p.uvs.end());
      out.joints.insert(out.joints.end(), p.joints.begin(), p.joints.end());
      out.weights.insert(out.weights.end(), p.weights.begin(), p.weights.end());
      for (uint32_t i : p.indices) out.indices.push_back(static_cast<uint32_t>(base) + i);
      if (set)
        if (Status s = add_morph_vertices(ctx, p, static_cast<uint32_t>(base), set, &delta_bytes);
            !s)
          return s;
    }
  }
  *mesh = std::move(out);
  return Status::ok();
}

}  // namespace anim::gltf
