#pragma once
// EncodeStage: the compact stream's per-character encoding, done ahead of the sessions on
// threads of their own that give way to the tick (--encode-threads, --encode-idle).
//
// Why: encoding is most of the network threads' CPU when many characters are watched. On the
// network threads it competes with the tick at equal
// priority, so an overloaded stream slows the simulation itself. Here, when the tick's threads
// fill the cores, it runs between ticks only (Metrics::tick_running), and the network threads
// only copy bytes: the tick keeps its rate, queries keep their round trip, and the stream is
// what slows down.
//
// What: for each snapshot with quantized poses (Server::publish offers it), the compact entry
// an in-step subscriber would ask for, for every character watched (an explicit-id or
// all-characters subscription, or the inner zone of a region, in ENCODING_COMPACT: a float
// subscription's frames are palettes, which its session encodes): a subscriber in step holds the
// frames of the last two snapshots this stage prepared, so the entry is the shared DELTA2
// against the two ticks before when those are the ticks it prepared, else the delta against
// the two it prepared (Snapshot::compact_entry_against with their skips), else DELTA1 or a key
// frame, as compact_entry_for (stream_encoder.h) chooses for it. It then marks the snapshot
// prepared and calls `on_prepared` (which wakes the sessions, session/stream_sender.cpp).
//
// Only the newest snapshot offered is worked on: one offered while another is in progress
// waits, and is replaced by a newer one (the sessions skip the ticks it never prepared; their
// deltas name the ticks between). Nothing here is required for correctness: a session encodes
// whatever it finds not ready (and does not wait for the stage beyond a few ticks).
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <thread>
#include <vector>

#include "snapshot/snapshot.h"

namespace animd {

class EncodeStage {
 public:
  // `threads` >= 1 threads named animd-enc-N. `busy` (may be null): set while a snapshot
  // offered waits or is being prepared (Metrics::stage_busy: the World quantizes no tick the
  // stage could not take). `tick_running` (may be null): while it is true
  // they do not encode (they finish the block of characters in hand, then wait for it to
  // clear; whoever clears it notifies it): the tick's threads have the cores to themselves.
  // `idle`: each also puts itself in SCHED_IDLE (runs only when no other thread of the machine
  // wants the core; nice 19 where the kernel refuses). `on_prepared(tick)` runs on a stage
  // thread after each snapshot is prepared: it must not block.
  EncodeStage(int threads, bool idle, std::atomic<bool>* tick_running,
              std::function<void(uint64_t)> on_prepared, std::atomic<bool>* busy = nullptr);
  // Joins the threads (a job in progress is abandoned). `tick_running` must be false by then
  // (the tick stopped): a thread waiting for it is woken but waits again while it is true.
  ~EncodeStage();
  EncodeStage(const EncodeStage&) = delete;
  EncodeStage& operator=(const EncodeStage&) = delete;

  // Tick thread: hands over the newest snapshot (ignored without quantized poses; one
  // without them and not Snapshot::quant_deferred means no compact subscription is left: the
  // stage lets go of its frames). Never blocks beyond a short lock.
  void offer(const SnapshotPtr& snapshot);
  // Snapshots prepared so far, and snapshots offered that a newer one replaced before the
  // stage took them (the summary log line).
  uint64_t prepared() const { return prepared_.load(std::memory_order_relaxed); }
  // The tick of the last snapshot prepared, or of a snapshot offered to an idle stage when
  // that came later (0 before any): the stage is as far behind as the newest tick is past
  // it. The sessions encode a frame themselves only when it is far behind
  // (kStageStarvedTicks, compact_frame_choice.h): a stage that is merely slow is waited for.
  uint64_t progress_tick() const { return progress_tick_.load(std::memory_order_acquire); }
  // The tick of the last snapshot the stage took to prepare (0 before any). It takes only the
  // newest offered, so a snapshot older than this that is not prepared never will be: the
  // sessions let go of such snapshots (and their quantized frames) instead of holding them
  // while they wait for a newer one.
  uint64_t taken_tick() const { return taken_tick_.load(std::memory_order_acquire); }
  uint64_t skipped() const { return skipped_.load(std::memory_order_relaxed); }

  // The entry an in-step subscriber needs for character `index` of `snap`, given the last two
  // frames prepared before it (`held[0]` newest; empty when absent), encoded into the
  // snapshot's shared entries. Public for the tests.
  static void prepare_character(const Snapshot& snap, size_t index,
                                std::span<const QuantRef, 2> held);
  // Whether character `index` is watched by an in-step subscriber the stage prepares for.
  static bool watched(const Snapshot& snap, size_t index);

 private:
  struct Job {
    SnapshotPtr snap;
    QuantRef held[2];         // the frames prepared before it, [0] newest
    uint64_t generation = 0;  // generation_ when it was offered
    std::atomic<size_t> next{0};
    std::atomic<size_t> done{0};
  };
  void run(int index, bool idle);
  void wait_for_tick();
  void finish(const std::shared_ptr<Job>& job);
  void progress_to(uint64_t tick);  // under mutex_: progress_tick_ never goes back

  std::function<void(uint64_t)> on_prepared_;
  std::atomic<bool>* tick_running_;
  std::atomic<bool>* busy_;            // written under mutex_
  std::atomic<bool> stopping_{false};  // stop_, readable without the lock
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;         // guarded by mutex_
  SnapshotPtr waiting_;       // guarded by mutex_: the newest offered, not started
  std::shared_ptr<Job> job_;  // guarded by mutex_: the one being prepared
  QuantRef last_[2];          // guarded by mutex_: the last two prepared, [0] newest
  // Guarded by mutex_: how many times the stage let go of last_ (no compact subscription
  // left). A snapshot offered before that does not bring its frame back when it is prepared.
  uint64_t generation_ = 0;
  uint64_t waiting_generation_ = 0;  // guarded by mutex_: generation_ when waiting_ came
  std::atomic<uint64_t> prepared_{0};
  std::atomic<uint64_t> skipped_{0};
  std::atomic<uint64_t> progress_tick_{0};  // written under mutex_
  std::atomic<uint64_t> taken_tick_{0};     // written under mutex_
  std::vector<std::thread> threads_;
};

}  // namespace animd
