#include "snapshot/snapshot_pool.h"

#include <mutex>
#include <new>
#include <vector>

#include "snapshot/recent_peak.h"

namespace animd {

namespace {
// Room for a shared_ptr control block with an empty deleter and a two-pointer allocator
// (libstdc++: 48 bytes). A larger block (another standard library) goes to the heap.
constexpr size_t kControlBytes = 128;

struct Slot {
  Snapshot snapshot;
  alignas(std::max_align_t) std::byte control[kControlBytes];
};
}  // namespace

struct SnapshotPool::State {
  std::mutex mutex;
  std::vector<Slot*> spare;  // guarded by mutex
  size_t allocated = 0;      // guarded by mutex
  // Guarded by mutex: snapshots in use (allocated - spare.size()) after each acquisition.
  RecentPeak in_use{kPeakWindow};

  ~State() {
    for (Slot* s : spare) delete s;
  }

  // Whether the pool holds more snapshots than it keeps. mutex held.
  bool beyond_kept() const { return allocated > in_use.peak() + kMaxSpare; }

  // A snapshot's last holder let go (any thread).
  void give_back(Slot* slot) {
    // Drop the asset references now rather than when the slot is next used: an unloaded
    // asset's memory is not kept by a spare snapshot. Likewise the quantized frames: the tick
    // thread reuses one once nobody holds it. (Lengths and capacities stay.)
    slot->snapshot.release_references();
    {
      std::lock_guard lock(mutex);
      if (!beyond_kept()) {
        spare.push_back(slot);
        return;
      }
      --allocated;
    }
    delete slot;
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

  SlotAllocator(std::shared_ptr<SnapshotPool::State> s, Slot* sl) : state(std::move(s)), slot(sl) {}
  template <class U>
  SlotAllocator(const SlotAllocator<U>& o) : state(o.state), slot(o.slot) {}

  T* allocate(size_t n) {
    if (n * sizeof(T) <= kControlBytes && alignof(T) <= alignof(std::max_align_t))
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
  Slot* slot;
};
}  // namespace

SnapshotPool::SnapshotPool() : state_(std::make_shared<State>()) {}

std::shared_ptr<Snapshot> SnapshotPool::acquire() {
  Slot* slot = nullptr;
  Slot* extra = nullptr;  // a spare beyond what the pool keeps now: freed
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
      --s.allocated;
    }
  }
  delete extra;
  if (!slot) slot = new Slot;
  return std::shared_ptr<Snapshot>(&slot->snapshot, KeepInSlot{},
                                   SlotAllocator<Slot>(state_, slot));
}

size_t SnapshotPool::allocated() const {
  std::lock_guard lock(state_->mutex);
  return state_->allocated;
}

}  // namespace animd
