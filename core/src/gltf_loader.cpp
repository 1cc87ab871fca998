// glTF 2.0 loader: file -> tinygltf model -> node hierarchy checks -> skin choice -> Skeleton,
// then clips (gltf_clips.cpp) and mesh (gltf_mesh.cpp). See docs/loader-gltf.md.
#include "anim/gltf_loader.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <span>
#include <unordered_set>

#include "gltf_internal.h"
#include "gltf_uri_policy.h"

namespace anim {

namespace {

using gltf::Context;
using gltf::node_label;

// Images are never decoded: textures are the render client's business, not the daemon's.
bool ignore_image(tinygltf::Image*, const int, std::string*, std::string*, int, int,
                  const unsigned char*, int, void*) {
  return true;
}

// The bytes to parse, how messages name them, and which files their URIs may reach.
struct ModelSource {
  std::span<const uint8_t> bytes;
  std::string label;  // prefix of every message, and Asset::source
  std::string name;   // Asset::name
  gltf::UriPolicy policy;
};

Status read_model(const ModelSource& src, tinygltf::Model* model) {
  const std::span<const uint8_t> bytes = src.bytes;
  if (bytes.empty()) return data_loss(src.label + ": file is empty");
  if (bytes.size() > std::numeric_limits<unsigned int>::max())
    return Status(StatusCode::kResourceExhausted, src.label + ": larger than 4 GiB");
  if (Status s = gltf::check_document_uris(src.policy, bytes); !s)
    return Status(s.code(), src.label + ": " + s.message());

  // Every file access of tinygltf goes through the gate (see gltf_uri_policy.h).
  gltf::UriGate gate(src.policy);
  tinygltf::TinyGLTF parser;
  parser.SetImageLoader(&ignore_image, nullptr);
  parser.SetFsCallbacks(gate.callbacks());
  std::string err, warn;
  const std::string base_dir = src.policy.allow_files ? src.policy.base_dir.string() : "";
  const auto size = static_cast<unsigned int>(bytes.size());
  // Binary or text by content (the magic), not by extension.
  const bool binary = bytes.size() >= 4 && std::equal(bytes.begin(), bytes.begin() + 4, "glTF");
  const bool ok =
      binary ? parser.LoadBinaryFromMemory(model, &err, &warn, bytes.data(), size, base_dir)
             : parser.LoadASCIIFromString(
                   model, &err, &warn, reinterpret_cast<const char*>(bytes.data()), size, base_dir);
  // A refusal decides the message: tinygltf's own would name the path it asked for.
  if (!gate.refusal().empty()) return invalid_argument(src.label + ": " + gate.refusal());
  if (!ok) {
    err = gltf::sanitize_parser_message(err, src.policy);
    if (err.empty()) err = "not a valid glTF file";
    return data_loss(src.label + ": " + (binary ? "truncated or malformed .glb: " : "") + err);
  }
  return Status::ok();
}

// Parent of every node (-1 for none), after checking the hierarchy is a forest: children in
// range, at most one parent per node, no cycles.
Expected<std::vector<int>> node_parents(const Context& ctx) {
  const tinygltf::Model& m = ctx.model;
  const int n = static_cast<int>(m.nodes.size());
  std::vector<int> parent(n, -1);
  for (int i = 0; i < n; ++i) {
    if (Status s = gltf::check_node_transform(ctx, i); !s) return s;
    for (int c : m.nodes[i].children) {
      if (c < 0 || c >= n)
        return ctx.fail(StatusCode::kDataLoss, node_label(m, i) + " has child " +
                                                   std::to_string(c) + ", which does not exist");
      if (c == i)
        return ctx.fail(StatusCode::kInvalidArgument,
                        "cyclic node hierarchy: " + node_label(m, i) + " is its own child");
      if (parent[c] >= 0)
        return ctx.fail(StatusCode::kInvalidArgument,
                        node_label(m, c) + " has two parents (" + node_label(m, parent[c]) +
                            " and " + node_label(m, i) +
                            "): the node hierarchy must be a tree (multi-rooted node)");
      parent[c] = i;
    }
  }
  for (int i = 0; i < n; ++i) {
    int steps = 0;
    for (int j = parent[i]; j >= 0; j = parent[j])
      if (++steps > n)
        return ctx.fail(StatusCode::kInvalidArgument,
                        "cyclic node hierarchy: " + node_label(m, i) + " is its own ancestor");
  }
  return parent;
}

// Nodes of the default scene in depth-first pre-order (children in file order), the order
// three.js traverses; every node in index order when the file has no scene.
Expected<std::vector<int>> scene_order(const Context& ctx, const std::vector<int>& parent) {
  const tinygltf::Model& m = ctx.model;
  std::vector<int> order;
  if (m.scenes.empty()) {
    for (int i = 0; i < static_cast<int>(m.nodes.size()); ++i) order.push_back(i);
    return order;
  }
  const int scene = m.defaultScene >= 0 ? m.defaultScene : 0;
  if (scene >= static_cast<int>(m.scenes.size()))
    return ctx.fail(StatusCode::kDataLoss,
                    "default scene " + std::to_string(scene) + " does not exist");
  std::vector<int> stack;
  const std::vector<int>& roots = m.scenes[scene].nodes;
  for (auto it = roots.rbegin(); it != roots.rend(); ++it) {
    if (*it < 0 || *it >= static_cast<int>(m.nodes.size()))
      return ctx.fail(StatusCode::kDataLoss, "scene " + std::to_string(scene) + " lists node " +
                                                 std::to_string(*it) + ", which does not exist");
    if (parent[*it] >= 0)
      return ctx.fail(StatusCode::kInvalidArgument,
                      "scene " + std::to_string(scene) + " lists " + node_label(m, *it) +
                          " as a root, but it is a child of " + node_label(m, parent[*it]) +
                          ": the node hierarchy must be a tree (multi-rooted node)");
    stack.push_back(*it);
  }
  std::vector<char> seen(m.nodes.size(), 0);
  while (!stack.empty()) {
    const int j = stack.back();
    stack.pop_back();
    if (seen[j]) continue;  // a root listed twice
    seen[j] = 1;
    order.push_back(j);
    const std::vector<int>& ch = m.nodes[j].children;
    for (auto it = ch.rbegin(); it != ch.rend(); ++it) stack.push_back(*it);
  }
  return order;
}

glm::dmat4 world_matrix(const tinygltf::Model& m, const std::vector<int>& parent, int node) {
  glm::dmat4 w(1.0);
  for (int j = node; j >= 0; j = parent[j]) w = gltf::node_local_matrix(m.nodes[j]) * w;
  return w;
}

bool nearly_equal(const glm::dmat4& a, const glm::dmat4& b) {
  double scale = 1.0, diff = 0.0;
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r) {
      scale = std::max({scale, std::abs(a[c][r]), std::abs(b[c][r])});
      diff = std::max(diff, std::abs(a[c][r] - b[c][r]));
    }
  return diff <= 1e-6 * scale;
}

// The skin to load: by option, else the skin of the first skinned mesh node in scene order.
Expected<int> choose_skin(const Context& ctx, const GltfOptions& options,
                          const std::vector<int>& order) {
  const tinygltf::Model& m = ctx.model;
  const int num_skins = static_cast<int>(m.skins.size());
  if (num_skins == 0) return ctx.fail(StatusCode::kNotFound, "the file has no skin");
  if (options.skin_index >= 0) {
    if (options.skin_index >= num_skins)
      return ctx.fail(StatusCode::kNotFound, "skin " + std::to_string(options.skin_index) +
                                                 " requested, the file has " +
                                                 std::to_string(num_skins));
    return options.skin_index;
  }
  if (!options.skin_name.empty()) {
    for (int i = 0; i < num_skins; ++i)
      if (m.skins[i].name == options.skin_name) return i;
    return ctx.fail(StatusCode::kNotFound, "no skin named '" + options.skin_name + "'");
  }
  for (int node : order) {
    const tinygltf::Node& n = m.nodes[node];
    if (n.mesh >= 0 && n.skin >= 0) {
      if (n.skin >= num_skins)
        return ctx.fail(StatusCode::kDataLoss, node_label(m, node) + " uses skin " +
                                                   std::to_string(n.skin) +
                                                   ", which does not exist");
      return n.skin;
    }
  }
  return 0;  // skins but no skinned mesh in the scene: the first skin, without a mesh
}

// Mesh nodes skinned by `skin`: scene order first, then nodes outside the scene.
std::vector<int> skinned_mesh_nodes(const tinygltf::Model& m, int skin,
                                    const std::vector<int>& order) {
  std::vector<int> out;
  for (int node : order)
    if (m.nodes[node].skin == skin && m.nodes[node].mesh >= 0) out.push_back(node);
  if (out.empty())
    for (int node = 0; node < static_cast<int>(m.nodes.size()); ++node)
      if (m.nodes[node].skin == skin && m.nodes[node].mesh >= 0) out.push_back(node);
  return out;
}

Expected<Skeleton> build_skeleton(const Context& ctx, int skin_index,
                                  const std::vector<int>& parent,
                                  const std::vector<int>& mesh_nodes,
                                  std::vector<int>* source_of_node,
                                  std::vector<gltf::JointFold>* folds) {
  const tinygltf::Model& m = ctx.model;
  const tinygltf::Skin& skin = m.skins[skin_index];
  const std::string skin_label =
      "skin " + std::to_string(skin_index) + (skin.name.empty() ? "" : " '" + skin.name + "'");
  const int n = static_cast<int>(skin.joints.size());
  if (n == 0) return ctx.fail(StatusCode::kInvalidArgument, skin_label + " has no joints");
  if (n > Skeleton::kMaxJoints)
    return ctx.fail(StatusCode::kResourceExhausted, skin_label + " has " + std::to_string(n) +
                                                        " joints, more than the limit " +
                                                        std::to_string(Skeleton::kMaxJoints));
  source_of_node->assign(m.nodes.size(), -1);
  for (int k = 0; k < n; ++k) {
    const int node = skin.joints[k];
    if (node < 0 || node >= static_cast<int>(m.nodes.size()))
      return ctx.fail(StatusCode::kDataLoss,
                      skin_label + " joint " + std::to_string(k) + " is node " +
                          std::to_string(node) +
                          ", which does not exist (joint index out of range)");
    if ((*source_of_node)[node] >= 0)
      return ctx.fail(StatusCode::kInvalidArgument,
                      skin_label + " lists " + node_label(m, node) + " twice");
    (*source_of_node)[node] = k;
  }

  // Parent joint of each joint; the non-joint parent space of the root joints (the first
  // root's; other roots under a different one get the difference as a fold); non-joint nodes
  // between two joints become a fold on the lower joint.
  std::vector<int> parents(n, -1);
  std::vector<glm::dmat4> fold_matrix(n, glm::dmat4(1.0));
  folds->assign(n, gltf::JointFold{});
  bool have_root_space = false;
  glm::dmat4 root_space(1.0);
  for (int k = 0; k < n; ++k) {
    const int node = skin.joints[k];
    glm::dmat4 between(1.0);  // product of the non-joint nodes above `node`, up to a joint
    int a = parent[node];
    while (a >= 0 && (*source_of_node)[a] < 0) {
      between = gltf::node_local_matrix(m.nodes[a]) * between;
      a = parent[a];
    }
    if (a >= 0) {
      parents[k] = (*source_of_node)[a];
      if (a != parent[node]) {
        fold_matrix[k] = between;
        (*folds)[k].active = true;
      }
      continue;
    }
    // A root joint: `between` is the world matrix of its parent node (identity for none).
    if (!have_root_space) {
      root_space = between;
      have_root_space = true;
    } else if (!nearly_equal(between, root_space)) {
      fold_matrix[k] = glm::inverse(root_space) * between;
      (*folds)[k].active = true;
    }
  }
  for (int k = 0; k < n; ++k) {
    if (!(*folds)[k].active) continue;
    const Transform f = from_matrix(glm::mat4(fold_matrix[k]));
    const float s = f.scale.x;
    const bool uniform =
        s > 0.0f && std::abs(f.scale.y - s) <= 1e-5f * s && std::abs(f.scale.z - s) <= 1e-5f * s;
    if (!uniform || !nearly_equal(glm::dmat4(to_matrix(f)), fold_matrix[k]))
      return ctx.fail(StatusCode::kUnimplemented,
                      skin_label + ": the non-joint nodes above joint " +
                          node_label(m, skin.joints[k]) +
                          " have non-uniform or mirroring scale, which cannot be folded into it");
    (*folds)[k].transform = f;
  }

  // Model space = the first skinned mesh node's space.
  glm::dmat4 root_transform = root_space;
  if (!mesh_nodes.empty()) {
    const glm::dmat4 mesh_world = world_matrix(m, parent, mesh_nodes.front());
    if (std::abs(glm::determinant(mesh_world)) < 1e-30)
      return ctx.fail(StatusCode::kInvalidArgument,
                      node_label(m, mesh_nodes.front()) + " has a singular world transform");
    root_transform = glm::inverse(mesh_world) * root_space;
  }

  std::vector<glm::mat4> ibm(n, glm::mat4(1.0f));
  if (skin.inverseBindMatrices >= 0) {
    Expected<gltf::AccessorData> data = gltf::read_accessor(
        ctx, skin.inverseBindMatrices, {TINYGLTF_TYPE_MAT4}, skin_label + " inverseBindMatrices");
    if (!data) return data.error();
    if (data->count < static_cast<size_t>(n))
      return ctx.fail(StatusCode::kDataLoss, skin_label + " has " + std::to_string(n) +
                                                 " joints but only " + std::to_string(data->count) +
                                                 " inverse bind matrices");
    for (int k = 0; k < n; ++k)
      for (int i = 0; i < 16; ++i) {
        const double v = data->values[k * 16 + i];
        if (!std::isfinite(v))
          return ctx.fail(StatusCode::kInvalidArgument, skin_label +
                                                            ": inverse bind matrix of joint " +
                                                            std::to_string(k) + " is not finite");
        ibm[k][i / 4][i % 4] = static_cast<float>(v);
      }
  }

  std::vector<std::string> names(n);
  std::vector<Transform> rest(n);
  std::unordered_set<std::string> used;
  for (int k = 0; k < n; ++k) {
    const tinygltf::Node& node = m.nodes[skin.joints[k]];
    std::string name = node.name.empty() ? "joint_" + std::to_string(k) : node.name;
    // Joint names must be unique; glTF does not require it, so disambiguate by node index.
    if (used.count(name)) name += "#" + std::to_string(skin.joints[k]);
    used.insert(name);
    names[k] = name;
    rest[k] = from_matrix(glm::mat4(fold_matrix[k] * gltf::node_local_matrix(node)));
  }

  Expected<Skeleton> skeleton = Skeleton::from_unordered(std::move(names), parents, std::move(rest),
                                                         std::move(ibm), glm::mat4(root_transform));
  if (!skeleton)
    return ctx.fail(skeleton.error().code(), skin_label + ": " + skeleton.error().message());
  return skeleton;
}

}  // namespace

