// glTF 2.0 loader: file -> tinygltf model -> node hierarchy checks -> skin choice -> Skeleton,
// then clips (gltf_clips.cpp) and mesh (gltf_mesh.cpp). See docs/loader-gltf.md.
#include "anim/loaders/gltf_loader.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <set>
#include <span>
#include <unordered_set>

#include "gltf_document_scan.h"
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

// Parses the bytes into `model` once the document is known to keep within `limits` (its
// parse charged to `budget`) and its URIs within the policy.
Status read_model(const ModelSource& src, const GltfLimits& limits, gltf::LoadBudget* budget,
                  tinygltf::Model* model) {
  const std::span<const uint8_t> bytes = src.bytes;
  if (bytes.empty()) return data_loss(src.label + ": file is empty");
  if (bytes.size() > std::numeric_limits<unsigned int>::max())
    return Status(StatusCode::kResourceExhausted, src.label + ": larger than 4 GiB");
  const std::span<const uint8_t> json = gltf::document_json(bytes);
  Expected<gltf::DocumentShape> shape = gltf::scan_document(json, bytes.size(), limits);
  if (!shape) return Status(shape.error().code(), src.label + ": " + shape.error().message());
  if (Status s = budget->charge(shape->parsed_bytes, "parsing the document"); !s)
    return Status(s.code(), src.label + ": " + s.message());
  if (Status s = gltf::check_document_uris(src.policy, json); !s)
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

// The node forest: each node's parent (-1 for none) and every node in an order that puts
// parents before their children.
struct NodeForest {
  std::vector<int> parent;
  std::vector<int> parents_first;
};

// Checks the hierarchy is a forest (children in range, at most one parent per node, no
// cycles) in time linear in the nodes and their child lists.
Expected<NodeForest> node_forest(const Context& ctx) {
  const tinygltf::Model& m = ctx.model;
  const int n = static_cast<int>(m.nodes.size());
  NodeForest forest;
  std::vector<int>& parent = forest.parent;
  parent.assign(n, -1);
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
  // Every node reachable from a root is in a tree; with one parent each, the others form
  // cycles.
  std::vector<int>& order = forest.parents_first;
  order.reserve(n);
  for (int i = 0; i < n; ++i)
    if (parent[i] < 0) order.push_back(i);
  for (size_t k = 0; k < order.size(); ++k)
    for (int c : m.nodes[order[k]].children) order.push_back(c);
  if (static_cast<int>(order.size()) < n) {
    std::vector<char> reached(n, 0);
    for (int i : order) reached[i] = 1;
    int first = 0;
    while (reached[first]) ++first;
    return ctx.fail(StatusCode::kInvalidArgument,
                    "cyclic node hierarchy: " + node_label(m, first) + " is its own ancestor");
  }
  return forest;
}

// For every node, the nearest joint above it and the static transform between: with
// `joint_above[n]` the nearest proper ancestor of n that is a joint (-1 for none),
// `between[n]` is the product of the local matrices of the nodes strictly between that joint
// and n, and n itself when n is not a joint (ancestor first). Computed in one pass in
// parents-first order.
struct JointChains {
  std::vector<int> joint_above;
  std::vector<glm::dmat4> between;
};

JointChains joint_chains(const tinygltf::Model& m, const NodeForest& forest,
                         const std::vector<int>& source_of_node) {
  const size_t n = m.nodes.size();
  JointChains chains;
  chains.joint_above.assign(n, -1);
  chains.between.assign(n, glm::dmat4(1.0));
  for (int node : forest.parents_first) {
    const int p = forest.parent[node];
    glm::dmat4 above(1.0);
    if (p >= 0) {
      const bool p_is_joint = source_of_node[p] >= 0;
      chains.joint_above[node] = p_is_joint ? p : chains.joint_above[p];
      if (!p_is_joint) above = chains.between[p];
    }
    chains.between[node] =
        source_of_node[node] >= 0 ? above : above * gltf::node_local_matrix(m.nodes[node]);
  }
  return chains;
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

// Equal within `rel` times the largest element magnitude (at least 1).
bool nearly_equal(const glm::dmat4& a, const glm::dmat4& b, double rel = 1e-6) {
  double scale = 1.0, diff = 0.0;
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r) {
      scale = std::max({scale, std::abs(a[c][r]), std::abs(b[c][r])});
      diff = std::max(diff, std::abs(a[c][r] - b[c][r]));
    }
  return diff <= rel * scale;
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

std::string skin_label(const tinygltf::Model& m, int skin) {
  const std::string& name = m.skins[skin].name;
  return "skin " + std::to_string(skin) + (name.empty() ? "" : " '" + name + "'");
}

// A skin's inverse bind matrices (identity when it has none), checked finite.
Expected<std::vector<glm::dmat4>> read_inverse_binds(const Context& ctx, int skin_index) {
  const tinygltf::Skin& skin = ctx.model.skins[skin_index];
  const std::string label = skin_label(ctx.model, skin_index);
  const size_t n = skin.joints.size();
  std::vector<glm::dmat4> ibm(n, glm::dmat4(1.0));
  if (skin.inverseBindMatrices < 0) return ibm;
  Expected<gltf::AccessorData> data = gltf::read_accessor(
      ctx, skin.inverseBindMatrices, {TINYGLTF_TYPE_MAT4}, label + " inverseBindMatrices");
  if (!data) return data.error();
  if (data->count < n)
    return ctx.fail(StatusCode::kDataLoss, label + " has " + std::to_string(n) +
                                               " joints but only " + std::to_string(data->count) +
                                               " inverse bind matrices");
  for (size_t k = 0; k < n; ++k)
    for (int i = 0; i < 16; ++i) {
      const double v = data->values[k * 16 + i];
      if (!std::isfinite(v))
        return ctx.fail(StatusCode::kInvalidArgument, label + ": inverse bind matrix of joint " +
                                                          std::to_string(k) + " is not finite");
      // Stored as float, as the file holds them: the palette is float.
      ibm[k][i / 4][i % 4] = static_cast<double>(static_cast<float>(v));
    }
  return ibm;
}

// The character's joints: the chosen skin's, then those of every other skin that shares a
// joint node with them (transitively), so that skins over one skeleton (RobotExpressive's two
// hands, a body and a visor) become one joint set and one palette. A merged skin whose bind
// space differs from the skeleton's by one common matrix keeps its meshes (moved by that
// matrix); one whose inverse binds disagree joint by joint loses them, with a warning.
struct CharacterJoints {
  std::vector<int> nodes;                              // joint node of each source index
  std::vector<glm::dmat4> ibm;                         // inverse bind of each source index
  std::vector<int> source_of_node;                     // node -> source index, or -1
  std::vector<int> skins;                              // merged skins, the chosen one first
  std::vector<glm::dmat4> skin_to_bind;                // per merged skin
  std::vector<std::vector<int>> source_of_skin_joint;  // per merged skin
  std::vector<char> skin_usable;                       // per merged skin: its meshes are served
};

Expected<CharacterJoints> character_joints(const Context& ctx, int chosen) {
  const tinygltf::Model& m = ctx.model;
  const int num_nodes = static_cast<int>(m.nodes.size());
  CharacterJoints cj;
  cj.source_of_node.assign(num_nodes, -1);
  const std::string chosen_label = skin_label(m, chosen);
  const tinygltf::Skin& first = m.skins[chosen];
  const int n = static_cast<int>(first.joints.size());
  if (n == 0) return ctx.fail(StatusCode::kInvalidArgument, chosen_label + " has no joints");
  for (int k = 0; k < n; ++k) {
    const int node = first.joints[k];
    if (node < 0 || node >= num_nodes)
      return ctx.fail(StatusCode::kDataLoss,
                      chosen_label + " joint " + std::to_string(k) + " is node " +
                          std::to_string(node) +
                          ", which does not exist (joint index out of range)");
    if (cj.source_of_node[node] >= 0)
      return ctx.fail(StatusCode::kInvalidArgument,
                      chosen_label + " lists " + node_label(m, node) + " twice");
    cj.source_of_node[node] = k;
    cj.nodes.push_back(node);
  }
  Expected<std::vector<glm::dmat4>> ibm = read_inverse_binds(ctx, chosen);
  if (!ibm) return ibm.error();
  cj.ibm = std::move(*ibm);
  cj.skins.push_back(chosen);
  cj.skin_to_bind.push_back(glm::dmat4(1.0));
  cj.source_of_skin_joint.emplace_back();
  for (int k = 0; k < n; ++k) cj.source_of_skin_joint.back().push_back(k);
  cj.skin_usable.push_back(1);

  // Skins merge in passes over the skin indices, each merging, in index order, every skin
  // that shares a joint with the set so far, until a pass merges none. A skin becomes a
  // candidate when one of its nodes joins the set, so the passes visit candidates only.
  const int num_skins = static_cast<int>(m.skins.size());
  std::vector<std::vector<int>> skins_of_node(num_nodes);
  for (int s = 0; s < num_skins; ++s)
    for (int node : m.skins[s].joints)
      if (node >= 0 && node < num_nodes &&
          (skins_of_node[node].empty() || skins_of_node[node].back() != s))
        skins_of_node[node].push_back(s);
  std::vector<char> merged(num_skins, 0);
  merged[chosen] = 1;
  std::set<int> candidates;
  const auto joined = [&](int node) {
    for (int s : skins_of_node[node])
      if (!merged[s]) candidates.insert(s);
  };
  for (int node : cj.nodes) joined(node);
  for (int next = 0; !candidates.empty();) {
    auto it = candidates.lower_bound(next);
    if (it == candidates.end()) it = candidates.begin();  // a new pass
    const int s = *it;
    candidates.erase(it);
    next = s + 1;
    {
      merged[s] = 1;
      const std::vector<int>& joints = m.skins[s].joints;
      bool valid = !joints.empty();
      std::unordered_set<int> seen;
      for (int node : joints)
        if (node < 0 || node >= num_nodes || !seen.insert(node).second) valid = false;
      const std::string label = skin_label(m, s);
      if (!valid) {
        ctx.warn(label + " shares joints with " + chosen_label +
                 " but lists a joint node twice or out of range; its meshes are not served");
        continue;
      }
      Expected<std::vector<glm::dmat4>> sibm = read_inverse_binds(ctx, s);
      if (!sibm) return sibm.error();
      // The change of bind space: ibm_skeleton(j) * to_bind = ibm_s(j) on every shared joint.
      glm::dmat4 to_bind(1.0);
      bool have = false, consistent = true;
      for (size_t k = 0; k < joints.size(); ++k) {
        const int src = cj.source_of_node[joints[k]];
        if (src < 0) continue;
        const glm::dmat4 c = glm::inverse(cj.ibm[src]) * (*sibm)[k];
        if (!have) {
          to_bind = c;
          have = true;
        } else if (!nearly_equal(c, to_bind, 1e-4)) {
          consistent = false;
        }
      }
      if (!consistent || std::abs(glm::determinant(to_bind)) < 1e-30) {
        ctx.warn(label + " shares joints with " + chosen_label +
                 " but binds them differently; its meshes are not served");
        continue;
      }
      if (nearly_equal(to_bind, glm::dmat4(1.0), 1e-6)) to_bind = glm::dmat4(1.0);
      std::vector<int> map(joints.size());
      for (size_t k = 0; k < joints.size(); ++k) {
        int& src = cj.source_of_node[joints[k]];
        if (src < 0) {
          src = static_cast<int>(cj.nodes.size());
          cj.nodes.push_back(joints[k]);
          cj.ibm.push_back((*sibm)[k] * glm::inverse(to_bind));
          joined(joints[k]);
        }
        map[k] = src;
      }
      cj.skins.push_back(s);
      cj.skin_to_bind.push_back(to_bind);
      cj.source_of_skin_joint.push_back(std::move(map));
      cj.skin_usable.push_back(1);
    }
  }
  if (static_cast<int>(cj.nodes.size()) > Skeleton::kMaxJoints)
    return ctx.fail(StatusCode::kResourceExhausted,
                    chosen_label + " and the skins sharing its joints have " +
                        std::to_string(cj.nodes.size()) + " joints, more than the limit " +
                        std::to_string(Skeleton::kMaxJoints));
  return cj;
}

// The parts of the character's mesh: every mesh node skinned by a merged skin (scene order;
// nodes outside the scene only when the chosen skin has no skinned node in it), then every
// unskinned mesh node in the scene under a joint node (or a joint itself), bound rigidly to
// the nearest such joint. Skinned meshes of unrelated skins are left out with a warning.
std::vector<gltf::MeshPart> mesh_parts(const Context& ctx, const CharacterJoints& cj,
                                       const JointChains& chains, const std::vector<int>& order) {
  const tinygltf::Model& m = ctx.model;
  const int num_skins = static_cast<int>(m.skins.size());
  std::vector<int> merged_index(num_skins, -1);
  for (size_t i = 0; i < cj.skins.size(); ++i) merged_index[cj.skins[i]] = static_cast<int>(i);
  std::vector<gltf::MeshPart> skinned, rigid;
  std::vector<char> warned(num_skins, 0);
  auto add_skinned = [&](int node) {
    const int mi = merged_index[m.nodes[node].skin];
    if (!cj.skin_usable[mi]) return;
    gltf::MeshPart part;
    part.node = node;
    part.source_of_skin_joint = cj.source_of_skin_joint[mi];
    part.to_bind = cj.skin_to_bind[mi];
    skinned.push_back(std::move(part));
  };
  bool chosen_in_scene = false;
  for (int node : order) {
    const tinygltf::Node& nd = m.nodes[node];
    if (nd.mesh < 0) continue;
    if (nd.skin >= 0) {
      if (nd.skin < num_skins && merged_index[nd.skin] >= 0) {
        chosen_in_scene |= nd.skin == cj.skins.front();
        add_skinned(node);
      } else if (nd.skin >= num_skins || !warned[nd.skin]) {
        if (nd.skin < num_skins) warned[nd.skin] = 1;
        ctx.warn(node_label(m, node) + " is skinned by skin " + std::to_string(nd.skin) +
                 ", which shares no joint with the character's skeleton; not served (load that "
                 "skin by index or name to get it)");
      }
      continue;
    }
    // The joint the node hangs under (itself when it is one), and the static nodes from that
    // joint (exclusive) down to the mesh node.
    const bool is_joint = cj.source_of_node[node] >= 0;
    const int a = is_joint ? node : chains.joint_above[node];
    const glm::dmat4 below = is_joint ? glm::dmat4(1.0) : chains.between[node];
    if (a < 0) continue;  // not attached to the skeleton: scenery, not the character
    gltf::MeshPart part;
    part.node = node;
    part.rigid_source = cj.source_of_node[a];
    if (std::abs(glm::determinant(cj.ibm[part.rigid_source])) < 1e-30) {
      ctx.warn(node_label(m, node) + " hangs under joint " + node_label(m, a) +
               ", whose inverse bind matrix is singular; not served");
      continue;
    }
    part.to_bind = glm::inverse(cj.ibm[part.rigid_source]) * below;
    rigid.push_back(std::move(part));
  }
  if (!chosen_in_scene)
    for (int node = 0; node < static_cast<int>(m.nodes.size()); ++node)
      if (m.nodes[node].skin == cj.skins.front() && m.nodes[node].mesh >= 0) add_skinned(node);
  skinned.insert(skinned.end(), std::make_move_iterator(rigid.begin()),
                 std::make_move_iterator(rigid.end()));
  return skinned;
}

// The skeleton of the character's joints. Model space is the scene space: root_transform is
// the world matrix of the root joints' non-joint ancestors (Z-up fixes, unit scales), so
// model matrices equal the joint nodes' scene-space world matrices and
// palette = joint world * inverse bind, the matrix three.js applies to a skinned vertex.
Expected<Skeleton> build_skeleton(const Context& ctx, int skin_index, const CharacterJoints& cj,
                                  const NodeForest& forest, const JointChains& chains,
                                  std::vector<gltf::JointFold>* folds) {
  const tinygltf::Model& m = ctx.model;
  const std::string label = skin_label(m, skin_index);
  const int n = static_cast<int>(cj.nodes.size());
  const std::vector<int>& source_of_node = cj.source_of_node;

  // Parent joint of each joint; the non-joint parent space of the root joints (the first
  // root's; other roots under a different one get the difference as a fold); non-joint nodes
  // between two joints become a fold on the lower joint.
  std::vector<int> parents(n, -1);
  std::vector<glm::dmat4> fold_matrix(n, glm::dmat4(1.0));
  folds->assign(n, gltf::JointFold{});
  bool have_root_space = false;
  glm::dmat4 root_space(1.0);
  for (int k = 0; k < n; ++k) {
    const int node = cj.nodes[k];
    // The product of the non-joint nodes above `node`, up to a joint.
    const glm::dmat4& between = chains.between[node];
    const int a = chains.joint_above[node];
    if (a >= 0) {
      parents[k] = source_of_node[a];
      if (a != forest.parent[node]) {
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
                      label + ": the non-joint nodes above joint " + node_label(m, cj.nodes[k]) +
                          " have non-uniform or mirroring scale, which cannot be folded into it");
    (*folds)[k].transform = f;
  }

  std::vector<glm::mat4> ibm(n);
  for (int k = 0; k < n; ++k) ibm[k] = glm::mat4(cj.ibm[k]);

  std::vector<std::string> names(n);
  std::vector<Transform> rest(n);
  std::unordered_set<std::string> used;
  for (int k = 0; k < n; ++k) {
    const tinygltf::Node& node = m.nodes[cj.nodes[k]];
    std::string name = node.name.empty() ? "joint_" + std::to_string(k) : node.name;
    // Joint names must be unique; glTF does not require it, so disambiguate by node index.
    if (used.count(name)) name += "#" + std::to_string(cj.nodes[k]);
    used.insert(name);
    names[k] = name;
    rest[k] = from_matrix(glm::mat4(fold_matrix[k] * gltf::node_local_matrix(node)));
  }

  Expected<Skeleton> skeleton = Skeleton::from_unordered(std::move(names), parents, std::move(rest),
                                                         std::move(ibm), glm::mat4(root_space));
  if (!skeleton)
    return ctx.fail(skeleton.error().code(), label + ": " + skeleton.error().message());
  return skeleton;
}

}  // namespace

namespace {

Expected<Asset> load(const ModelSource& source, const GltfOptions& options) {
  gltf::LoadBudget budget(options.limits);
  tinygltf::Model model;
  if (Status s = read_model(source, options.limits, &budget, &model); !s) return s;

  Asset asset;
  asset.name = source.name;
  asset.source = source.label;
  const Context ctx{model, source.label, &asset.warnings, &budget,
                    gltf::largest_backed_count(model)};

  Expected<NodeForest> forest = node_forest(ctx);
  if (!forest) return forest.error();
  Expected<std::vector<int>> order = scene_order(ctx, forest->parent);
  if (!order) return order.error();
  Expected<int> skin = choose_skin(ctx, options, *order);
  if (!skin) return skin.error();
  Expected<CharacterJoints> joints = character_joints(ctx, *skin);
  if (!joints) return joints.error();
  if (Status s = budget.check_time("the node hierarchy"); !s)
    return ctx.fail(s.code(), s.message());
  const JointChains chains = joint_chains(model, *forest, joints->source_of_node);

  std::vector<gltf::JointFold> folds;
  Expected<Skeleton> skeleton = build_skeleton(ctx, *skin, *joints, *forest, chains, &folds);
  if (!skeleton) return skeleton.error();
  asset.skeleton = std::move(*skeleton);

  // The mesh parts first: clips need to know which nodes have morph targets.
  const std::vector<gltf::MeshPart> parts = mesh_parts(ctx, *joints, chains, *order);
  Expected<gltf::MorphPlan> morphs = gltf::plan_morph_sets(ctx, parts);
  if (!morphs) return morphs.error();
  if (Status s = gltf::load_clips(ctx, asset.skeleton, joints->source_of_node, folds, *morphs,
                                  &asset.clips);
      !s)
    return s;
  if (Status s = gltf::load_mesh(ctx, parts, asset.skeleton, *morphs, &asset.mesh); !s) return s;
  if (parts.empty()) ctx.warn("no mesh node uses the chosen skin or its joints: the mesh is empty");

  if (Status s = asset.skeleton.validate(); !s) return ctx.fail(s.code(), s.message());
  // Each clip's sampling tables are charged once built: a file's keys may cost more as a
  // clip than decoded.
  for (Clip& clip : asset.clips) {
    if (Status s = clip.finalize(asset.skeleton.num_joints()); !s)
      return ctx.fail(s.code(), s.message());
    if (Status s = budget.charge(clip.memory_bytes(), "clip '" + clip.name + "'"); !s)
      return ctx.fail(s.code(), s.message());
  }
  gltf::load_clip_events(ctx, &asset.clips);
  asset.hit_volumes = fit_hit_volumes(asset.skeleton, asset.clips, asset.mesh);
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
