#pragma once
// Stride curves: when each foot of a clip is planted, found once (when foot IK is set on a
// character) from the ankle's height and horizontal speed in model space.
//
// A foot is planted at a sample when both hold:
//   - its ankle is less than `height` above the lowest the ankle gets in the clip;
//   - its horizontal velocity differs from the clip's ground velocity by less than `speed`.
// The ground velocity is the mean horizontal velocity of the ankles over the samples where
// they are low (the height test alone): about zero for a clip that travels in its pose (planted
// feet stand still), minus the walking speed for an in-place ("treadmill") clip, so both kinds are
// found. Samples are taken at 60 per second (at least 8 per clip); velocities are central
// differences (wrapping around for clips whose first and last poses match).

#include <array>
#include <span>
#include <vector>

#include <glm/glm.hpp>

#include "anim/foot_ik.h"

namespace anim {

class Clip;
class Skeleton;

struct ContactInterval {
  float start = 0.0f;  // seconds, clip time; start <= end
  float end = 0.0f;
};

// One clip's stride curves.
// A moment a foot plants: the start of one of its contacts (marker "foot_l" or "foot_r").
struct FootPlant {
  float time = 0.0f;  // seconds, clip time, in [0, duration)
  int foot = 0;       // 0 left, 1 right
};

inline constexpr int kMaxFootPlants = 32;  // plants kept per clip (the first ones in time)

struct StrideCurves {
  std::array<std::vector<ContactInterval>, kNumFeet> contacts;  // sorted, disjoint
  glm::vec2 ground_velocity{0.0f};                              // model xz, asset units per second
  // The clip's plants sorted by time (then left first), at most kMaxFootPlants: the markers
  // marker sync follows. A contact starting at 0 that continues one ending at the clip's end
  // (a plant across the loop) is not a plant.
  std::vector<FootPlant> plants;
  bool planted(int foot, float time) const;
};

struct ContactThresholds {
  float height = 0.0f;  // asset units, > 0
  float speed = 0.0f;   // asset units per second, > 0
};

// The stride curves of `clip` for the two ankles (joint indices). Allocates (a command).
StrideCurves find_stride_curves(const Skeleton& skeleton, const Clip& clip,
                                std::array<int, kNumFeet> ankles, const ContactThresholds& t);

}  // namespace anim
