#include "stream/encode_stage.h"

#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <string>

#include "base/thread_name.h"
#include "base/thread_slice.h"
#include "stream/stream_encoder.h"

namespace animd {

namespace {
// Characters a thread takes at a time: small enough that both threads finish together.
constexpr size_t kBlock = 16;
}  // namespace

EncodeStage::EncodeStage(int threads, bool idle, std::atomic<bool>* tick_running,
                         std::function<void(uint64_t)> on_prepared, std::atomic<bool>* busy)
    : on_prepared_(std::move(on_prepared)), tick_running_(tick_running), busy_(busy) {
  for (int i = 0; i < std::max(threads, 1); ++i)
    threads_.emplace_back([this, i, idle] { run(i + 1, idle); });
}

EncodeStage::~EncodeStage() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  stopping_.store(true);
  wake_.notify_all();
  if (tick_running_) tick_running_->notify_all();
  for (auto& t : threads_) t.join();
  if (busy_) busy_->store(false);
}

void EncodeStage::offer(const SnapshotPtr& snapshot) {
  if (!snapshot) return;
  if (!snapshot->quant) {
    if (snapshot->quant_deferred) return;  // a tick the World left for a later one
    // No compact subscription any more: let go of the frames the next deltas would have
    // referred to (a whole tick's quantized poses each).
    std::lock_guard lock(mutex_);
    last_[0].reset();
    last_[1].reset();
    ++generation_;
    return;
  }
  {
    std::lock_guard lock(mutex_);
    if (waiting_) skipped_.fetch_add(1, std::memory_order_relaxed);
    // An idle stage is not behind: it starts on this one now.
    if (!waiting_ && !job_) progress_to(snapshot->tick);
    waiting_ = snapshot;
    waiting_generation_ = generation_;
    if (busy_) busy_->store(true, std::memory_order_release);
  }
  wake_.notify_one();
}

bool EncodeStage::watched(const Snapshot& snap, size_t index) {
  const SnapshotCharacter& c = snap.characters[index];
  if (!snap.in_quant(index)) return false;
  if (c.watched_by_id) return true;
  for (const StreamRegion& r : snap.regions)
    if (r.zone(c.root.translation) == StreamRegion::Zone::kInner) return true;
  return false;
}

// The entry a subscriber in step with the stage asks for (stream_encoder.h): it holds the
// character's frame of held[0]'s tick, and of held[1]'s before it when the character is there.
void EncodeStage::prepare_character(const Snapshot& snap, size_t index,
                                    std::span<const QuantRef, 2> held) {
  if (!snap.in_quant(index)) return;  // no subscriber can send it at this tick
  const SnapshotCharacter& c = snap.characters[index];
  std::span<const animcodec::QJoint> pose;
  const animcodec::QRoot* root = nullptr;
  auto has = [&](const QuantRef& f) { return f && f->find(c.id, c.num_joints, pose, root); };
  StreamSubscription::Held prev{c.id, 0, 0};
  if (has(held[0]) && held[0]->tick < snap.tick) {
    prev.tick = held[0]->tick;
    if (has(held[1]) && held[1]->tick < prev.tick) prev.prev_tick = held[1]->tick;
  }
  animcodec::FrameKind kind;
  compact_entry_for(snap, index, held, prev.tick ? &prev : nullptr, kind);
}

void EncodeStage::wait_for_tick() {
  if (!tick_running_) return;
  while (tick_running_->load(std::memory_order_acquire) && !stopping_.load())
    tick_running_->wait(true, std::memory_order_acquire);
}

void EncodeStage::run(int index, bool idle) {
  name_this_thread("animd-enc-" + std::to_string(index));
  // Lowering needs no privilege. SCHED_IDLE, where the kernel has it: a waking thread of
  // normal priority (the tick's, a network thread) preempts an idle-policy one at once, where
  // a niced one still takes its turns; nice 19 otherwise.
  if (idle) {
    sched_param param{};
    if (pthread_setschedparam(pthread_self(), SCHED_IDLE, &param) != 0)
      setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), 19);
  }
  // Short slices, as the tick's threads ask (thread_slice.h): a thread waking up on a core
  // this one holds, the tick's at the start of a tick, gets it about this soon.
  request_thread_slice(std::chrono::microseconds(100));
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [&] {
      return stop_ ||
             (job_ && job_->next.load(std::memory_order_relaxed) < job_->snap->characters.size()) ||
             (!job_ && waiting_);
    });
    if (stop_) return;
    if (!job_) {
      job_ = std::make_shared<Job>();
      job_->snap = std::move(waiting_);
      waiting_.reset();
      job_->held[0] = last_[0];
      job_->held[1] = last_[1];
      job_->generation = waiting_generation_;
      taken_tick_.store(job_->snap->tick, std::memory_order_release);
      if (job_->snap->characters.empty()) {
        auto job = job_;
        lock.unlock();
        finish(job);
        lock.lock();
        continue;
      }
      wake_.notify_all();  // the other threads take blocks of it too
    }
    const std::shared_ptr<Job> job = job_;
    lock.unlock();
    wait_for_tick();
    // A tick left to quantize after it (quantize_work.h): its poses first, in blocks that give
    // way to the tick as the encoding's do (the tick quantizes what is left when it starts).
    if (QuantizeWork& q = job->snap->quantize; q.started()) {
      while (!stopping_.load(std::memory_order_relaxed) && q.run_block()) {
        sched_yield();
        wait_for_tick();
      }
      if (stopping_.load()) return;
      q.wait();
    }
    const Snapshot& snap = *job->snap;
    // A tick whose quantization the next tick gave up (World::settle) has no frame to
    // encode: its blocks are claimed and passed over, and finish() keeps the frames held.
    const bool abandoned = snap.quant_abandoned();
    const size_t n = snap.characters.size();
    size_t mine = 0;
    for (;;) {
      const size_t begin = job->next.fetch_add(kBlock, std::memory_order_relaxed);
      if (begin >= n || stopping_.load(std::memory_order_relaxed)) break;
      const size_t end = std::min(begin + kBlock, n);
      for (size_t i = begin; i < end && !abandoned; ++i)
        if (watched(snap, i)) prepare_character(snap, i, job->held);
      mine += end - begin;
      if (abandoned) continue;
      // The tick goes first: a tick starting now has the cores within one block.
      sched_yield();
      wait_for_tick();
    }
    if (stopping_.load()) return;  // the job is abandoned with the stage
    // The thread that completes the last block finishes the job.
    if (mine > 0 && job->done.fetch_add(mine, std::memory_order_acq_rel) + mine == n) finish(job);
    lock.lock();
  }
}

void EncodeStage::progress_to(uint64_t tick) {
  if (tick > progress_tick_.load(std::memory_order_relaxed))
    progress_tick_.store(tick, std::memory_order_release);
}

void EncodeStage::finish(const std::shared_ptr<Job>& job) {
  {
    std::lock_guard lock(mutex_);
    if (job->generation == generation_ && !job->snap->quant_abandoned()) {
      last_[1] = std::move(last_[0]);
      last_[0] = job->snap->quant;
    }
    job_.reset();
    progress_to(job->snap->tick);
    if (busy_) busy_->store(waiting_ != nullptr, std::memory_order_release);
  }
  wake_.notify_all();  // a snapshot may be waiting
  prepared_.fetch_add(1, std::memory_order_relaxed);
  for (int k = 0; k < 2; ++k)
    job->snap->prepared_against[k] = job->held[k] ? job->held[k]->tick : 0;
  job->snap->prepared.store(true, std::memory_order_release);
  if (on_prepared_) on_prepared_(job->snap->tick);
}

}  // namespace animd
