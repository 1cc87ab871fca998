#pragma once
// Joint LOD: whether a character's next evaluations leave its asset's detail joints (fingers,
// toes, face: anim/joint_detail.h) at their rest pose. Decided with its update rate, per
// character and tick, from the same significance (significance.h) and pressure
// (update_rates.h):
//
//   - pressure 0 (everything fits the budget) or significance 1: full joints;
//   - otherwise a character below kDetailBelow skips its detail joints, and keeps skipping
//     them until its significance reaches kDetailBelow + kDetailHysteresis (no flicker at
//     the threshold).
//
// A pure function: equal inputs give equal decisions.

namespace animd {

inline constexpr float kDetailBelow = 0.5f;
inline constexpr float kDetailHysteresis = 0.1f;

bool next_skip_detail(float significance, bool skipping, float pressure);

}  // namespace animd
