#pragma once
// The snapshots the tick hands one session, waiting for its strand: at most kMaxPending (beyond
// that the oldest is discarded and counted, so a stalled session costs the tick nothing), and
// one wake-up of the strand posted at a time. Any thread offers; the strand takes.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>

#include "snapshot/snapshot.h"

namespace animd {

class SnapshotInbox {
 public:
  static constexpr size_t kMaxPending = 4;

  // Any thread: adds `snapshot`. True when the caller is to post the strand's wake-up.
  bool offer(const SnapshotPtr& snapshot);
  // Any thread: asks for a wake-up without a new snapshot (the encode stage prepared one).
  // True when the caller is to post it (none is posted yet).
  bool nudge();
  // Strand, woken: moves the waiting snapshots (oldest first) into `out` (cleared first) and
  // returns how many were discarded since the last take.
  uint32_t take(std::deque<SnapshotPtr>& out);

 private:
  std::mutex mutex_;
  std::deque<SnapshotPtr> pending_;
  bool posted_ = false;
  uint32_t discarded_ = 0;
};

}  // namespace animd
