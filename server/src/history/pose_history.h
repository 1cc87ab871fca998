#pragma once
// The pose history: for each of the last N ticks (--history-seconds), one immutable
// HistoryFrame holding every character's compact record (history_record.h) of what its
// Animator evaluated in that tick. A past pose is recomputed from its record on demand
// (pose_query.h), bit for bit the pose the tick computed.
//
// Threads: the tick thread fills a frame (begin_tick, then the parallel character update
// writes each character's record, then publish); from publish on the frame is immutable and
// any thread may read it through a FrameRef until the frame leaves the window and its last
// reader let go. A frame is then recycled for a later tick (its vectors keep their capacity,
// so a tick allocates nothing once the window is full and the character count steady).
//
// Memory per character and tick: one HistoryEntry (24 bytes), its placement (20 bytes) and
// its record (52 bytes for a character playing or crossfading; more with layers and goals),
// against 64 x 48 bytes of model matrices for a 64-joint character.

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <utility>
#include <vector>

#include "anim/animator.h"
#include "anim/asset.h"
#include "anim/hit_volumes.h"
#include "anim/pose_evaluation.h"
#include "history/history_record.h"

namespace animd {

// Where a character stood at a tick, for the broad phase of hit queries (hit_query.h), which
// reads it for every character of a frame without posing any.
struct HitPlacement {
  glm::vec3 center{0.0f};  // world space: the centre of its pose's bound (anim::pose_bound)
  float radius = 0.0f;     // world units: that bound's radius x the root's largest scale
  // What its capsules' extents (anim::HitVolumes::extents, model units) are multiplied by:
  // the root's largest scale component, or +infinity when it has additive layers and its
  // asset animates scale (its joints' scales are then not bounded by the asset's data).
  float stretch = 0.0f;
};

// One character in one frame.
struct HistoryEntry {
  uint32_t character = 0;  // its id
  uint32_t offset = 0;     // its record: HistoryFrame::words from this index
  // Words of its record; 0 while not written, and when it could not be (record_bound fell
  // short: a bug; the tick is then missing from the character's history).
  uint32_t size = 0;
  uint32_t asset = 0;  // its asset: HistoryFrame::assets[asset]
  // The setup its record was evaluated with (null: no layer, no goal); kept alive by
  // HistoryFrame::setups.
  const anim::PoseSetup* setup = nullptr;
};

struct HistoryFrame {
  uint64_t tick = 0;
  double server_time = 0.0;           // seconds since the daemon started, at that tick
  std::vector<HistoryEntry> entries;  // every character, by increasing id
  std::vector<uint32_t> words;        // the records
  // Per entry (same index): its HitPlacement, written with the record (zeros before).
  std::vector<HitPlacement> placements;
  std::vector<std::shared_ptr<const anim::Asset>> assets;      // the entries' assets, once each
  std::vector<std::shared_ptr<const anim::PoseSetup>> setups;  // the entries' setups

  // The entry of `character`, or null (also when its record is missing).
  const HistoryEntry* find(uint32_t character) const;
  std::span<const uint32_t> record(const HistoryEntry& e) const {
    return std::span(words).subspan(e.offset, e.size);
  }
  // Bytes this frame holds (its vectors' capacities; the shared assets and setups not).
  size_t bytes() const;

  // FrameRefs alive; the frame is not reused while > 0. (mutable: reading a const frame
  // counts.)
  mutable std::atomic<int> readers{0};
};

class PoseHistory;

// A published frame, readable while the FrameRef lives (any thread). Empty: no frame.
class FrameRef {
 public:
  FrameRef() = default;
  FrameRef(FrameRef&& o) noexcept : frame_(std::exchange(o.frame_, nullptr)) {}
  FrameRef& operator=(FrameRef&& o) noexcept;
  FrameRef(const FrameRef&) = delete;
  FrameRef& operator=(const FrameRef&) = delete;
  ~FrameRef() { release(); }

  explicit operator bool() const { return frame_ != nullptr; }
  const HistoryFrame& operator*() const { return *frame_; }
  const HistoryFrame* operator->() const { return frame_; }

 private:
  friend class PoseHistory;
  explicit FrameRef(const HistoryFrame* f) : frame_(f) {}
  void release();
  const HistoryFrame* frame_ = nullptr;
};

class PoseHistory {
 public:
  // `lookback_ticks`: frames kept beyond the window, read only by at_kept() (the frames that
  // interpolated ticks of the window's oldest part refer to: shown_pose.h).
  explicit PoseHistory(int capacity_ticks, int lookback_ticks = 0);
  PoseHistory(const PoseHistory&) = delete;
  PoseHistory& operator=(const PoseHistory&) = delete;

