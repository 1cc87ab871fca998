#pragma once
// QuantFramePool: recycles the tick's QuantFrames (snapshot.h) like SnapshotPool recycles
// snapshots, so that quantizing allocates nothing once the character count is steady. A frame
// is reused once no QuantRef holds it: every snapshot that referred to it (as its own tick or
// as a baseline) has been let go.

#include <memory>
#include <vector>

#include "snapshot/snapshot.h"

namespace animd {

class QuantFramePool {
 public:
  // Frames kept for reuse; beyond that a busy moment's extra frames are freed when let go.
  static constexpr size_t kMaxFrames = 16;

  // A frame for the tick thread to fill (its vectors hold stale contents).
  QuantRef acquire() {
    for (auto& f : frames_)
      if (f->users.load(std::memory_order_acquire) == 0) return QuantRef(f);
    auto fresh = std::make_shared<QuantFrame>();
    if (frames_.size() < kMaxFrames) frames_.push_back(fresh);
    return QuantRef(std::move(fresh));
  }

 private:
  std::vector<std::shared_ptr<QuantFrame>> frames_;
};

}  // namespace animd
