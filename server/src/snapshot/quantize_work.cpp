#include "snapshot/quantize_work.h"

#include <algorithm>

#include "base/worker_pool.h"
#include "snapshot/compact_layout.h"
#include "snapshot/snapshot.h"

namespace animd {

void QuantizeWork::start(Snapshot& snap, std::span<const anim::Animator* const> animators) {
  snap_ = &snap;
  animators_ = animators;
  count_ = animators.size();
  next_.store(0, std::memory_order_relaxed);
  done_.store(0, std::memory_order_relaxed);
  complete_.store(count_ == 0, std::memory_order_relaxed);
  abandoned_.store(false, std::memory_order_relaxed);
}

bool QuantizeWork::run_block() {
  // A relaxed claim: the work's fields reached this thread with the snapshot, and the
  // entries it writes are its own.
  if (next_.load(std::memory_order_relaxed) >= count_) return false;
  const size_t begin = next_.fetch_add(kBlock, std::memory_order_relaxed);
  if (begin >= count_) return false;
  const size_t end = std::min(begin + kBlock, count_);
  for (size_t i = begin; i < end; ++i)
    if (!snap_->characters[i].quantized_in_update && snap_->in_quant(i))
      quantize_character(*snap_, i, *animators_[i], snap_->quant_pull);
  // The last block's thread publishes the whole frame. Sequentially consistent, with the
  // load of abandoned_ after it: abandon() either sees this block done or is woken by it.
  const size_t n = end - begin;
  if (done_.fetch_add(n) + n == count_) {
    complete_.store(true);  // sequentially consistent, for the notify (as TickLoop's)
    complete_.notify_all();
  }
  if (abandoned_.load()) done_.notify_all();
  return true;
}

size_t QuantizeWork::untaken() const {
  return count_ - std::min(count_, next_.load(std::memory_order_relaxed));
}

bool QuantizeWork::abandon() {
  if (!snap_ || complete()) return false;
  // No block is claimed from here on; those claimed before are completed by their threads.
  const size_t taken = std::min(count_, next_.exchange(count_));
  if (taken == count_) {
    wait();  // all taken: the last block completes the frame
    return false;
  }
  // Some characters are never quantized, so no block completes the frame: only this does.
  // Sequentially consistent with run_block's add to done_ and its load of abandoned_: either
  // the load below sees a block's characters done, or that block's thread sees abandoned_
  // and wakes this one.
  abandoned_.store(true);
  for (size_t done = done_.load(); done < taken; done = done_.load()) done_.wait(done);
  snap_->quant_pull[0].reset();
  snap_->quant_pull[1].reset();
  complete_.store(true);  // publishes abandoned_ with it
  complete_.notify_all();
  return true;
}

void QuantizeWork::wait() const {
  while (!complete_.load(std::memory_order_acquire))
    complete_.wait(false, std::memory_order_acquire);
}

size_t QuantizeWork::finish(WorkerPool& pool) {
  if (!snap_) return 0;
  const size_t taken = std::min(count_, next_.load(std::memory_order_relaxed));
  if (taken < count_) {
    // The rest on every pool thread: each claims blocks until none is left.
    pool.run((count_ - taken + kBlock - 1) / kBlock,
             [](void* self, size_t, size_t, int) {
               auto& w = *static_cast<QuantizeWork*>(self);
               while (w.run_block()) {
               }
             },
             this);
  }
  // Blocks another thread still runs: short, and they wait for nothing.
  wait();
  // Only the quantization read them: whole frames the frame pool can reuse once the snapshot
  // lets go.
  snap_->quant_pull[0].reset();
  snap_->quant_pull[1].reset();
  return count_ - taken;
}

void QuantizeWork::reset() {
  snap_ = nullptr;
  animators_ = {};
  count_ = 0;
  next_.store(0, std::memory_order_relaxed);
  done_.store(0, std::memory_order_relaxed);
  complete_.store(true, std::memory_order_relaxed);
  abandoned_.store(false, std::memory_order_relaxed);
}

}  // namespace animd
