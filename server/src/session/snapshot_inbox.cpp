#include "session/snapshot_inbox.h"

#include <utility>

namespace animd {

bool SnapshotInbox::offer(const SnapshotPtr& snapshot) {
  std::lock_guard lock(mutex_);
  if (pending_.size() >= kMaxPending) {
    pending_.pop_front();
    ++discarded_;
  }
  pending_.push_back(snapshot);
  if (posted_) return false;
  posted_ = true;
  return true;
}

bool SnapshotInbox::nudge() {
  std::lock_guard lock(mutex_);
  if (posted_) return false;
  posted_ = true;
  return true;
}

uint32_t SnapshotInbox::take(std::deque<SnapshotPtr>& out) {
  out.clear();
  std::lock_guard lock(mutex_);
  std::swap(out, pending_);
  posted_ = false;
  return std::exchange(discarded_, 0);
}

}  // namespace animd
