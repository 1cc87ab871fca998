#include "pose_history.h"

#include <algorithm>
#include <limits>

namespace animd {

namespace {
constexpr uint64_t kEmpty = std::numeric_limits<uint64_t>::max();
}

PoseHistory::PoseHistory(int capacity_ticks, int num_joints)
    : capacity_(std::max(1, capacity_ticks)),
      joints_(num_joints),
      ticks_(capacity_, kEmpty),
      times_(capacity_, 0.0),
      roots_(capacity_),
      model_(static_cast<size_t>(capacity_) * num_joints) {}

void PoseHistory::record(uint64_t tick, double server_time, const anim::Transform& root,
                         std::span<const glm::mat4> model) {
  const int slot = static_cast<int>(tick % static_cast<uint64_t>(capacity_));
  ticks_[slot] = tick;
  times_[slot] = server_time;
  roots_[slot] = root;
  // Uncached stores: the history is written every tick and seldom read (query_pose), and
  // all characters' histories together are far larger than the caches.
  const size_t n = std::min(static_cast<size_t>(joints_), model.size());
  anim::to_rows_uncached(model.first(n),
                         std::span(model_).subspan(static_cast<size_t>(slot) * joints_, n));
  newest_ = tick;
  ++count_;
}

int PoseHistory::find(uint64_t tick) const {
  if (count_ == 0 || tick > newest_) return -1;
  const int slot = static_cast<int>(tick % static_cast<uint64_t>(capacity_));
  return ticks_[slot] == tick ? slot : -1;
}

uint64_t PoseHistory::oldest_tick() const {
  const uint64_t span = std::min<uint64_t>(count_, static_cast<uint64_t>(capacity_));
  return newest_ + 1 - span;
}

}  // namespace animd
