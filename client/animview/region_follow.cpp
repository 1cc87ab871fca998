#include "region_follow.h"

#include <algorithm>

namespace animview {

float RegionFollow::threshold() const {
  return std::max(0.05f, 0.1f * radius_);
}

std::optional<glm::vec3> RegionFollow::update(const glm::vec3& target) {
  if (in_flight_) return std::nullopt;
  if (!(glm::distance(target, sent_) >= threshold())) return std::nullopt;  // NaN: no move
  if (refused_ && !(glm::distance(target, *refused_) >= threshold())) return std::nullopt;
  in_flight_ = true;
  asked_ = target;
  return target;
}

void RegionFollow::answered(bool ok) {
  in_flight_ = false;
  if (ok) {
    sent_ = asked_;
    refused_.reset();
  } else {
    refused_ = asked_;
  }
}

}  // namespace animview
