#pragma once
// raycast and overlap_sphere answered from the pose history (pose_history.h), the way
// query_pose is (pose_query.h): the frame of the asked tick is immutable, so any thread may
// answer without waiting for the tick: network threads answer every hit query themselves,
// and the World answers the ones that reach it (tests, the dispatch fuzz target).
//
// Per query:
//  1. broad phase, every character of the frame: a sphere around its joints as the tick
//     posed them (HistoryFrame::placements, written with its record), grown by its asset's
//     capsule reach; a dozen flops a character, 44 bytes read (entry and placement);
//  2. narrow phase, the characters whose bound the ray or sphere meets: the tick's pose is
//     evaluated again from its record (anim::evaluate_pose, bit for bit the streamed one) and
//     its capsules tested. A ray visits them by increasing distance to their bound and stops
//     once the nearest hit is nearer than the next bound, so a shot at a crowd usually poses
//     one or two characters.
// The capsules tested are those in force when the query is answered (hit_volume_table.h).
// At most `max_poses` characters are posed per query (--max-hit-query-poses): a query that
// would need more gets RESOURCE_EXHAUSTED, so that one request cannot hold a network thread
// for long. Evaluation scratch is per thread (allocated once per thread and skeleton size).

#include <cstdint>

#include "anim/status.h"
#include "history/history_queries.h"
#include "history/hit_volume_table.h"
#include "history/pose_history.h"

namespace animd {

// What a query cost (benchmarks, tests).
struct HitQueryCost {
  uint32_t candidates = 0;  // characters whose bound the ray or sphere met
  uint32_t posed = 0;       // of those, the ones whose pose was evaluated
};

// `newest_tick` (optional) receives the newest published tick consulted (0 when none);
// `cost` (optional) what the query took.
anim::Expected<RaycastHit> raycast_history(const PoseHistory& history,
                                           const HitVolumeTable& volumes, const Raycast& query,
                                           uint32_t max_poses, uint64_t* newest_tick = nullptr,
                                           HitQueryCost* cost = nullptr);

anim::Expected<SphereOverlap> overlap_history(const PoseHistory& history,
                                              const HitVolumeTable& volumes,
                                              const OverlapSphere& query, uint32_t max_poses,
                                              uint64_t* newest_tick = nullptr,
                                              HitQueryCost* cost = nullptr);

}  // namespace animd
