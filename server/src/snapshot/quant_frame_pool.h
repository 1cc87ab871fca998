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
  // windows of kPeakWindow acquisitions) plus kSpareFrames, and at least kMinFrames. Beyond
  // that a busy moment's extra frames are freed when let go.
  static constexpr size_t kMinFrames = 16;
  static constexpr size_t kSpareFrames = 4;
  static constexpr uint32_t kPeakWindow = 1024;

  // A frame for the tick thread to fill (its vectors hold stale contents).
  QuantRef acquire() {
    std::shared_ptr<QuantFrame> idle;
    size_t in_use = 1;  // the one handed out
    for (const auto& f : frames_) {
      if (f->users.load(std::memory_order_acquire) != 0)
        ++in_use;
      else if (!idle)
        idle = f;
    }
    in_use_.acquired(in_use);
    const size_t kept = std::max(kMinFrames, in_use_.peak() + kSpareFrames);
    if (!idle) {
      idle = std::make_shared<QuantFrame>();
      if (frames_.size() < kept) frames_.push_back(idle);
    } else if (frames_.size() > kept) {
      // One more idle frame than the handed-out one goes.
      auto extra = std::find_if(frames_.begin(), frames_.end(), [&](const auto& f) {
        return f != idle && f->users.load(std::memory_order_acquire) == 0;
      });
      if (extra != frames_.end()) frames_.erase(extra);
    }
    return QuantRef(std::move(idle));
  }

  // Frames kept for reuse (in use or idle); for tests.
  size_t kept() const { return frames_.size(); }

 private:
  std::vector<std::shared_ptr<QuantFrame>> frames_;
  RecentPeak in_use_{kPeakWindow};
};

}  // namespace animd
