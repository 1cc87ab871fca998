#pragma once
// QuantFramePool: recycles the tick's QuantFrames (snapshot.h) like SnapshotPool recycles
// snapshots, so that quantizing allocates nothing once the character count is steady. A frame
// is reused once no QuantRef holds it: every snapshot that referred to it (as its own tick or
// as a baseline) has been let go.

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "snapshot/recent_peak.h"
#include "snapshot/snapshot.h"

namespace animd {

class QuantFramePool {
 public:
  // Frames kept (in use and idle): the most in use at once lately (recent_peak.h, over
  // windows of kPeakWindow ticks) plus kSpareFrames, and at least kMinFrames. A frame made
  // while none is idle is kept; beyond what the pool keeps, one idle frame a tick is freed
  // (on the tick thread) until it keeps no more.
  static constexpr size_t kMinFrames = 16;
  static constexpr size_t kSpareFrames = 4;
  static constexpr uint32_t kPeakWindow = 256;

  // A frame for the tick thread to fill (its vectors hold stale contents). Counts as the
  // tick's note_tick().
  QuantRef acquire() {
    std::shared_ptr<QuantFrame> frame = settle(1);
    if (!frame) {
      frame = std::make_shared<QuantFrame>();
      frames_.push_back(frame);
    }
    return QuantRef(std::move(frame));
  }

  // A tick that acquires no frame (no compact subscription): the window still counts, so
  // the frames of a past peak are let go.
  void note_tick() { settle(0); }

  // Frames kept for reuse (in use or idle).
  size_t kept() const { return frames_.size(); }
  // Bytes they hold (QuantFrame::bytes). Tick thread.
  size_t bytes() const {
    size_t n = 0;
    for (const auto& f : frames_) n += f->bytes();
    return n;
  }

 private:
  // Counts this tick's frames in use (`handing_out` more about to be), frees one idle frame
  // beyond what the pool keeps, and returns an idle frame to hand out (null: none).
  std::shared_ptr<QuantFrame> settle(size_t handing_out) {
    std::shared_ptr<QuantFrame> idle;
    size_t in_use = handing_out;
    for (const auto& f : frames_) {
      if (f->users.load(std::memory_order_acquire) != 0)
        ++in_use;
      else if (!idle)
        idle = f;
    }
    in_use_.acquired(in_use);
    const size_t kept = std::max(kMinFrames, in_use_.peak() + kSpareFrames);
    if (frames_.size() > kept) {
      auto extra = std::find_if(frames_.begin(), frames_.end(), [&](const auto& f) {
        return f != idle && f->users.load(std::memory_order_acquire) == 0;
      });
      if (extra != frames_.end()) frames_.erase(extra);
    }
    return handing_out > 0 ? idle : nullptr;
  }

  std::vector<std::shared_ptr<QuantFrame>> frames_;  // every frame kept, in use or idle
  RecentPeak in_use_{kPeakWindow};                   // frames in use at each tick
};

}  // namespace animd
