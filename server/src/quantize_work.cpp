#include "quantize_work.h"

#include <algorithm>

#include "compact_layout.h"
#include "worker_pool.h"
#include "world.h"

namespace animd {

void QuantizeWork::start(Snapshot& snap, const std::vector<std::unique_ptr<Character>>& characters,
                         const QuantRef (&pull)[2]) {
  snap_ = &snap;
  characters_ = &characters;
  pull_[0] = pull[0];
  pull_[1] = pull[1];
  count_ = characters.size();
  next_.store(0, std::memory_order_relaxed);
  done_.store(0, std::memory_order_relaxed);
  complete_.store(count_ == 0, std::memory_order_relaxed);
}

bool QuantizeWork::run_block() {
  // A relaxed claim: the work's fields were published to this thread with the snapshot
  // (the stage's mutex, the pool's barrier), and the entries it writes are its own.
  if (next_.load(std::memory_order_relaxed) >= count_) return false;
  const size_t begin = next_.fetch_add(kBlock, std::memory_order_relaxed);
  if (begin >= count_) return false;
  const size_t end = std::min(begin + kBlock, count_);
  for (size_t i = begin; i < end; ++i)
    quantize_character(*snap_, i, (*characters_)[i]->animator, pull_);
  // The last block's thread publishes the whole frame.
  const size_t n = end - begin;
  if (done_.fetch_add(n, std::memory_order_acq_rel) + n == count_) {
    complete_.store(true, std::memory_order_release);
    complete_.notify_all();
  }
  return true;
}

void QuantizeWork::wait() const {
  while (!complete_.load(std::memory_order_acquire))
    complete_.wait(false, std::memory_order_acquire);
}

void QuantizeWork::finish(WorkerPool& pool) {
  if (next_.load(std::memory_order_relaxed) < count_) {
    // The rest on every pool thread: each claims blocks until none is left.
    const size_t left = count_ - std::min(count_, next_.load(std::memory_order_relaxed));
    pool.run((left + kBlock - 1) / kBlock,
             [](void* self, size_t, size_t) {
               auto& w = *static_cast<QuantizeWork*>(self);
               while (w.run_block()) {
               }
             },
             this);
  }
  // Blocks another thread still runs: short, and they wait for nothing.
  wait();
  pull_[0].reset();
  pull_[1].reset();
}

std::shared_ptr<QuantizeWork> QuantizeWorkPool::acquire() {
  for (auto& w : works_)
    if (w.use_count() == 1) {
      // The holders' last releases happen before its reuse (shared_ptr's release decrement).
      std::atomic_thread_fence(std::memory_order_acquire);
      return w;
    }
  auto fresh = std::make_shared<QuantizeWork>();
  if (works_.size() < 16) works_.push_back(fresh);
  return fresh;
}

}  // namespace animd
