#pragma once
// A ring buffer of one character's recent poses: per tick, the root transform and the
// model-space matrix of every joint (3x4 floats, the same layout as the palette). Sized at
// spawn; record() never allocates (it runs inside the parallel character update).

#include <cstdint>
#include <span>
#include <vector>

#include <glm/glm.hpp>

#include "anim/palette.h"
#include "anim/transform.h"

namespace animd {

class PoseHistory {
 public:
  PoseHistory(int capacity_ticks, int num_joints);

  void record(uint64_t tick, double server_time, const anim::Transform& root,
              std::span<const glm::mat4> model);

  // The slot holding `tick`, or -1 when it is not (or no longer) recorded.
  int find(uint64_t tick) const;
  bool empty() const { return count_ == 0; }
  uint64_t newest_tick() const { return newest_; }
  uint64_t oldest_tick() const;  // meaningful when !empty()

  uint64_t tick(int slot) const { return ticks_[slot]; }
  double server_time(int slot) const { return times_[slot]; }
  const anim::Transform& root(int slot) const { return roots_[slot]; }
  std::span<const anim::PaletteMatrix> model(int slot) const {
    return {model_.data() + static_cast<size_t>(slot) * joints_, static_cast<size_t>(joints_)};
  }

 private:
  int capacity_;
  int joints_;
  uint64_t newest_ = 0;
  uint64_t count_ = 0;
  std::vector<uint64_t> ticks_;
  std::vector<double> times_;
  std::vector<anim::Transform> roots_;
  std::vector<anim::PaletteMatrix> model_;
};

}  // namespace animd
