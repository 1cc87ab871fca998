#pragma once
// SnapshotPool: recycles the tick's Snapshots so that a tick allocates nothing in steady
// state. A snapshot's palettes are large (characters x joints x 48 bytes); allocated afresh
// each tick they would be mapped and page-faulted every time.
//
// acquire() (tick thread) hands out a Snapshot whose vectors keep the capacity of an earlier
// tick; the caller overwrites every field. When the last holder lets go (a network thread
// after encoding, or the tick thread), the snapshot goes back to the pool: the return takes
// the pool's mutex, which also orders the holder's reads before the tick thread's next
// writes into the same buffers. The shared_ptr's control block lives in the pool's slot too,
// so a tick allocates nothing once enough slots exist (one per snapshot held at once).
//
// The pool may be destroyed while snapshots are still held (a session outliving the World):
// they keep its state alive and are freed with it.

#include <cstddef>
#include <cstdint>
#include <memory>

#include "snapshot/snapshot.h"

namespace animd {

class SnapshotPool {
 public:
  // Snapshots kept (in use and spare): the most in use at once lately (recent_peak.h, over
  // windows of kPeakWindow acquisitions) plus kMaxSpare. Subscribers that hold many for a
  // while do not make each tick allocate and page-fault a new one; a burst long past does not
  // pin their memory for good (the extras are freed when returned, or one at each
  // acquisition, on the tick thread).
  static constexpr size_t kMaxSpare = 4;
  static constexpr uint32_t kPeakWindow = 256;

  SnapshotPool();

  // A snapshot for the caller to fill (its vectors hold stale contents, or are empty).
  // Thread-safe, though meant for the tick thread.
  std::shared_ptr<Snapshot> acquire();

  // Snapshots allocated (in use or spare).
  size_t allocated() const;
  // Bytes they hold (Snapshot::bytes and the slot), as measured when each was given back: at
  // its first return and then periodically (every kMeasureEvery-th return,
  // snapshot_pool.cpp). A snapshot not given back yet counts nothing.
  size_t bytes() const;

  struct State;  // shared with the handed-out snapshots (snapshot_pool.cpp)

 private:
  std::shared_ptr<State> state_;
};

}  // namespace animd
