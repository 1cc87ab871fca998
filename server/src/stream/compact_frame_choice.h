#pragma once
// Which snapshot a compact subscription sends next, and which waiting snapshots a session
// keeps: the rules of StreamSender::encode_compact as pure functions of the subscription, the
// snapshots it has waiting and what the session knows of the encode stage and the tick, so
// that each rule is tested on its own (compact_frame_choice_test.cpp). Session applies the
// outcome: it sends the frame, counts drops and metrics, and lets go of kept frames.
//
// The rules. The encode stage (encode_stage.h) encodes each snapshot's entries ahead of the
// sessions; a snapshot it has not prepared waits for it, or for a newer one that is (ready).
// A subscription sends only the newest ready snapshot due (every divisor-th tick) of those
// waiting: catching up costs one encode, and its deltas name the ticks between; the older
// ones count as dropped. When the stage gets no CPU at all (starved), the session encodes the
// newest quantized snapshot itself once the oldest has waited kStageGraceTicks (the fallback),
// so the stream never stops; a stage that is slow but moving is waited for. A frame the
// session would encode itself (not the stage's entries) waits while the tick holds the cores,
// kMaxHeldForTickTicks at most.

#include <algorithm>
#include <cstdint>
#include <deque>
#include <span>

#include "snapshot/snapshot.h"
#include "stream/stream_encoder.h"

namespace animd {

// A compact frame may wait this many ticks for the encode stage to prepare its snapshot;
// then, if the stage is also starved (kStageStarvedTicks behind), the session encodes the
// newest itself. Its kept frames (StreamSubscription::kMaxKeptAge, 8 ticks before the tick it
// encodes) are let go this much later (StreamSender::encode_waiting).
inline constexpr uint64_t kStageGraceTicks = 6;
// How far behind the newest tick the stage's progress (EncodeStage::progress_tick) must be
// before sessions encode frames themselves. A stage that is slow but moving is waited for:
// the sessions' encoding runs on the network threads, at the tick's priority, so on a host
// short of CPU it took the tick's cores (docs/benchmarks.md, "The tick's threads on one core,
// and sessions that encode for a slow stage").
inline constexpr uint64_t kStageStarvedTicks = 30;
// A compact frame whose entries the session would encode itself (not the stage's:
// stage_prepared_for) waits while the tick runs, when the tick's threads fill the cores
// (Server::tick_holds_cores): a network thread encoding runs at the tick's priority, and
// out-of-step subscribers would take cores from the tick (docs/benchmarks.md, "Waiting for a
// worker to wake, and network threads during the tick").
// It is sent when the tick ends (its snapshot is delivered to the sessions after it,
// Server::deliver), or encoded anyway once the subscription has waited this many ticks (an
// overloaded daemon whose ticks never end in time).
inline constexpr uint64_t kMaxHeldForTickTicks = 3;

// What the session knows when it chooses.
struct CompactChoiceState {
  bool staged = false;            // an encode stage runs (Server::encode_staged)
  bool stage_starved = false;     // stage_starved(): the session may encode in its place
  bool tick_holds_cores = false;  // Server::tick_holds_cores, read now
  uint64_t newest_seen = 0;       // the newest tick the session has taken
};

// No stage, or one whose progress is kStageStarvedTicks behind the newest tick seen.
inline bool stage_starved(bool staged, uint64_t stage_progress, uint64_t newest_seen) {
  return !staged || stage_progress + kStageStarvedTicks <= newest_seen;
}

// Whether `snap` is a frame of `sub` at all: at or after its start, every divisor-th tick
// number; a snapshot after skipped numbers stands for a due one among them.
inline bool frame_due(const StreamSubscription& sub, const Snapshot& snap) {
  if (snap.tick < sub.start_tick) return false;
  // The latest due number at or before this tick, and the first number since the last tick.
  const uint64_t due = snap.tick - (snap.tick - sub.start_tick) % sub.divisor;
  const uint64_t since =
      std::max(snap.previous_tick != 0 ? snap.previous_tick + 1 : snap.tick, sub.start_tick);
  return due >= since;
}

struct CompactChoice {
  const Snapshot* frame = nullptr;  // send this one now; null: none yet
  // Due snapshots between the subscription's last frame and `frame`, passed over (dropped).
  uint32_t skipped = 0;
  bool fallback = false;  // `frame` was not ready: the stage is starved (Metrics::stage_fallbacks)
  bool hold_began = false;  // a frame began waiting for the tick (Metrics::frames_held_for_tick)
};

// The frame compact subscription `sub` sends now from `waiting` (oldest first). Updates
// sub.held_for_tick_since (the hold's start, 0 when not holding), nothing else.
CompactChoice choose_compact_frame(StreamSubscription& sub, const std::deque<SnapshotPtr>& waiting,
                                   const CompactChoiceState& state);

// After every subscription chose: whether `snap` stays waiting (some compact subscription
// may still send it). One the stage moved past without preparing it (`stage_taken`, the
// newest tick it took) never will be prepared: it is let go, and each subscription that was
// waiting for it counts a dropped frame (`drops`), unless one at a rate divisor (which does
// not wait for the stage) or a starved stage's fallback may still send it.
bool keep_waiting(const Snapshot& snap, std::span<const StreamSubscription> subscriptions,
                  bool stage_starved, uint64_t stage_taken, uint32_t& drops);

}  // namespace animd
