#pragma once
// Human-readable and JSON renderings shared by the animctl commands.

#include <ostream>
#include <string>

#include <google/protobuf/message.h>

#include "anim/v1/envelope.pb.h"

namespace animctl {

// "(0.000, 1.200, -0.500)"
std::string fmt_vec3(const anim::v1::Vec3& v);
std::string fmt_quat(const anim::v1::Quat& q);
// "t=(..) r=(..) s=(..)"; an unset rotation prints as identity, an unset scale as 1.
std::string fmt_transform(const anim::v1::Transform& t);
// One line with protobuf's JSON mapping (snake_case field names, defaults included).
std::string to_json(const google::protobuf::Message& message);

void print_assets(const anim::v1::ListAssetsReply& reply, std::ostream& out);
void print_asset(const anim::v1::AssetInfo& asset, std::ostream& out);
void print_characters(const anim::v1::ListCharactersReply& reply, std::ostream& out);
void print_stats(const anim::v1::StatsReply& stats, std::ostream& out);
void print_pose(const anim::v1::QueryPoseReply& pose, std::ostream& out);
// "hit character 3 joint 5 (head) at 4.812 ..." or "no hit", with the tick.
void print_raycast(const anim::v1::RaycastReply& ray, std::ostream& out);
// One line per character overlapped, naming its joints; "nothing overlapped" when none.
void print_overlap(const anim::v1::OverlapSphereReply& overlap, std::ostream& out);
// The capsules in force, one joint per line.
void print_hit_volumes(const anim::v1::HitVolumesReply& volumes, std::ostream& out);
// A one-line summary of a stream frame: tick, then per character its root position and the
// translation column of palette matrix `joint` (0 = the first joint), and the stream's mean
// wire bytes per frame when `bytes_per_frame` >= 0.
void print_frame_summary(const anim::v1::StreamFrame& frame, uint32_t joint, std::ostream& out,
                         double bytes_per_frame = -1.0);
// Summary of get_asset_data (counts, bounds, joints); json: one JSON object.
void print_mesh_summary(const anim::v1::GetAssetDataReply& data, bool json, std::ostream& out);

}  // namespace animctl
