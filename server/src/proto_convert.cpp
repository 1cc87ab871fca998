#include "proto_convert.h"

#include <cmath>
#include <cstring>

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

}  // namespace animd
