#pragma once
// Foot markers: the moments each foot plants in a clip (the starts of its stride curves'
// contacts, markers "foot_l" and "foot_r"), and marker sync between two clips: the follower
// is placed at the same fraction of the way between the same pair of plants (left then
// right, say) as the leader. docs/animation.md, "Marker sync". No allocation.

#include <array>
#include <span>

#include "anim/foot_contacts.h"

namespace anim::foot_markers {

using Plant = FootPlant;
inline constexpr int kMaxPlants = kMaxFootPlants;

// The plants of a clip of `duration` seconds with these contacts, sorted by time, into
// `out`; returns how many (StrideCurves::plants has the rule).
int plants_of(const StrideCurves& curves, float duration, std::span<Plant, kMaxPlants> out);

// The time in the follower clip at the leader's place between plants: `leader_time` lies
// between plants i and i + 1 of the leader (cyclically) at fraction u; the follower's
// consecutive plants k, k + 1 with the same feet are chosen (the pair that contains
// `follower_time`, else the first), and the answer is u of the way from k to k + 1, wrapped
// into [0, follower duration). False (out untouched) when either clip has no plant or the
// follower has no such pair.
bool follow(std::span<const Plant> leader, float leader_duration, float leader_time,
            std::span<const Plant> follower, float follower_duration, float follower_time,
            float& out);

}  // namespace anim::foot_markers