  // Tick thread. A frame for `tick` to fill (entries, words, keep-alives emptied, capacity
  // kept); it becomes visible with publish(). Ticks only grow; they may skip numbers (ticks
  // the loop skipped never have a frame).
  HistoryFrame& begin_tick(uint64_t tick, double server_time);
  void publish();

  // Any thread.
  FrameRef newest() const;
  FrameRef at(uint64_t tick) const;  // empty when the tick is not in the window
  // The same, also for the lookback frames before the window.
  FrameRef at_kept(uint64_t tick) const;
  // The ticks the window spans (oldest, newest): the last `capacity` tick numbers up to the
  // newest, from the first published; {1, 0} when empty. Skipped ticks in it have no frame.
  std::pair<uint64_t, uint64_t> window() const;
  // Whether `tick` lies in the window but never ran (the tick loop skipped its number).
  bool skipped(uint64_t tick) const;
  // The oldest tick in the window whose frame has `character` (for error messages), or 0.
  uint64_t first_tick_of(uint32_t character) const;
  int capacity() const { return capacity_; }
  // The frames kept: the window's and the lookback's.
  int kept_ticks() const { return static_cast<int>(ring_.size()); }
  // Bytes every frame holds (in the window, being filled, held by readers, or spare). Tick
  // thread (it reads the frame being filled).
  size_t bytes() const;

 private:
  uint64_t oldest_locked() const;       // window().first, mutex_ held, published_ > 0
  uint64_t oldest_kept_locked() const;  // the same with the lookback frames

  // Frames kept beyond one per ring slot, for ticks that begin while readers hold the
  // retired frames.
  static constexpr size_t kSpareFrames = 4;

  const int capacity_;
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<HistoryFrame>> frames_;  // guarded: every frame made
  std::vector<HistoryFrame*> ring_;     // guarded: tick % (capacity + lookback) -> frame
  std::vector<HistoryFrame*> retired_;  // guarded: left the window, maybe still read
  HistoryFrame* filling_ = nullptr;     // tick thread only
  uint64_t newest_ = 0;                 // guarded
  uint64_t first_ = 0;                  // guarded: the first tick published
  uint64_t published_ = 0;              // guarded: frames published so far
};

// Filling a frame (between begin_tick and publish):
// 1. before the character update, each character's room: the words its record may take
//    (record_bound, and room for a ShownFrom when `may_interpolate`; `record_words`, when not
//    0, is that room, known without record_bound: a tick that does not evaluate the character
//    writes a reference to its last evaluation, of history_record.h's reference_words()).
//    Any thread: it reads only the Animator.
uint32_t entry_room(const anim::Animator& animator, bool may_interpolate = false,
                    uint32_t record_words = 0);
//    Then, on the tick thread in increasing id order, each character's entry with that room
//    and what its record needs kept alive: its asset (`asset`, compared by address, so that
//    `owner` is read only when the frame does not hold it yet) and, when `setups_of` is
//    given, that Animator's current and last evaluated setups (null: it has none).
void add_entry(HistoryFrame& frame, uint32_t character, const anim::Asset* asset,
               const std::shared_ptr<const anim::Asset>& owner, uint32_t room,
               const anim::Animator* setups_of = nullptr);
// 2. in the per-character update, after the Animator's update (or its skip): entry `index`'s
//    record, from what the Animator last evaluated, with its current root as the tick's
//    root, and its placement (the bound of `model`: the model-space matrices of that pose).
//    Any worker thread, one per entry; no allocation, no lock.
void record_entry(HistoryFrame& frame, size_t index, const anim::Animator& animator,
                  std::span<const glm::mat4> model);
//    Or, with the model-space bound of the pose shown already known (update-rate LOD: the
//    pose's matrices were not computed), and what the tick showed when it interpolated
//    (null or alpha 1: the Animator's last evaluated pose). `repeats_back` > 0: the tick did
//    not evaluate the character, whose last evaluation was recorded that many frames before
//    (a record_reference).
void record_entry(HistoryFrame& frame, size_t index, const anim::Animator& animator,
                  const anim::PoseBound& bound, const ShownFrom* shown, uint32_t repeats_back = 0);

}  // namespace animd
