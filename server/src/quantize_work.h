#pragma once
// QuantizeWork: one tick's quantization for ENCODING_COMPACT, done after the tick instead of
// inside it.
//
// Why: a quantized tick costs a fifth more CPU than one that is not, and the ticks that are
// both quantized and crossfading every character were the slowest of the tick's p99 (docs/
// benchmarks.md). Each character's final local pose stays in its Animator until the next
// tick's update, so the quantization can run in the time between two ticks: the encode
// stage's threads take it in blocks before they encode (encode_stage.h), and whatever they
// have not taken when the next tick starts, that tick quantizes itself (World::settle),
// before it changes any character.
//
// Threads: the tick thread creates the work (World::update) and finishes it (finish(), at the
// start of the next tick, before World::apply); any number of other threads run blocks
// meanwhile. A block claimed is always completed by the thread that claimed it, and nothing
// in a block waits, so finish() waits only for the blocks in progress. The characters and
// their Animators are read, never written, until finish() returns.
#include <atomic>
#include <cstddef>
#include <memory>
#include <vector>

#include "snapshot.h"

namespace animd {

struct Character;
class WorkerPool;

class QuantizeWork {
 public:
  // Characters a thread takes at a time (~1 us each for 64 joints).
  static constexpr size_t kBlock = 16;

  // Tick thread: quantizes `snap`'s characters (snap.quant, already sized and placed) from
  // `characters` (the World's, in the snapshot's order), pulled toward `pull` (the last two
  // quantized frames, Snapshot::quant_pull). Both stay valid and unchanged until finish().
  void start(Snapshot& snap, const std::vector<std::unique_ptr<Character>>& characters,
             const QuantRef (&pull)[2]);

  // Any thread: quantizes the next block not yet taken; false when none is left.
  bool run_block();
  // Whether every character is quantized (acquire: its entries are then visible).
  bool complete() const { return complete_.load(std::memory_order_acquire); }
  // Any thread but the tick's: blocks until complete().
  void wait() const;
  // Tick thread: quantizes what no thread has taken (on the pool's threads), waits for the
  // blocks in progress, and lets go of the pull frames. complete() afterwards.
  void finish(WorkerPool& pool);

 private:
  Snapshot* snap_ = nullptr;
  const std::vector<std::unique_ptr<Character>>* characters_ = nullptr;
  QuantRef pull_[2];
  size_t count_ = 0;
  std::atomic<size_t> next_{0};  // first character not yet taken
  std::atomic<size_t> done_{0};  // characters quantized
  std::atomic<bool> complete_{true};
};

// Recycles QuantizeWorks as QuantFramePool recycles frames: a work is reused once nothing but
// the pool holds it (the snapshots that carried it let go), so the tick allocates nothing once
// steady.
class QuantizeWorkPool {
 public:
  std::shared_ptr<QuantizeWork> acquire();

 private:
  std::vector<std::shared_ptr<QuantizeWork>> works_;
};

}  // namespace animd
