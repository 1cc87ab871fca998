#pragma once
// QuantizeWork: one tick's quantization for ENCODING_COMPACT, done after the tick instead of
// inside it.
//
// Why: quantizing is CPU the tick need not spend (docs/benchmarks.md, "Work kept off the
// tick"). Each character's final local pose stays in its Animator until the next
// tick's update, so the quantization can run in the time between two ticks: the encode
// stage's threads take it in blocks before they encode (encode_stage.h), and whatever they
// have not taken when the next tick starts, that tick quantizes itself or gives the frame up
// (World::settle), before it changes any character.
//
// Each Snapshot has one (Snapshot::quantize), recycled with it (SnapshotPool's return orders
// every reader's last use before the next start()). Threads: the tick thread starts it
// (World::update) and finishes or abandons it (finish() or abandon(), at the start of the
// next tick, before World::apply); any number of other threads run blocks meanwhile, having
// received the snapshot after start() (the encode stage's lock, the pool's barrier). A block
// claimed is always completed by the thread that claimed it, and nothing in a block waits, so
// finish() and abandon() wait only for the blocks in progress. The Animators are read, never
// written, until finish() or abandon() returns.
#include <atomic>
#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "anim/animator.h"

namespace animd {

struct Snapshot;
class WorkerPool;

class QuantizeWork {
 public:
  // Characters a thread takes at a time: small enough that a preempted thread holds back
  // little, large enough that claiming is rare.
  static constexpr size_t kBlock = 16;

  QuantizeWork() = default;
  // Snapshots move only before they are shared (tests build them by value): a moved work is
  // an idle one.
  QuantizeWork(QuantizeWork&&) noexcept {}
  QuantizeWork& operator=(QuantizeWork&&) = delete;

  // Tick thread: quantizes `snap`'s characters (into snap.quant, already sized and placed,
  // pulled toward snap.quant_pull) from `animators` (one per character, in the snapshot's
  // order). Both stay valid and unchanged until finish() or abandon(). `snap` is the snapshot
  // this work
  // belongs to.
  void start(Snapshot& snap, std::span<const anim::Animator* const> animators);
  // Whether start() was called since the snapshot was last recycled (reset()).
  bool started() const { return snap_ != nullptr; }

  // Any thread: quantizes the next block not yet taken; false when none is left.
  bool run_block();
  // Whether every character is quantized (acquire: its entries are then visible). True
  // when not started.
  bool complete() const { return complete_.load(std::memory_order_acquire); }
  // Blocks until complete().
  void wait() const;
  // Tick thread: quantizes what no thread has taken (on the pool's threads), waits for the
  // blocks in progress, and lets go of the snapshot's pull frames (quant_pull). complete()
  // afterwards. Returns how many characters were still untaken when it began (the part of
  // the tick's quantization the tick itself then did: Metrics::quantized_by_next_tick).
  size_t finish(WorkerPool& pool);
  // Characters no thread has taken yet (a snapshot in time: other threads keep taking).
  size_t untaken() const;
  // Tick thread, instead of finish(): gives up the frame. Whatever no thread has taken is
  // never quantized (no thread takes a block afterwards), the blocks in progress are waited
  // for, and then complete() and abandoned() are both true: the frame is incomplete for good,
  // and Snapshot::quantized() stays false. False when every character was already taken
  // (nothing given up: the frame completes, and abandon() waits for it; call finish() then).
  bool abandon();
  // Whether abandon() gave the frame up. Read after complete() returned true: abandon() sets
  // it before it publishes completion, and nothing else completes a frame given up.
  bool abandoned() const { return abandoned_.load(std::memory_order_relaxed); }
  // Back to not started (the snapshot is recycled: nobody else holds it).
  void reset();

 private:
  Snapshot* snap_ = nullptr;
  std::span<const anim::Animator* const> animators_;
  size_t count_ = 0;
  std::atomic<size_t> next_{0};  // first character not yet taken
  std::atomic<size_t> done_{0};  // characters quantized
  std::atomic<bool> complete_{true};
  std::atomic<bool> abandoned_{false};
};

}  // namespace animd
