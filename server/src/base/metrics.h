#pragma once
// Metrics: atomic counters and gauges that the tick thread and the sessions update and that
// anyone may read at any time (StatsReply, the periodic summary log, and the ops add-ons in
// server/ops such as an HTTP /metrics endpoint). Relaxed atomics: each value is
// individually consistent; a reader may see values from slightly different moments.

#include <array>
#include <atomic>
#include <cstdint>

namespace animd {

struct Metrics {
  // Set by the tick thread.
  std::atomic<uint64_t> tick{0};  // the last completed tick
  std::atomic<uint32_t> characters{0};
  std::atomic<uint32_t> assets{0};
  std::atomic<uint32_t> subscriptions{0};   // across all sessions
  std::atomic<uint64_t> tick_overruns{0};   // ticks longer than the tick period (total)
  std::atomic<uint64_t> degraded_ticks{0};  // ticks that skipped unwatched characters
  // Update-rate LOD (world_lod.cpp): the allocator's pressure (0: every character every tick),
  // characters updated less often than every tick, and character-ticks not evaluated (total).
  std::atomic<float> anim_pressure{0.0f};
  std::atomic<uint32_t> reduced_rate_characters{0};
  std::atomic<uint32_t> detail_skipped_characters{0};  // joint LOD: detail joints at rest
  std::atomic<uint64_t> character_updates_skipped{0};
  // Character-ticks whose data did not fit what the tick placed for them (world/
  // character_placement.h: a change the placements missed): their history record or the morph
  // weights beyond the placed count left out. Stays 0 unless a placement was stale.
  std::atomic<uint64_t> placement_misses{0};
  // Tick numbering (tick/tick_numbering.h): the first tick this daemon ran (0: none yet),
  // tick numbers that never ran (overruns, pauses, forward wall-clock steps; total), and the
  // wall-clock steps seen between two ticks (more than one tick period apart from the steady
  // clock), forward and back.
  std::atomic<uint64_t> first_tick{0};
  std::atomic<uint64_t> ticks_skipped{0};
  std::atomic<uint64_t> clock_steps_forward{0};
  std::atomic<uint64_t> clock_steps_back{0};
  // Compact frames a session encoded itself because the encode stage (encode_stage.h) was
  // kStageStarvedTicks behind (compact_frame_choice.h): it got no CPU (a host with none to
  // spare).
  std::atomic<uint64_t> stage_fallbacks{0};
  // Compact frames a session held back while the tick ran because it would have encoded
  // their entries itself (stage_prepared_for, stream_encoder.h), sent once the tick ended.
  std::atomic<uint64_t> frames_held_for_tick{0};
  // True while the tick runs (TickLoop: from taking commands to handing the snapshot over).
  // The encode stage waits for it to clear (encode_stage.h); notified when it does.
  std::atomic<bool> tick_running{false};
  // True from the moment the encode stage is handed a snapshot until it has prepared it and
  // none waits (encode_stage.h). While it is true the World does not quantize the tick (the
  // stage could not take it; quantizing is a third of the tick's CPU with 5,000 watched
  // characters) unless a compact subscription at a rate divisor is due at fixed ticks.
  std::atomic<bool> stage_busy{false};
  // Ticks the World left unquantized for that reason (the compact stream's frames are of
  // fewer ticks than the simulation's; the summary log line).
  std::atomic<uint64_t> quant_deferred_ticks{0};
  // Ticks whose workers quantized them inside the tick, which then costs about twice the CPU:
  // the stage was busy kMaxDeferredTicks ticks in a row (or a paced subscription was due), so
  // it could not quantize them between ticks (the summary log line).
  std::atomic<uint64_t> quantized_in_tick{0};
  std::atomic<uint64_t> overruns_quantized_in_tick{0};  // tick_overruns that were such ticks
  // Characters of ticks left to quantize after the tick (quantize_work.h) that nobody had
  // taken when the next tick began, so that tick quantized them itself (World::settle): the
  // encode stage got too little CPU between ticks (the summary log line).
  std::atomic<uint64_t> quantized_by_next_tick{0};
  // Ticks left to quantize after the tick that the next tick gave up instead of finishing
  // them (World::set_abandon_late_quantization): a quarter or more of their characters were
  // untaken. No compact frame was sent of them (the summary log line).
  std::atomic<uint64_t> quant_abandoned_ticks{0};
  std::atomic<uint64_t> orphans_despawned{0};  // characters whose owner left (grace expired)
  // Migrations (world_migrate.cpp): begun here, ended here by their target's commit or by a
  // failure, held here and dropped uncommitted; characters that left and arrived.
  std::atomic<uint64_t> migrations_begun{0};
  std::atomic<uint64_t> migrations_committed{0};
  std::atomic<uint64_t> migrations_failed{0};
  std::atomic<uint64_t> migrations_expired{0};
  std::atomic<uint64_t> characters_migrated_out{0};
  std::atomic<uint64_t> characters_migrated_in{0};
  std::atomic<float> ik_scale{1.0f};  // IK iteration scale in force (< 1: over --ik-budget)
  // Animation events crossed by playheads, and those lost to the per-character limit.
  std::atomic<uint64_t> events_fired{0};
  std::atomic<uint64_t> events_overflowed{0};
  // Bytes the tick's stores hold (World::StoreBytes), published about once a second.
  std::atomic<uint64_t> history_bytes{0};
  std::atomic<uint64_t> snapshot_bytes{0};
  std::atomic<uint64_t> quant_frame_bytes{0};
  std::atomic<uint32_t> snapshots_kept{0};
  std::atomic<uint32_t> quant_frames_kept{0};
  // Tick time over the last 1,000 ticks, microseconds; refreshed about once a second.
  std::atomic<double> tick_p50_us{0.0};
  std::atomic<double> tick_p99_us{0.0};
  std::atomic<double> tick_max_us{0.0};

