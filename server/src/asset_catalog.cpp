#include "asset_catalog.h"

#include <cstring>

#include "proto_convert.h"

namespace animd {

void fill_asset_info(const anim::Asset& a, anim::v1::AssetInfo* out) {
  out->set_name(a.name);
  out->set_source(a.source);
  out->set_num_joints(static_cast<uint32_t>(a.skeleton.num_joints()));
  for (const auto& clip : a.clips) {
    auto* c = out->add_clips();
    c->set_name(clip.name);
    c->set_duration(clip.duration);
  }
  out->set_num_vertices(static_cast<uint32_t>(a.mesh.num_vertices()));
  out->set_num_triangles(static_cast<uint32_t>(a.mesh.indices.size() / 3));
  for (const auto& w : a.warnings) out->add_warnings(w);
}

namespace {
template <class T>
std::string pack(const std::vector<T>& v) {
  std::string s(v.size() * sizeof(T), '\0');
  if (!v.empty()) std::memcpy(s.data(), v.data(), s.size());
  return s;
}

void add_mat4(const glm::mat4& m, google::protobuf::RepeatedField<float>* out) {
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r) out->Add(m[c][r]);  // column-major
}
}  // namespace

void fill_asset_data(const anim::Asset& a, bool skip_mesh, anim::v1::GetAssetDataReply* out) {
  fill_asset_info(a, out->mutable_info());
  auto* sk = out->mutable_skeleton();
  const auto& s = a.skeleton;
  for (int i = 0; i < s.num_joints(); ++i) {
    sk->add_joint_names(s.names[i]);
    sk->add_parents(s.parents[i]);
    to_proto(s.rest_pose[i], sk->add_rest_pose());
    add_mat4(s.inverse_bind[i], sk->mutable_inverse_bind());
  }
  add_mat4(s.root_transform, sk->mutable_root_transform());
  if (skip_mesh) return;
  // glm vectors are tightly packed floats and the host is little-endian (x86-64, aarch64).
  static_assert(sizeof(glm::vec3) == 12 && sizeof(glm::vec2) == 8 && sizeof(glm::vec4) == 16);
  static_assert(sizeof(std::array<uint16_t, 4>) == 8);
  const auto& m = a.mesh;
  auto* md = out->mutable_mesh();
  md->set_num_vertices(static_cast<uint32_t>(m.num_vertices()));
  md->set_positions(pack(m.positions));
  md->set_normals(pack(m.normals));
  md->set_uvs(pack(m.uvs));
  md->set_joints(pack(m.joints));
  md->set_weights(pack(m.weights));
  md->set_indices(pack(m.indices));
  for (const auto& sm : m.submeshes) {
    auto* o = md->add_submeshes();
    o->set_first_index(sm.first_index);
    o->set_index_count(sm.index_count);
    o->set_material(sm.material);
  }
}

}  // namespace animd
