// Animator: marker sync of crossfades by the foot IK's foot plants (foot_markers.h).
#include <array>
#include <span>

#include "anim/animator.h"
#include "foot_markers.h"

namespace anim {

bool Animator::marker_time(const Player& leader, const Player& follower, float& out) const {
  if (!setup_ || !setup_->feet || leader.clip < 0 || follower.clip < 0) return false;
  const std::vector<StrideCurves>& strides = setup_->feet->strides;
  const size_t lc = static_cast<size_t>(leader.clip), fc = static_cast<size_t>(follower.clip);
  if (lc >= strides.size() || fc >= strides.size()) return false;
  std::array<foot_markers::Plant, foot_markers::kMaxPlants> lead{}, follow{};
  const float ld = clips_[lc].duration, fd = clips_[fc].duration;
  const int nl = foot_markers::plants_of(strides[lc], ld, lead);
  const int nf = foot_markers::plants_of(strides[fc], fd, follow);
  return foot_markers::follow(std::span(lead).first(static_cast<size_t>(nl)), ld, leader.time,
                              std::span(follow).first(static_cast<size_t>(nf)), fd, follower.time,
                              out);
}

}  // namespace anim
