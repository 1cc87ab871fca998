#pragma once
// Conversions between the wire protocol (anim::v1) and core types, with validation.
// Every conversion that can fail returns anim::Status / anim::Expected naming the field
// (e.g. "play.speed is NaN"); nothing here changes any state.

#include <string>

#include "anim/asset.h"
#include "anim/palette.h"
#include "anim/status.h"
#include "anim/transform.h"
#include "anim/v1/assets.pb.h"
#include "anim/v1/envelope.pb.h"

namespace animd {

// anim::StatusCode maps 1:1 (same numbers) onto anim::v1::StatusCode.
anim::v1::StatusCode to_proto(anim::StatusCode code);
void set_status(anim::v1::Reply& reply, const anim::Status& status);
void set_status(anim::v1::Reply& reply, anim::v1::StatusCode code, std::string message);

// Checks a float field is finite; `field` names it in the error.
anim::Status check_finite(float value, const std::string& field);
// Checks a float field is finite and within [lo, hi].
anim::Status check_range(float value, float lo, float hi, const std::string& field);

// Vec3 -> glm::vec3, every component finite.
anim::Expected<glm::vec3> from_proto(const anim::v1::Vec3& v, const std::string& field);

// Transform -> anim::Transform. Unset rotation (all zero) = identity, otherwise normalized
// (a near-zero quaternion is an error); unset scale = 1; a set scale must be non-zero.
anim::Expected<anim::Transform> from_proto(const anim::v1::Transform& t, bool has_value,
                                           const std::string& field);

void to_proto(const anim::Transform& t, anim::v1::Transform* out);
void to_proto(const glm::vec3& v, anim::v1::Vec3* out);

// Appends a palette (12 floats per joint, row-major 3x4) to a repeated float field.
void append_palette(const anim::PaletteMatrix* data, size_t count,
                    google::protobuf::RepeatedField<float>* out);

// Summary of an asset for list_assets / load_asset.
void fill_asset_info(const anim::Asset& asset, anim::v1::AssetInfo* out);
// Skeleton and (unless skip_mesh) the mesh, packed as assets.proto describes.
void fill_asset_data(const anim::Asset& asset, bool skip_mesh, anim::v1::GetAssetDataReply* out);

}  // namespace animd
