#include "snapshot/snapshot_pool.h"

#include <mutex>
#include <new>
#include <vector>

#include "snapshot/recent_peak.h"

namespace animd {

// Named rather than anonymous: SnapshotPool::State (external linkage) holds Slots.
namespace snapshot_slot {
// Room for a shared_ptr control block with an empty deleter and a two-pointer allocator
// (libstdc++: 48 bytes). A larger block (another standard library) goes to the heap.
constexpr size_t kControlBytes = 128;

// A slot's bytes are measured at its first return and then every kMeasureEvery returns (a
// measure reads every compact entry of the snapshot).
constexpr uint32_t kMeasureEvery = 32;

struct Slot {
  Snapshot snapshot;
  alignas(std::max_align_t) std::byte control[kControlBytes];
  size_t measured = 0;         // its bytes at the last measure (0: never given back yet)
  uint32_t until_measure = 0;  // returns before the next measure
};
}  // namespace snapshot_slot

struct SnapshotPool::State {
  std::mutex mutex;
  std::vector<snapshot_slot::Slot*> spare;  // guarded by mutex
  size_t allocated = 0;                     // guarded by mutex
  // Guarded by mutex: snapshots in use (allocated - spare.size()) after each acquisition.
  RecentPeak in_use{kPeakWindow};
  size_t bytes = 0;  // guarded by mutex: every allocated slot's `measured`

  ~State() {
    for (snapshot_slot::Slot* s : spare) delete s;
  }

  // Whether the pool holds more snapshots than it keeps. mutex held.
  bool beyond_kept() const { return allocated > in_use.peak() + kMaxSpare; }

  // A snapshot's last holder let go (any thread).
  void give_back(snapshot_slot::Slot* slot) {
    // Drop the asset references now rather than when the slot is next used: an unloaded
    // asset's memory is not kept by a spare snapshot. Likewise the quantized frames: the tick
    // thread reuses one once nobody holds it. (Lengths and capacities stay.)
    slot->snapshot.release_references();
    // Measured now: nobody else reads or writes the snapshot any more.
    const bool measure = slot->until_measure == 0;
    const size_t measured =
        measure ? sizeof(snapshot_slot::Slot) - sizeof(Snapshot) + slot->snapshot.bytes() : 0;
    {
      std::lock_guard lock(mutex);
      if (measure) {
        bytes += measured - slot->measured;
        slot->measured = measured;
        slot->until_measure = snapshot_slot::kMeasureEvery;
      }
      --slot->until_measure;
      if (!beyond_kept()) {
        spare.push_back(slot);
        return;
      }
      forget(slot);
    }
    delete slot;
  }

  // A slot about to be deleted leaves the counts. mutex held.
  void forget(const snapshot_slot::Slot* slot) {
    --allocated;
    bytes -= slot->measured;
  }
};

namespace {
// The snapshot lives in its slot: releasing it is the allocator's business (below).
struct KeepInSlot {
  void operator()(Snapshot*) const {}
};

// Allocates the shared_ptr's control block in the slot, and returns the slot to the pool
// when the control block is freed: the last thing the shared_ptr does with the slot's memory.
template <class T>
struct SlotAllocator {
  using value_type = T;

  SlotAllocator(std::shared_ptr<SnapshotPool::State> s, snapshot_slot::Slot* sl)
      : state(std::move(s)), slot(sl) {}
  template <class U>
  SlotAllocator(const SlotAllocator<U>& o) : state(o.state), slot(o.slot) {}

  T* allocate(size_t n) {
    if (n * sizeof(T) <= snapshot_slot::kControlBytes && alignof(T) <= alignof(std::max_align_t))
      return reinterpret_cast<T*>(slot->control);
    return static_cast<T*>(::operator new(n * sizeof(T)));
  }
  void deallocate(T* p, size_t) {
    if (reinterpret_cast<std::byte*>(p) != slot->control) ::operator delete(p);
    state->give_back(slot);
  }
  template <class U>
  bool operator==(const SlotAllocator<U>& o) const {
    return slot == o.slot;
  }

  std::shared_ptr<SnapshotPool::State> state;
  snapshot_slot::Slot* slot;
};
}  // namespace

SnapshotPool::SnapshotPool() : state_(std::make_shared<State>()) {}

std::shared_ptr<Snapshot> SnapshotPool::acquire() {
  snapshot_slot::Slot* slot = nullptr;
  snapshot_slot::Slot* extra = nullptr;  // a spare beyond what the pool keeps now: freed
  {
    std::lock_guard lock(state_->mutex);
    State& s = *state_;
    if (!s.spare.empty()) {
      slot = s.spare.back();
      s.spare.pop_back();
    } else {
      ++s.allocated;
    }
    s.in_use.acquired(s.allocated - s.spare.size());
    if (s.beyond_kept() && !s.spare.empty()) {
      extra = s.spare.back();
      s.spare.pop_back();
      s.forget(extra);
    }
  }
  delete extra;
  if (!slot) slot = new snapshot_slot::Slot;
  return std::shared_ptr<Snapshot>(&slot->snapshot, KeepInSlot{},
                                   SlotAllocator<snapshot_slot::Slot>(state_, slot));
}

size_t SnapshotPool::allocated() const {
  std::lock_guard lock(state_->mutex);
  return state_->allocated;
}

size_t SnapshotPool::bytes() const {
  std::lock_guard lock(state_->mutex);
  return state_->bytes;
}

}  // namespace animd
