// Animator: marker sync of crossfades by the foot IK's foot plants (foot_markers.h).
#include <span>

#include "anim/animator.h"
#include "foot_markers.h"

namespace anim {

bool Animator::marker_time(const Player& leader, const Player& follower, float& out) const {
  return marker_time(leader.clip, leader.time, follower.clip, follower.time, out);
}

bool Animator::marker_time(int leader_clip, float leader_time, int follower_clip,
                           float follower_time, float& out) const {
  if (!setup_ || !setup_->feet || leader_clip < 0 || follower_clip < 0) return false;
  const std::vector<StrideCurves>& strides = setup_->feet->strides;
  const size_t lc = static_cast<size_t>(leader_clip), fc = static_cast<size_t>(follower_clip);
  if (lc >= strides.size() || fc >= strides.size()) return false;
  return foot_markers::follow(strides[lc].plants, clips_[lc].duration, leader_time,
                              strides[fc].plants, clips_[fc].duration, follower_time, out);
}

}  // namespace anim
