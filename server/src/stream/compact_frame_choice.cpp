#include "stream/compact_frame_choice.h"

namespace animd {

CompactChoice choose_compact_frame(StreamSubscription& sub, const std::deque<SnapshotPtr>& waiting,
                                   const CompactChoiceState& state) {
  // Ready: quantized (a tick quantized after its tick is not sent before it is), and, with a
  // stage, prepared by it. A subscription at a rate divisor holds frames of other ticks than
  // those the stage prepares against, so it gains nothing by waiting.
  auto ready = [&](const Snapshot& snap) {
    return snap.quantized() &&
           (!state.staged || sub.divisor > 1 || snap.prepared.load(std::memory_order_acquire));
  };
  const Snapshot *newest = nullptr, *newest_ready = nullptr, *oldest = nullptr;
  for (const SnapshotPtr& snap : waiting) {
    if (snap->tick <= sub.compact_through || !frame_due(sub, *snap)) continue;
    if (!oldest) oldest = snap.get();
    if (snap->quantized()) newest = snap.get();
    if (ready(*snap)) newest_ready = snap.get();
  }
  CompactChoice choice;
  const Snapshot* chosen = newest_ready;
  // Waited long enough for a starved stage: the session encodes the newest quantized.
  const bool fallback = !chosen && newest && state.stage_starved &&
                        oldest->tick + kStageGraceTicks <= state.newest_seen;
  if (fallback) chosen = newest;
  if (!chosen) return choice;
  if (!stage_prepared_for(sub, *chosen) && state.tick_holds_cores) {
    if (sub.held_for_tick_since == 0) {  // one hold, however often the session is woken
      sub.held_for_tick_since = state.newest_seen;
      choice.hold_began = true;
    }
    if (state.newest_seen < sub.held_for_tick_since + kMaxHeldForTickTicks) return choice;
  }
  sub.held_for_tick_since = 0;
  // A tick whose quantization was given up is not a frame at all (as a deferred tick).
  for (const SnapshotPtr& snap : waiting)
    if (snap->tick > sub.compact_through && snap->tick < chosen->tick && frame_due(sub, *snap) &&
        !snap->quant_abandoned())
      ++choice.skipped;
  choice.frame = chosen;
  choice.fallback = fallback;  // counted when sent, not while held
  return choice;
}

bool keep_waiting(const Snapshot& snap, std::span<const StreamSubscription> subscriptions,
                  bool stage_starved, uint64_t stage_taken, uint32_t& drops) {
  drops = 0;
  if (snap.quant_abandoned()) return false;  // never quantized: nothing to wait for
  const bool passed_over =
      !stage_starved && snap.tick < stage_taken && !snap.prepared.load(std::memory_order_acquire);
  uint32_t waiting = 0;
  for (const StreamSubscription& sub : subscriptions)
    if (sub.encoding == anim::v1::ENCODING_COMPACT && snap.tick > sub.compact_through &&
        frame_due(sub, snap)) {
      if (!passed_over || sub.divisor > 1) return true;
      ++waiting;
    }
  drops = waiting;
  return false;
}

}  // namespace animd
