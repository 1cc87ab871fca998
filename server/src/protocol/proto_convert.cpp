#include "protocol/proto_convert.h"

#include <array>
#include <cmath>
#include <cstring>

#include "snapshot/compact_layout.h"

namespace animd {

anim::v1::StatusCode to_proto(anim::StatusCode code) {
  switch (code) {
    case anim::StatusCode::kOk:
      return anim::v1::STATUS_OK;
    case anim::StatusCode::kInvalidArgument:
      return anim::v1::STATUS_INVALID_ARGUMENT;
    case anim::StatusCode::kNotFound:
      return anim::v1::STATUS_NOT_FOUND;
    case anim::StatusCode::kFailedPrecondition:
      return anim::v1::STATUS_FAILED_PRECONDITION;
    case anim::StatusCode::kDataLoss:
      return anim::v1::STATUS_DATA_LOSS;
    case anim::StatusCode::kUnimplemented:
      return anim::v1::STATUS_UNIMPLEMENTED;
    case anim::StatusCode::kResourceExhausted:
      return anim::v1::STATUS_RESOURCE_EXHAUSTED;
    case anim::StatusCode::kPermissionDenied:
      return anim::v1::STATUS_PERMISSION_DENIED;
    case anim::StatusCode::kUnavailable:
      return anim::v1::STATUS_UNAVAILABLE;
  }
  return anim::v1::STATUS_INTERNAL;
}

void set_status(anim::v1::Reply& reply, const anim::Status& status) {
  set_status(reply, to_proto(status.code()), status.message());
}

void set_status(anim::v1::Reply& reply, anim::v1::StatusCode code, std::string message) {
  reply.mutable_status()->set_code(code);
  reply.mutable_status()->set_message(std::move(message));
}

anim::Status check_finite(float value, const std::string& field) {
  if (std::isfinite(value)) return {};
  return anim::invalid_argument(field + (std::isnan(value) ? " is NaN" : " is infinite"));
}

anim::Status check_range(float value, float lo, float hi, const std::string& field) {
  if (auto s = check_finite(value, field); !s) return s;
  if (value < lo || value > hi)
    return anim::invalid_argument(field + " = " + std::to_string(value) + " is outside [" +
                                  std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return {};
}

anim::Expected<glm::vec3> from_proto(const anim::v1::Vec3& v, const std::string& field) {
  if (auto s = check_finite(v.x(), field + ".x"); !s) return s;
  if (auto s = check_finite(v.y(), field + ".y"); !s) return s;
  if (auto s = check_finite(v.z(), field + ".z"); !s) return s;
  return glm::vec3(v.x(), v.y(), v.z());
}

anim::Expected<anim::Transform> from_proto(const anim::v1::Transform& t, bool has_value,
                                           const std::string& field) {
  anim::Transform out;
  if (!has_value) return out;
  auto tr = from_proto(t.translation(), field + ".translation");
  if (!tr) return tr.error();
  out.translation = *tr;
  const auto& q = t.rotation();
  const char* names[4] = {".x", ".y", ".z", ".w"};
  const float comps[4] = {q.x(), q.y(), q.z(), q.w()};
  for (int i = 0; i < 4; ++i)
    if (auto s = check_finite(comps[i], field + ".rotation" + names[i]); !s) return s;
  const float len2 = q.x() * q.x() + q.y() * q.y() + q.z() * q.z() + q.w() * q.w();
  if (len2 == 0.0f) {
    out.rotation = glm::quat(1.0f, 0.0f, 0.0f, 0.0f);  // unset = identity
  } else if (len2 < 1e-12f) {
    return anim::invalid_argument(field + ".rotation has near-zero length");
  } else {
    out.rotation = glm::normalize(glm::quat(q.w(), q.x(), q.y(), q.z()));
  }
  if (t.has_scale()) {
    auto sc = from_proto(t.scale(), field + ".scale");
    if (!sc) return sc.error();
    if (sc->x == 0.0f || sc->y == 0.0f || sc->z == 0.0f)
      return anim::invalid_argument(field + ".scale has a zero component");
    out.scale = *sc;
  }
  return out;
}

void to_proto(const glm::vec3& v, anim::v1::Vec3* out) {
  out->set_x(v.x);
  out->set_y(v.y);
  out->set_z(v.z);
}

void to_proto(const anim::Transform& t, anim::v1::Transform* out) {
  to_proto(t.translation, out->mutable_translation());
  auto* r = out->mutable_rotation();
  r->set_x(t.rotation.x);
  r->set_y(t.rotation.y);
  r->set_z(t.rotation.z);
  r->set_w(t.rotation.w);
  to_proto(t.scale, out->mutable_scale());
}

void append_palette(const anim::PaletteMatrix* data, size_t count,
                    google::protobuf::RepeatedField<float>* out) {
  const int old = out->size();
  const int add = static_cast<int>(count * 12);
  out->Resize(old + add, 0.0f);
  if (add > 0) std::memcpy(out->mutable_data() + old, data, count * sizeof(anim::PaletteMatrix));
}

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
  for (const anim::MorphSet& set : a.mesh.morph_sets)
    for (const anim::MorphTarget& t : set.targets) out->add_morph_targets(set.name + "/" + t.name);
  out->set_fingerprint(a.fingerprint);
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

// A set's targets as stored: sparse, the same entries in the same order.
void add_morph_set(const anim::MorphSet& set, anim::v1::MeshData* out) {
  auto* s = out->add_morph_sets();
  s->set_name(set.name);
  s->set_node(set.node);
  for (const anim::VertexRange& r : set.ranges) {
    s->add_ranges(r.first_vertex);
    s->add_ranges(r.vertex_count);
  }
  for (const anim::MorphTarget& t : set.targets) {
    auto* o = s->add_targets();
    o->set_name(t.name);
    o->set_vertices(pack(t.vertices));
    o->set_position_deltas(pack(t.position_deltas));
    o->set_normal_deltas(pack(t.normal_deltas));
  }
  s->mutable_default_weights()->Add(set.default_weights.begin(), set.default_weights.end());
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
  const animcodec::Layout layout = make_compact_layout(a);
  sk->set_compact_precision(animcodec::precision_bytes(layout));
  sk->set_compact_skeleton_id(layout.id);
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
  for (const anim::MorphSet& set : m.morph_sets) add_morph_set(set, md);
}

}  // namespace animd
