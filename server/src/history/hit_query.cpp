#include "history/hit_query.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "history/history_record.h"
#include "history/shown_pose.h"

namespace animd {

namespace {

// A character whose bound the query meets: its entry in the frame, and (rays) where the ray
// enters its bound.
struct Candidate {
  float enter = 0.0f;
  uint32_t entry = 0;
};

// One thread's buffers: after its first queries, a query allocates only its answer.
struct HitScratch {
  ShownPoseScratch shown;
  std::vector<Candidate> candidates;
  std::vector<const anim::HitVolumes*> volumes;  // per frame asset
  // Per frame asset: its capsules' reach beyond the joints (HitVolumes::capsule_reach); < 0
  // when it has no volume at all.
  std::vector<float> reach;
  std::vector<uint32_t> joints;
};

HitScratch& hit_thread_scratch() {
  thread_local HitScratch scratch;
  return scratch;
}

std::string available(const PoseHistory& h) {
  const auto [oldest, newest] = h.window();
  if (oldest > newest) return "the pose history is empty";
  return "available ticks " + std::to_string(oldest) + ".." + std::to_string(newest);
}

// The frame of `tick` (unset: the newest), or the error naming `what`.tick.
anim::Expected<FrameRef> frame_at(const PoseHistory& h, const std::optional<uint64_t>& tick,
                                  const std::string& what, uint64_t* newest_tick) {
  FrameRef frame = h.newest();
  if (newest_tick) *newest_tick = frame ? frame->tick : 0;
  if (!frame)
    return anim::not_found(what + ": no tick has been published yet (the pose history is empty)");
  const uint64_t newest = frame->tick;
  const uint64_t want = tick.value_or(newest);
  if (want > newest)
    return anim::invalid_argument(what + ".tick " + std::to_string(want) + " is in the future; " +
                                  available(h));
  if (want != newest) frame = h.at(want);
  if (!frame && h.skipped(want))
    return anim::not_found(what + ".tick " + std::to_string(want) +
                           " was skipped: the daemon ran no tick of that number (it was late); " +
                           available(h));
  if (!frame)
    return anim::not_found(what + ".tick " + std::to_string(want) +
                           " is not in the pose history; " + available(h));
  return frame;
}

// Fills s.volumes and s.reach for the frame's assets, from the volumes in force.
void gather_volumes(const HistoryFrame& f, const HitVolumeOverrides& overrides, HitScratch& s) {
  s.volumes.clear();
  s.reach.clear();
  for (const auto& asset : f.assets) {
    const anim::HitVolumes& v = volumes_in_force(overrides, *asset);
    s.volumes.push_back(&v);
    s.reach.push_back(v.empty ? -1.0f : v.capsule_reach);
  }
}

// The sphere holding entry i's capsules at the frame's tick (its joints' bound, grown by its
// capsules' reach); false when it has nothing to hit.
bool bound_of(const HistoryFrame& f, size_t i, const HitScratch& s, glm::vec3& center,
              float& radius) {
  const HistoryEntry& e = f.entries[i];
  const float reach = s.reach[e.asset];
  if (e.size == 0 || reach < 0.0f) return false;
  const HitPlacement& p = f.placements[i];
  center = p.center;
  radius = p.radius + reach * p.stretch;
  return true;
}

bool ignored(const std::vector<uint32_t>& ignore, uint32_t id) {
  return !ignore.empty() && std::binary_search(ignore.begin(), ignore.end(), id);
}

// Entry i's pose at the frame's tick as it was shown (shown_pose.h), as a HitPose.
anim::Expected<anim::HitPose> pose_of(const PoseHistory& h, const HistoryFrame& f, size_t i,
                                      HitScratch& s) {
  if (auto st = evaluate_shown(h, f, f.entries[i], s.shown); !st) return st;
  // A finite stretch: the joints' scales are within the asset's bounds (HitPlacement).
  return anim::hit_pose(s.shown.model, s.shown.record.reported_root,
                        std::isfinite(f.placements[i].stretch));
}

anim::Status too_many(const std::string& what, size_t needed, uint32_t max_poses,
                      const std::string& advice) {
  return anim::Status(anim::StatusCode::kResourceExhausted,
                      what + ": " + std::to_string(needed) +
                          " characters would have to be posed, above --max-hit-query-poses (" +
                          std::to_string(max_poses) + "); " + advice);
}

}  // namespace

anim::Expected<RaycastHit> raycast_history(const PoseHistory& h, const HitVolumeTable& table,
                                           const Raycast& q, uint32_t max_poses,
                                           uint64_t* newest_tick, HitQueryCost* cost) {
  auto frame = frame_at(h, q.tick, "raycast", newest_tick);
  if (!frame) return frame.error();
  const HistoryFrame& f = **frame;
  const auto overrides = table.get();
  HitScratch& s = hit_thread_scratch();
  gather_volumes(f, *overrides, s);

  const anim::Ray ray{q.origin, q.direction, q.max_distance};
  s.candidates.clear();
  for (size_t i = 0; i < f.entries.size(); ++i) {
    glm::vec3 center;
    float radius;
    if (!bound_of(f, i, s, center, radius)) continue;
    // Most characters are far from the ray: the segment's closest approach to the centre
    // rejects them here, inline; the entry distance is computed for the others only.
    const glm::vec3 d = center - ray.origin;
    const float along = std::clamp(glm::dot(d, ray.direction), 0.0f, ray.max_distance);
    const glm::vec3 off = d - along * ray.direction;
    if (glm::dot(off, off) > radius * radius) continue;
    if (auto t = anim::ray_sphere(ray, center, radius))
      if (!ignored(q.ignore, f.entries[i].character))
        s.candidates.push_back({*t, static_cast<uint32_t>(i)});
  }
  std::sort(s.candidates.begin(), s.candidates.end(), [](const Candidate& x, const Candidate& y) {
    return x.enter < y.enter || (x.enter == y.enter && x.entry < y.entry);
  });

  RaycastHit out;
  out.tick = f.tick;
  out.server_time = f.server_time;
  uint32_t posed = 0;
  if (cost) *cost = {static_cast<uint32_t>(s.candidates.size()), 0};
  for (const Candidate& c : s.candidates) {
    // Bounds hold their capsules: one entered beyond the nearest hit cannot hold a nearer one.
    if (out.hit && c.enter > out.distance) break;
    if (posed == max_poses)
      return too_many("raycast", s.candidates.size(), max_poses, "shorten max_distance");
    ++posed;
    if (cost) cost->posed = posed;
    const HistoryEntry& e = f.entries[c.entry];
    anim::Ray r = ray;
    if (out.hit) r.max_distance = out.distance;
    const auto pose = pose_of(h, f, c.entry, s);
    if (!pose) return anim::Status(pose.error().code(), "raycast: " + pose.error().message());
    const auto hit = anim::raycast_pose(*s.volumes[e.asset], *pose, r);
    // Equal distances: the lower character id (candidates are not visited in id order).
    if (!hit || (out.hit && (hit->distance > out.distance ||
                             (hit->distance == out.distance && e.character > out.character_id))))
      continue;
    out.hit = true;
    out.character_id = e.character;
    out.joint = static_cast<uint32_t>(hit->joint);
    out.asset = f.assets[e.asset];
    out.point = hit->point;
    out.normal = hit->normal;
    out.distance = hit->distance;
  }
  return out;
}

anim::Expected<SphereOverlap> overlap_history(const PoseHistory& h, const HitVolumeTable& table,
                                              const OverlapSphere& q, uint32_t max_poses,
                                              uint64_t* newest_tick, HitQueryCost* cost) {
  auto frame = frame_at(h, q.tick, "overlap_sphere", newest_tick);
  if (!frame) return frame.error();
  const HistoryFrame& f = **frame;
  const auto overrides = table.get();
  HitScratch& s = hit_thread_scratch();
  gather_volumes(f, *overrides, s);

  s.candidates.clear();
  for (size_t i = 0; i < f.entries.size(); ++i) {
    glm::vec3 center;
    float radius;
    if (!bound_of(f, i, s, center, radius)) continue;
    const glm::vec3 d = q.center - center;
    const float reach = q.radius + radius;
    if (glm::dot(d, d) <= reach * reach && !ignored(q.ignore, f.entries[i].character))
      s.candidates.push_back({0.0f, static_cast<uint32_t>(i)});
  }
  if (cost) *cost = {static_cast<uint32_t>(s.candidates.size()), 0};
  if (s.candidates.size() > max_poses)
    return too_many("overlap_sphere", s.candidates.size(), max_poses, "use a smaller radius");
  if (cost) cost->posed = static_cast<uint32_t>(s.candidates.size());

  SphereOverlap out;
  out.tick = f.tick;
  out.server_time = f.server_time;
  for (const Candidate& c : s.candidates) {  // in entry order: by increasing id
    const HistoryEntry& e = f.entries[c.entry];
    s.joints.clear();
    const auto pose = pose_of(h, f, c.entry, s);
    if (!pose)
      return anim::Status(pose.error().code(), "overlap_sphere: " + pose.error().message());
    anim::overlap_pose(*s.volumes[e.asset], *pose, q.center, q.radius, s.joints);
    if (!s.joints.empty()) out.characters.push_back({e.character, f.assets[e.asset], s.joints});
  }
  return out;
}

}  // namespace animd