namespace {

Expected<Asset> load(const ModelSource& source, const GltfOptions& options) {
  tinygltf::Model model;
  if (Status s = read_model(source, &model); !s) return s;

  Asset asset;
  asset.name = source.name;
  asset.source = source.label;
  const Context ctx{model, source.label, &asset.warnings};

  Expected<std::vector<int>> parent = node_parents(ctx);
  if (!parent) return parent.error();
  Expected<std::vector<int>> order = scene_order(ctx, *parent);
  if (!order) return order.error();
  Expected<int> skin = choose_skin(ctx, options, *order);
  if (!skin) return skin.error();
  const std::vector<int> mesh_nodes = skinned_mesh_nodes(model, *skin, *order);

  std::vector<int> source_of_node;
  std::vector<gltf::JointFold> folds;
  Expected<Skeleton> skeleton =
      build_skeleton(ctx, *skin, *parent, mesh_nodes, &source_of_node, &folds);
  if (!skeleton) return skeleton.error();
  asset.skeleton = std::move(*skeleton);

  if (Status s = gltf::load_clips(ctx, asset.skeleton, source_of_node, folds, &asset.clips); !s)
    return s;
  if (Status s = gltf::load_mesh(ctx, mesh_nodes, asset.skeleton, &asset.mesh); !s) return s;
  if (mesh_nodes.empty()) ctx.warn("no mesh node uses the chosen skin: the mesh is empty");

  if (Status s = asset.skeleton.validate(); !s) return ctx.fail(s.code(), s.message());
  for (Clip& clip : asset.clips)
    if (Status s = clip.finalize(asset.skeleton.num_joints()); !s)
      return ctx.fail(s.code(), s.message());
  return asset;
}

// Core never throws across its API. tinygltf catches its JSON parser's exceptions, but an
// absurd size in a corrupt file can still make an allocation fail.
Expected<Asset> load_guarded(const ModelSource& source, const GltfOptions& options) {
  try {
    return load(source, options);
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kResourceExhausted, source.label + ": out of memory while loading");
  } catch (const std::exception& e) {
    return data_loss(source.label + ": malformed file (" + e.what() + ")");
  }
}

}  // namespace

Expected<Asset> load_gltf(const std::string& path, const GltfOptions& options) {
  ModelSource source;
  source.label = options.label.empty() ? path : options.label;
  source.name = std::filesystem::path(path).stem().string();
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return not_found(source.label + ": file not found");
  if (!std::filesystem::is_regular_file(path, ec))
    return invalid_argument(source.label + ": not a regular file");
  Expected<gltf::UriPolicy> policy = gltf::file_policy(path, options.uri_root);
  if (!policy) return Status(policy.error().code(), source.label + ": " + policy.error().message());
  source.policy = std::move(*policy);
  std::vector<uint8_t> bytes;
  try {
    std::ifstream in(path, std::ios::binary);
    if (!in) return not_found(source.label + ": cannot open file");
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kResourceExhausted, source.label + ": out of memory while reading");
  }
  source.bytes = bytes;
  return load_guarded(source, options);
}

Expected<Asset> load_gltf_from_memory(std::span<const uint8_t> bytes, const std::string& label,
                                      const GltfOptions& options) {
  ModelSource source;
  source.bytes = bytes;
  source.label = label;
  source.policy.allow_files = false;  // data: URIs only; nothing on disk is touched
  return load_guarded(source, options);
}

}  // namespace anim
