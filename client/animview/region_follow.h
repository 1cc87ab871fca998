#pragma once
// When a region subscription's region moves with the camera. Moving it costs a request that
// the daemon answers at its next tick, so small camera moves do not send one: the region is
// re-centred once the target has moved a tenth of the radius (at least 5 cm) from the centre
// last sent, and one move at a time is in flight (the next waits for its answer). Pure logic,
// no network: Connection sends what this decides.

#include <optional>

#include <glm/glm.hpp>

namespace animview {

class RegionFollow {
 public:
  // `radius` > 0 metres; `center`: where the subscription starts.
  RegionFollow(float radius, const glm::vec3& center) : radius_(radius), sent_(center) {}

  // The centre to send for a camera target at `target`, or nothing (too close to the last one
  // sent, or a move still in flight). A returned centre counts as sent and in flight.
  std::optional<glm::vec3> update(const glm::vec3& target);
  // The daemon answered the move in flight. A refused one leaves the region where the daemon
  // has it and is asked again only once the target has moved on from the refused centre.
  void answered(bool ok);

  glm::vec3 center() const { return sent_; }  // the last centre the daemon accepted
  bool in_flight() const { return in_flight_; }
  float threshold() const;  // metres the target moves before a move

 private:
  float radius_;
  glm::vec3 sent_;
  glm::vec3 asked_{0.0f};
  bool in_flight_ = false;
  std::optional<glm::vec3> refused_;  // the last centre refused, while the target is near it
};

}  // namespace animview