  // Set by the sessions.
  std::atomic<uint32_t> sessions{0};              // open connections
  std::atomic<uint64_t> connections_total{0};     // accepted since start
  std::atomic<uint64_t> connections_rejected{0};  // refused: --max-connections(-per-address)
  std::atomic<uint64_t> bytes_in{0};
  std::atomic<uint64_t> bytes_out{0};
  std::atomic<uint64_t> requests{0};
  std::atomic<uint64_t> request_errors{0};  // replies with a non-OK status
  // The same by anim.v1.StatusCode (index = code, 0..10; unknown codes count as INTERNAL).
  std::array<std::atomic<uint64_t>, 11> request_errors_by_code{};
  std::atomic<uint64_t> stream_frames_sent{0};
  std::atomic<uint64_t> stream_frames_dropped{0};
  // Animation events put in stream frames, and dropped by subscriptions (full pending
  // buffer, or the character's own overflow, per subscription that wanted them).
  std::atomic<uint64_t> events_sent{0};
  std::atomic<uint64_t> events_dropped{0};
  // ENCODING_COMPACT subscriptions, pending ones included (each session adds its own count):
  // the World quantizes poses only while this is above 0. Counted before the subscribe
  // reaches the tick, so the subscription's first snapshot is quantized.
  std::atomic<int64_t> compact_subscriptions{0};
  // Of those, the ones at a rate divisor above 1 (every divisor-th tick from their start):
  // while any exists the World quantizes every tick, since they are due at fixed ticks.
  std::atomic<int64_t> compact_paced_subscriptions{0};
  // ENCODING_FLOAT_3X4 subscriptions, counted the same way: the World builds skin palettes
  // only while this is above 0 (nothing else needs them).
  std::atomic<int64_t> float_subscriptions{0};

  // Saved state (--state-dir; persist/state_saver.h), set by the writer: saves written and
  // failed, and the last save's payload bytes and time to serialize and write it durably.
  // Characters put back at start-up, and those refused then.
  std::atomic<uint64_t> state_saves{0};
  std::atomic<uint64_t> state_save_failures{0};
  std::atomic<uint64_t> state_save_bytes{0};
  std::atomic<uint64_t> state_save_us{0};
  std::atomic<uint64_t> state_restored{0};
  std::atomic<uint64_t> state_refused{0};
  std::atomic<uint64_t> state_journaled{0};  // asset changes appended to the asset journal

  // Lifecycle (for health probes): true once listening and ticking, false when draining.
  std::atomic<bool> ready{false};
};

}  // namespace animd
