#pragma once
// query_pose answered from the pose history (pose_history.h): the record of the asked tick is
// evaluated again (anim::evaluate_pose), which gives the matrices and palette the tick
// computed, bit for bit. Runs on any thread: network threads answer queries of the past and
// of the present (the newest published tick) without waiting for the tick, and the World
// answers the ones they pass on.

#include <cstdint>
#include <optional>

#include "anim/status.h"
#include "history/history_queries.h"
#include "history/pose_history.h"

namespace animd {

// The answer to `r` from `history`, with every error query_pose gives for a character the
// history knows (a tick in the future or out of the window, an unknown joint, a joint asked
// for twice: by two names, two indices, or a name and an index, INVALID_ARGUMENT naming both
// positions). Each joint is answered at most once, so the work and the answer are bounded by
// the skeleton, whatever the lists hold. nullopt when
// the newest frame does not have the character: unknown, despawned, or spawned since; the
// World, which knows which, answers then. `newest_tick` (optional) receives the tick of the
// newest frame that was consulted. Evaluation scratch is per thread (allocated once per
// thread and skeleton size).
std::optional<anim::Expected<PoseAnswer>> query_history(const PoseHistory& history,
                                                        const QueryPose& r,
                                                        uint64_t* newest_tick = nullptr);

}  // namespace animd
