#pragma once
// QuantFramePool: recycles the tick's QuantFrames (snapshot.h) like SnapshotPool recycles
// snapshots, so that quantizing allocates nothing once the character count is steady. A frame
// is reused when the pool holds its only reference: every snapshot that referred to it (as
// its own tick or as a baseline) has been let go.

#include <atomic>
#include <memory>
#include <vector>

#include "snapshot.h"

namespace animd {

class QuantFramePool {
 public:
  // Frames kept beyond those in use; more are freed once nobody holds them.
  static constexpr size_t kMaxFrames = 16;

  // A frame for the tick thread to fill (its vectors hold stale contents).
  std::shared_ptr<QuantFrame> acquire() {
    for (auto& f : frames_) {
      if (f.use_count() != 1) continue;
      // The holders' last reads happen before their release of the count; this pairs with it
      // before the frame is written again.
      std::atomic_thread_fence(std::memory_order_acquire);
      return f;
    }
    auto fresh = std::make_shared<QuantFrame>();
    if (frames_.size() < kMaxFrames) frames_.push_back(fresh);
    return fresh;
  }

 private:
  std::vector<std::shared_ptr<QuantFrame>> frames_;
};

}  // namespace animd
