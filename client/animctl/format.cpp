#include "format.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <limits>
#include <vector>

#include <google/protobuf/util/json_util.h>
#include <nlohmann/json.hpp>

namespace animctl {

namespace {

std::string fmt(const char* format, double a, double b, double c) {
  char buffer[128];
  std::snprintf(buffer, sizeof buffer, format, a, b, c);
  return buffer;
}

// Counts elements of `bytes` holding `stride`-byte items; reports a size that is no multiple.
size_t count_items(const std::string& bytes, size_t stride) {
  return bytes.size() / stride;
}

}  // namespace

std::string fmt_vec3(const anim::v1::Vec3& v) {
  return fmt("(%.3f, %.3f, %.3f)", v.x(), v.y(), v.z());
}

std::string fmt_quat(const anim::v1::Quat& q) {
  const bool unset = q.x() == 0 && q.y() == 0 && q.z() == 0 && q.w() == 0;
  char buffer[128];
  std::snprintf(buffer, sizeof buffer, "(%.3f, %.3f, %.3f, %.3f)", q.x(), q.y(), q.z(),
                unset ? 1.0f : q.w());
  return buffer;
}

std::string fmt_transform(const anim::v1::Transform& t) {
  anim::v1::Vec3 scale = t.scale();
  if (!t.has_scale()) {
    scale.set_x(1);
    scale.set_y(1);
    scale.set_z(1);
  }
  return "t=" + fmt_vec3(t.translation()) + " r=" + fmt_quat(t.rotation()) +
         " s=" + fmt_vec3(scale);
}

std::string to_json(const google::protobuf::Message& message) {
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  options.always_print_primitive_fields = true;
  std::string out;
  const auto status = google::protobuf::util::MessageToJsonString(message, &out, options);
  if (!status.ok()) return R"({"error":"cannot render JSON"})";
  return out;
}

void print_asset(const anim::v1::AssetInfo& asset, std::ostream& out) {
  out << asset.name() << "  (" << asset.source() << ")  " << asset.num_joints() << " joints, "
      << asset.num_vertices() << " vertices, " << asset.num_triangles() << " triangles\n";
  out << "  clips:";
  if (asset.clips().empty()) out << " none";
  for (const auto& clip : asset.clips()) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, " %.3fs", clip.duration());
    out << " " << clip.name() << buffer;
  }
  out << "\n";
  for (const auto& warning : asset.warnings()) out << "  warning: " << warning << "\n";
}

void print_assets(const anim::v1::ListAssetsReply& reply, std::ostream& out) {
  if (reply.assets().empty()) out << "no assets\n";
  for (const auto& asset : reply.assets()) print_asset(asset, out);
}

void print_characters(const anim::v1::ListCharactersReply& reply, std::ostream& out) {
  if (reply.characters().empty()) out << "no characters\n";
  for (const auto& c : reply.characters()) {
    out << c.character_id() << "  asset=" << c.asset()
        << "  clip=" << (c.clip().empty() ? "-" : c.clip());
    if (!c.blend_space().empty()) out << "  blend_space=" << c.blend_space();
    out << "  at " << fmt_vec3(c.root().translation());
    char lod[64];
    std::snprintf(lod, sizeof lod, "  significance=%.2f every=%u", c.significance(),
                  c.update_interval());
    out << lod << "\n";
  }
}

void print_stats(const anim::v1::StatsReply& s, std::ostream& out) {
  char line[256];
  std::snprintf(line, sizeof line, "tick %llu at %.1f Hz, uptime %.1f s, %u worker threads\n",
                static_cast<unsigned long long>(s.tick()), s.tick_rate_hz(), s.uptime_s(),
                s.worker_threads());
  out << line;
  out << "characters " << s.characters() << ", sessions " << s.sessions() << ", subscriptions "
      << s.subscriptions() << ", assets " << s.assets() << "\n";
  std::snprintf(line, sizeof line,
                "tick time p50 %.1f us, p99 %.1f us, max %.1f us; overruns %llu\n",
                s.tick_time_p50_us(), s.tick_time_p99_us(), s.tick_time_max_us(),
                static_cast<unsigned long long>(s.tick_overruns()));
  out << line;
  out << "bytes in " << s.bytes_in() << ", out " << s.bytes_out() << "; stream frames sent "
      << s.stream_frames_sent() << ", dropped " << s.stream_frames_dropped() << "\n";
  out << "requests " << s.requests() << ", errors " << s.request_errors() << "\n";
  if (s.anim_budget_ms() > 0)
    std::snprintf(line, sizeof line,
                  "update budget %.2f ms, pressure %.2f; characters by interval:",
                  s.anim_budget_ms(), s.anim_pressure());
  else
    std::snprintf(line, sizeof line, "update budget unlimited; characters by interval:");
  out << line;
  for (int i = 0; i < s.update_intervals_size(); ++i)
    if (s.update_intervals(i) > 0) out << " " << i + 1 << ":" << s.update_intervals(i);
  out << "\n";
}

