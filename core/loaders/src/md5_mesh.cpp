// .md5mesh: parsing, and turning the joints and meshes into a Skeleton and a SkinnedMesh.
#include <algorithm>
#include <climits>
#include <cmath>

#include "anim/skeleton.h"
#include "anim/transform.h"
#include "md5_internal.h"
#include "md5_tokenizer.h"

namespace anim::md5 {

glm::quat quat_from_xyz(const glm::vec3& xyz) {
  const float t = 1.0f - xyz.x * xyz.x - xyz.y * xyz.y - xyz.z * xyz.z;
  const float w = t > 0.0f ? -std::sqrt(t) : 0.0f;
  // Inputs a little longer than 1 (rounding in the file) are renormalized.
  return glm::normalize(glm::quat(w, xyz.x, xyz.y, xyz.z));
}

glm::mat4 z_up_to_y_up() {
  // Columns are the images of the Z-up basis vectors: x -> x, y -> -z, z -> y.
  glm::mat4 m(1.0f);
  m[0] = glm::vec4(1, 0, 0, 0);
  m[1] = glm::vec4(0, 0, -1, 0);
  m[2] = glm::vec4(0, 1, 0, 0);
  return m;
}

glm::vec3 z_up_to_y_up(const glm::vec3& p) {
  return {p.x, p.z, -p.y};
}

namespace {

// The largest count a file of `size` bytes can hold (each element takes more than a byte), so
// that a corrupt count can never make us allocate more than the file could describe.
int64_t max_count(const Tokenizer& tok) {
  return std::min<int64_t>(static_cast<int64_t>(tok.size()), INT_MAX);
}

void parse_part(Tokenizer& tok, int num_joints, int mesh_index, MeshPart& part) {
  const std::string where = "mesh " + std::to_string(mesh_index);
  tok.expect_word("mesh");
  tok.expect_punct('{');
  tok.expect_word("shader");
  part.shader = tok.expect_string("shader name");

  tok.expect_word("numverts");
  const int nv = tok.expect_int(where + " numverts", 0, max_count(tok));
  part.verts.resize(tok.ok() ? nv : 0);
  for (int i = 0; i < nv && tok.ok(); ++i) {
    MeshVert& v = part.verts[i];
    tok.expect_word("vert");
    v.line = tok.line();
    tok.expect_int(where + " vert index", i, i);  // vertices are listed in order
    v.uv = tok.expect_vec2("texture coordinate");
    v.start_weight =
        tok.expect_int(where + " vert " + std::to_string(i) + " startWeight", 0, INT_MAX);
    v.count_weight =
        tok.expect_int(where + " vert " + std::to_string(i) + " countWeight", 1, INT_MAX);
  }

  tok.expect_word("numtris");
  const int nt = tok.expect_int(where + " numtris", 0, max_count(tok));
  part.tris.resize(tok.ok() ? nt : 0);
  for (int i = 0; i < nt && tok.ok(); ++i) {
    tok.expect_word("tri");
    tok.expect_int(where + " tri index", i, i);
    for (int c = 0; c < 3; ++c)
      part.tris[i][c] = tok.expect_int(where + " tri " + std::to_string(i) + " vertex index", 0,
                                       static_cast<int64_t>(nv) - 1);
  }

  tok.expect_word("numweights");
  const int nw = tok.expect_int(where + " numweights", 0, max_count(tok));
  part.weights.resize(tok.ok() ? nw : 0);
  for (int i = 0; i < nw && tok.ok(); ++i) {
    MeshWeight& w = part.weights[i];
    tok.expect_word("weight");
    tok.expect_int(where + " weight index", i, i);
    w.joint =
        tok.expect_int(where + " weight " + std::to_string(i) + " joint index", 0, num_joints - 1);
    const int bias_line = tok.line();
    w.bias = tok.expect_float("weight bias");
    if (tok.ok() && w.bias < 0.0f)
      tok.fail(bias_line, where + " weight " + std::to_string(i) + " has a negative bias",
               StatusCode::kInvalidArgument);
    w.position = tok.expect_vec3("weight position");
  }
  tok.expect_punct('}');
  if (!tok.ok()) return;

  for (int i = 0; i < nv; ++i) {
    const MeshVert& v = part.verts[i];
    if (static_cast<int64_t>(v.start_weight) + v.count_weight > nw) {
      tok.fail(v.line,
               where + " vert " + std::to_string(i) + " uses weights " +
                   std::to_string(v.start_weight) + ".." +
                   std::to_string(static_cast<int64_t>(v.start_weight) + v.count_weight - 1) +
                   " but the mesh has " + std::to_string(nw) + " weights",
               StatusCode::kInvalidArgument);
      return;
    }
  }
}

}  // namespace

Expected<MeshFile> parse_mesh(const std::string& path, std::string text) {
  Tokenizer tok(path, std::move(text));
  MeshFile file;
  tok.expect_word("MD5Version");
  const int version_line = tok.line();
  const int version = tok.expect_int("MD5Version", INT_MIN, INT_MAX);
  if (tok.ok() && version != 10)
    tok.fail(version_line, "MD5Version " + std::to_string(version) + " is not supported (only 10)",
             StatusCode::kUnimplemented);
  if (tok.peek_word("commandline")) {
    tok.expect_word("commandline");
    tok.expect_string("commandline");
  }
  tok.expect_word("numJoints");
  const int nj = tok.expect_int("numJoints", 1, Skeleton::kMaxJoints);
  tok.expect_word("numMeshes");
  const int nm = tok.expect_int("numMeshes", 0, max_count(tok));

  tok.expect_word("joints");
  tok.expect_punct('{');
  file.joints.resize(tok.ok() ? nj : 0);
  int root = -1;  // index of the first joint with parent -1
  for (int i = 0; i < nj && tok.ok(); ++i) {
    MeshJoint& j = file.joints[i];
    j.line = tok.line();
    j.name = tok.expect_string("joint name");
    j.parent = tok.expect_int("parent index of joint '" + j.name + "'", -1, nj - 1);
    // Doom 3 skeletons have exactly one root (the "origin" joint that the animation's root
    // motion drives); a second one means a corrupt or hand-broken file.
    if (tok.ok() && j.parent == -1) {
      if (root >= 0) {
        const MeshJoint& first = file.joints[root];
        tok.fail(j.line,
                 "joint '" + j.name + "' is a second root (parent -1); joint '" + first.name +
                     "' on line " + std::to_string(first.line) +
                     " is already the root and an MD5 skeleton has exactly one",
                 StatusCode::kInvalidArgument);
      } else {
        root = i;
      }
    }
    j.position = tok.expect_vec3("joint position");
    j.orientation = quat_from_xyz(tok.expect_vec3("joint orientation"));
  }
  tok.expect_punct('}');

  file.meshes.resize(tok.ok() ? nm : 0);
  for (int m = 0; m < nm && tok.ok(); ++m) parse_part(tok, nj, m, file.meshes[m]);
  if (tok.ok() && !tok.at_end()) tok.fail(tok.line(), "unexpected content after the last mesh");
  if (!tok.ok()) return tok.status();
  return file;
}

namespace {

struct Influence {
  int joint;  // skeleton index
  float weight;
};

// Merges weights of the same joint, keeps the 4 strongest (ties: lower joint index first, so
// the result is deterministic) and renormalizes them to sum 1.
bool reduce_influences(std::vector<Influence>& inf, std::array<uint16_t, 4>& joints,
                       glm::vec4& weights) {
  std::sort(inf.begin(), inf.end(),
            [](const Influence& a, const Influence& b) { return a.joint < b.joint; });
  size_t out = 0;
  for (size_t i = 0; i < inf.size(); ++i) {
    if (out > 0 && inf[out - 1].joint == inf[i].joint)
      inf[out - 1].weight += inf[i].weight;
    else
      inf[out++] = inf[i];
  }
  inf.resize(out);
  std::stable_sort(inf.begin(), inf.end(),
                   [](const Influence& a, const Influence& b) { return a.weight > b.weight; });
  if (inf.size() > 4) inf.resize(4);
  float sum = 0.0f;
  for (const Influence& i : inf) sum += i.weight;
  if (!(sum > 0.0f) || !std::isfinite(sum)) return false;
  joints = {0, 0, 0, 0};
  weights = glm::vec4(0.0f);
  for (size_t k = 0; k < inf.size(); ++k) {
    joints[k] = static_cast<uint16_t>(inf[k].joint);
    weights[static_cast<int>(k)] = inf[k].weight / sum;
  }
  return true;
}

}  // namespace

Status build_mesh_asset(const std::string& path, const MeshFile& file, Asset& asset) {
  const int nj = static_cast<int>(file.joints.size());
  const glm::mat4 root = z_up_to_y_up();
  const glm::mat4 root_inverse = glm::transpose(root);  // a rotation

  std::vector<std::string> names;
  std::vector<int> parents;
  std::vector<Transform> rest;
  std::vector<glm::mat4> inverse_bind;
  names.reserve(nj);
  parents.reserve(nj);
  rest.reserve(nj);
  inverse_bind.reserve(nj);
  for (const MeshJoint& j : file.joints) {
    names.push_back(j.name);
    parents.push_back(j.parent);
    // Joints are given in (Doom) model space; the skeleton wants parent-space locals. Roots'
    // parent space is Doom model space, which root_transform maps to ours.
    Transform model{j.position, j.orientation, glm::vec3(1.0f)};
    Transform local = model;
    if (j.parent >= 0) {
      const MeshJoint& p = file.joints[j.parent];
      const glm::quat pinv = glm::conjugate(p.orientation);
      local.translation = pinv * (j.position - p.position);
      local.rotation = glm::normalize(pinv * j.orientation);
    }
    rest.push_back(local);
    // inverse(root * model) = inverse(model) * inverse(root).
    inverse_bind.push_back(to_matrix(inverse(model)) * root_inverse);
  }
  auto skeleton = Skeleton::from_unordered(std::move(names), parents, std::move(rest),
                                           std::move(inverse_bind), root);
  if (!skeleton) return Status(skeleton.error().code(), path + ": " + skeleton.error().message());
  asset.skeleton = std::move(*skeleton);
  const Skeleton& skel = asset.skeleton;

  SkinnedMesh& mesh = asset.mesh;
  mesh = {};
  std::vector<Influence> inf;
  for (size_t m = 0; m < file.meshes.size(); ++m) {
    const MeshPart& part = file.meshes[m];
    const uint32_t base = static_cast<uint32_t>(mesh.positions.size());
    for (size_t i = 0; i < part.verts.size(); ++i) {
      const MeshVert& v = part.verts[i];
      glm::vec3 p(0.0f);
      inf.clear();
      for (int k = 0; k < v.count_weight; ++k) {
        const MeshWeight& w = part.weights[v.start_weight + k];
        const MeshJoint& j = file.joints[w.joint];
        p += w.bias * (j.position + j.orientation * w.position);
        inf.push_back({skel.joint_of_source[w.joint], w.bias});
      }
      std::array<uint16_t, 4> joints;
      glm::vec4 weights;
      if (!reduce_influences(inf, joints, weights))
        return invalid_argument(path + ":" + std::to_string(v.line) + ": mesh " +
                                std::to_string(m) + " vert " + std::to_string(i) +
                                ": its weights' biases sum to 0 or overflow");
      if (!is_finite(p))
        return invalid_argument(path + ":" + std::to_string(v.line) + ": mesh " +
                                std::to_string(m) + " vert " + std::to_string(i) +
                                ": bind position overflows (weights too large)");
      mesh.positions.push_back(z_up_to_y_up(p));
      mesh.uvs.push_back(v.uv);
      mesh.joints.push_back(joints);
      mesh.weights.push_back(weights);
    }
    Submesh sub;
    sub.first_index = static_cast<uint32_t>(mesh.indices.size());
    sub.index_count = static_cast<uint32_t>(3 * part.tris.size());
    sub.material = part.shader;
    for (const auto& t : part.tris) {
      // Doom 3 lists front faces clockwise; glTF (and our renderer) expect counter-clockwise,
      // so the last two corners are swapped. The Z-up -> Y-up rotation keeps handedness, so it
      // does not change winding by itself.
      mesh.indices.push_back(base + static_cast<uint32_t>(t[0]));
      mesh.indices.push_back(base + static_cast<uint32_t>(t[2]));
      mesh.indices.push_back(base + static_cast<uint32_t>(t[1]));
    }
    mesh.submeshes.push_back(std::move(sub));
  }

  // Smooth normals: each triangle adds its unnormalized (area-weighted) face normal to its
  // corners. Vertices in no triangle (or only degenerate ones) get +Y so normals stay unit.
  mesh.normals.assign(mesh.positions.size(), glm::vec3(0.0f));
  for (size_t i = 0; i + 2 < mesh.indices.size(); i += 3) {
    const uint32_t a = mesh.indices[i], b = mesh.indices[i + 1], c = mesh.indices[i + 2];
    const glm::vec3 n =
        glm::cross(mesh.positions[b] - mesh.positions[a], mesh.positions[c] - mesh.positions[a]);
    mesh.normals[a] += n;
    mesh.normals[b] += n;
    mesh.normals[c] += n;
  }
  // Divided by the largest component first, so that neither squares overflowing (huge
  // triangles) nor denormal squares losing precision (tiny ones) make a normal non-unit. A sum
  // that overflowed (an infinite or NaN component) gets +Y too.
  for (glm::vec3& n : mesh.normals) {
    const float m = std::max({std::abs(n.x), std::abs(n.y), std::abs(n.z)});
    const bool usable = is_finite(n) && m > 0.0f;
    n = usable ? glm::normalize(n / m) : glm::vec3(0.0f, 1.0f, 0.0f);
  }
  return Status::ok();
}

}  // namespace anim::md5
