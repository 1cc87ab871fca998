#pragma once
// StateSaver: the daemon's characters in --state-dir (docs/operations.md, "Saved state").
//
// - restore() at start-up, before the tick runs: reads `characters.state` and puts back what
//   it can (World::restore_characters). A file that cannot be read, is damaged or of a newer
//   format restores nothing; one with characters that cannot come back (a newer state
//   version, an asset no longer loaded or of another version) restores the others. Either way
//   the file is set aside (`<file>.bad-<unix s>`, base/durable_file.h) with an error naming
//   it and what is wrong, and the daemon starts.
// - after_tick() on the tick thread: a sweep captures every character once per half
//   --state-interval-seconds, a bounded slice per tick (kMaxCapturedPerTick); a finished sweep
//   goes to the StateWriter thread, which serializes and writes it durably. The tick never
//   waits for the disk nor serializes. So a kill loses at most the last interval.
// - save_all() once the tick has stopped (SIGTERM/SIGINT): every character, written before it
//   returns.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <vector>

#include "anim/status.h"
#include "base/config.h"
#include "base/metrics.h"
#include "persist/state_writer.h"
#include "world/world.h"

namespace animd {

class StateSaver {
 public:
  // Characters captured in one tick, at most: a sweep takes longer rather than a tick.
  static constexpr size_t kMaxCapturedPerTick = 512;
  // A restored character is stepped through at most this long of missed ticks.
  static constexpr double kMaxCatchUpSeconds = 5.0;
  // The largest characters file read.
  static constexpr uint64_t kMaxFileBytes = uint64_t{1} << 30;

  // `config.state_dir` must exist.
  StateSaver(const Config& config, Metrics& metrics);
  ~StateSaver();
  StateSaver(const StateSaver&) = delete;
  StateSaver& operator=(const StateSaver&) = delete;

  const std::filesystem::path& path() const { return path_; }

  // Start-up: `tick` is the tick the daemon's first update will be (catch-up target).
  void restore(World& world, uint64_t tick);
  // Tick thread, after tick `tick`'s update.
  void after_tick(const World& world, uint64_t tick);
  // Every character as the update after `tick` starts from them, written now (the tick
  // loop stopped).
  anim::Status save_all(const World& world, uint64_t tick);

 private:
  void offer(std::shared_ptr<std::vector<PersistedCharacter>> characters, const World& world,
             uint64_t tick);
  void on_written(const anim::Status& s, uint64_t bytes);

  const Config& config_;
  Metrics& metrics_;
  const std::filesystem::path path_;
  const uint64_t sweep_ticks_;  // ticks between sweep starts: half the interval, >= 1
  // The sweep in progress (tick thread): characters captured so far, in id order.
  std::shared_ptr<std::vector<PersistedCharacter>> sweep_;
  uint32_t cursor_ = 0;  // the last id captured
  size_t per_tick_ = 1;
  uint64_t next_sweep_tick_ = 0;
  bool last_offered_empty_ = false;
  // When the save being written started to be serialized (steady clock, ns).
  std::atomic<int64_t> started_ns_{0};
  std::unique_ptr<StateWriter> writer_;  // last: its thread stops first
};

}  // namespace animd