void print_pose(const anim::v1::QueryPoseReply& pose, std::ostream& out) {
  char line[256];
  std::snprintf(line, sizeof line, "tick %llu (server time %.3f s)\n",
                static_cast<unsigned long long>(pose.tick()), pose.server_time());
  out << line;
  out << "root " << fmt_transform(pose.root()) << "\n";
  size_t width = 4;
  for (const auto& joint : pose.joints()) width = std::max(width, joint.name().size());
  for (const auto& joint : pose.joints()) {
    std::snprintf(line, sizeof line, "%4u %-*s ", joint.index(), static_cast<int>(width),
                  joint.name().c_str());
    out << line << fmt_vec3(joint.position()) << "\n";
  }
  out << "palette: " << pose.palette_size() / 12 << " joints\n";
  if (pose.morph_weights_size() > 0) {
    out << "morph weights:";
    for (float w : pose.morph_weights()) {
      std::snprintf(line, sizeof line, " %.4f", w);
      out << line;
    }
    out << "\n";
  }
}

void print_raycast(const anim::v1::RaycastReply& ray, std::ostream& out) {
  char line[256];
  if (!ray.hit()) {
    std::snprintf(line, sizeof line, "no hit (tick %llu)\n",
                  static_cast<unsigned long long>(ray.tick()));
    out << line;
    return;
  }
  std::snprintf(line, sizeof line, "hit character %u joint %u (%s) at distance %.4f (tick %llu)\n",
                ray.character_id(), ray.joint_index(), ray.joint_name().c_str(), ray.distance(),
                static_cast<unsigned long long>(ray.tick()));
  out << line << "point " << fmt_vec3(ray.point()) << " normal " << fmt_vec3(ray.normal()) << "\n";
}

void print_overlap(const anim::v1::OverlapSphereReply& overlap, std::ostream& out) {
  out << "tick " << overlap.tick() << ": ";
  if (overlap.characters().empty()) {
    out << "nothing overlapped\n";
    return;
  }
  out << overlap.characters_size() << " character(s)\n";
  for (const auto& c : overlap.characters()) {
    out << "character " << c.character_id() << ":";
    for (const auto& j : c.joints()) out << " " << j.name() << " (" << j.index() << ")";
    out << "\n";
  }
}

void print_hit_volumes(const anim::v1::HitVolumesReply& volumes, std::ostream& out) {
  out << "asset " << volumes.asset() << ": " << volumes.joints_size() << " capsules ("
      << (volumes.fitted() ? "fitted at load" : "set by set_hit_volumes") << ")\n";
  size_t width = 4;
  for (const auto& j : volumes.joints()) width = std::max(width, j.name().size());
  char line[256];
  for (const auto& j : volumes.joints()) {
    std::snprintf(line, sizeof line, "%4u %-*s ", j.joint_index(), static_cast<int>(width),
                  j.name().c_str());
    out << line << fmt_vec3(j.capsule().a()) << " - " << fmt_vec3(j.capsule().b()) << " r "
        << j.capsule().radius() << "\n";
  }
}

void print_frame_summary(const anim::v1::StreamFrame& frame, uint32_t joint, std::ostream& out,
                         double bytes_per_frame) {
  char line[128];
  std::snprintf(line, sizeof line, "tick %llu  t=%.3fs",
                static_cast<unsigned long long>(frame.tick()), frame.server_time());
  out << line;
  for (const auto& c : frame.characters()) {
    out << "  | char " << c.character_id() << " root " << fmt_vec3(c.root().translation());
    const size_t base = static_cast<size_t>(joint) * 12;
    if (static_cast<size_t>(c.palette_size()) >= base + 12) {
      // Row-major 3x4: the translation column is elements 3, 7, 11.
      anim::v1::Vec3 t;
      t.set_x(c.palette(static_cast<int>(base + 3)));
      t.set_y(c.palette(static_cast<int>(base + 7)));
      t.set_z(c.palette(static_cast<int>(base + 11)));
      out << " palette[" << joint << "].t " << fmt_vec3(t);
    }
    out << " (" << c.palette_size() / 12 << " joints)";
  }
  if (!frame.despawned().empty()) {
    out << "  | despawned";
    for (uint32_t id : frame.despawned()) out << " " << id;
  }
  if (!frame.left().empty()) {
    out << "  | left";
    for (uint32_t id : frame.left()) out << " " << id;
  }
  if (frame.dropped_since_last() > 0) out << "  | dropped " << frame.dropped_since_last();
  for (const auto& e : frame.events()) {
    char weight[24];
    std::snprintf(weight, sizeof weight, "%.2f", e.weight());
    out << "  | event char " << e.character_id() << " " << e.clip() << ":" << e.name();
    if (!e.payload().empty()) out << " [" << e.payload() << "]";
    out << " w=" << weight << (e.reverse() ? " reverse" : "");
    if (e.tick() != frame.tick()) out << " @" << e.tick();
  }
  if (frame.events_dropped() > 0) out << "  | events dropped " << frame.events_dropped();
  if (bytes_per_frame >= 0.0) {
    char bytes[48];
    std::snprintf(bytes, sizeof bytes, "  | %.1f B/frame", bytes_per_frame);
    out << bytes;
  }
  out << "\n";
}

void print_mesh_summary(const anim::v1::GetAssetDataReply& data, bool json, std::ostream& out) {
  const auto& mesh = data.mesh();
  const auto& skeleton = data.skeleton();
  const size_t vertices = count_items(mesh.positions(), 12);
  std::array<float, 3> lo{}, hi{};
  lo.fill(std::numeric_limits<float>::max());
  hi.fill(std::numeric_limits<float>::lowest());
  for (size_t v = 0; v < vertices; ++v) {
    float p[3];
    std::memcpy(p, mesh.positions().data() + v * 12, 12);  // little-endian float32, as on x86
    for (int k = 0; k < 3; ++k) {
      lo[k] = std::min(lo[k], p[k]);
      hi[k] = std::max(hi[k], p[k]);
    }
  }
  if (vertices == 0) lo = hi = {0, 0, 0};
  const size_t triangles = count_items(mesh.indices(), 4) / 3;

  if (json) {
    nlohmann::json j;
    j["asset"] = data.info().name();
    j["source"] = data.info().source();
    j["num_joints"] = skeleton.joint_names_size();
    nlohmann::json joints = nlohmann::json::array();
    for (int i = 0; i < skeleton.joint_names_size(); ++i)
      joints.push_back({{"name", skeleton.joint_names(i)},
                        {"parent", i < skeleton.parents_size() ? skeleton.parents(i) : -1}});
    j["joints"] = joints;
    j["num_vertices"] = vertices;
    j["num_triangles"] = triangles;
    j["has_mesh"] = data.has_mesh();
    j["has_uvs"] = !mesh.uvs().empty();
    j["bounds_min"] = lo;
    j["bounds_max"] = hi;
    nlohmann::json submeshes = nlohmann::json::array();
    for (const auto& s : mesh.submeshes())
      submeshes.push_back({{"first_index", s.first_index()},
                           {"index_count", s.index_count()},
                           {"material", s.material()}});
    j["submeshes"] = submeshes;
    j["bytes"] = {{"positions", mesh.positions().size()},
                  {"normals", mesh.normals().size()},
                  {"uvs", mesh.uvs().size()},
                  {"joints", mesh.joints().size()},
                  {"weights", mesh.weights().size()},
                  {"indices", mesh.indices().size()},
                  {"total", data.ByteSizeLong()}};
    out << j.dump() << "\n";
    return;
  }
  out << data.info().name() << "  (" << data.info().source() << ")\n";
  out << "skeleton: " << skeleton.joint_names_size() << " joints\n";
  for (int i = 0; i < skeleton.joint_names_size(); ++i) {
    const int parent = i < skeleton.parents_size() ? skeleton.parents(i) : -1;
    out << "  " << i << " " << skeleton.joint_names(i);
    if (parent >= 0 && parent < skeleton.joint_names_size())
      out << "  <- " << skeleton.joint_names(parent);
    out << "\n";
  }
  if (!data.has_mesh()) {
    out << "mesh: not requested\n";
    return;
  }
  out << "mesh: " << vertices << " vertices, " << triangles << " triangles, "
      << mesh.submeshes_size() << " submeshes" << (mesh.uvs().empty() ? ", no uvs" : "") << "\n";
  out << "bounds " << fmt("(%.3f, %.3f, %.3f)", lo[0], lo[1], lo[2]) << " .. "
      << fmt("(%.3f, %.3f, %.3f)", hi[0], hi[1], hi[2]) << "\n";
  for (const auto& s : mesh.submeshes())
    out << "  submesh " << (s.material().empty() ? "-" : s.material()) << ": "
        << s.index_count() / 3 << " triangles from index " << s.first_index() << "\n";
  out << "reply size " << data.ByteSizeLong() << " bytes\n";
}

}  // namespace animctl
