#include "persist/state_saver.h"

#include <algorithm>
#include <cmath>

#include <spdlog/spdlog.h>

#include "base/durable_file.h"
#include "persist/state_file.h"

namespace animd {

namespace {

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Refusals logged one per line up to this many; the rest counted in one line.
constexpr size_t kRefusalLines = 20;

void log_refusals(const std::vector<std::string>& refused) {
  for (size_t i = 0; i < refused.size() && i < kRefusalLines; ++i)
    spdlog::error("state: not restored: {}", refused[i]);
  if (refused.size() > kRefusalLines)
    spdlog::error("state: {} more characters not restored", refused.size() - kRefusalLines);
}

}  // namespace

StateSaver::StateSaver(const Config& config, Metrics& metrics)
    : config_(config),
      metrics_(metrics),
      path_(std::filesystem::path(config.state_dir) / "characters.state"),
      sweep_ticks_(std::max<uint64_t>(
          1, static_cast<uint64_t>(std::llround(config.state_interval_s * config.tick_rate / 2)))),
      writer_(std::make_unique<StateWriter>(
          path_, [this](const anim::Status& s, uint64_t bytes) { on_written(s, bytes); })) {}

StateSaver::~StateSaver() {
  writer_.reset();
}

void StateSaver::on_written(const anim::Status& s, uint64_t bytes) {
  const int64_t took = now_ns() - started_ns_.load(std::memory_order_relaxed);
  if (!s) {
    metrics_.state_save_failures.fetch_add(1, std::memory_order_relaxed);
    spdlog::error("state: save not written: {}", s.message());
    return;
  }
  metrics_.state_saves.fetch_add(1, std::memory_order_relaxed);
  metrics_.state_save_bytes.store(bytes, std::memory_order_relaxed);
  metrics_.state_save_us.store(static_cast<uint64_t>(std::max<int64_t>(0, took / 1000)),
                               std::memory_order_relaxed);
}

void StateSaver::restore(World& world, uint64_t tick) {
  const std::string name = path_.string();
  const auto keep_aside = [&] {
    const auto aside = set_aside(path_);
    if (aside.empty())
      spdlog::error("state: {} could not be moved aside; the next save replaces it", name);
    else
      spdlog::error("state: {} kept aside as {}", name, aside.string());
  };
  auto payload = read_durable(path_, kMaxFileBytes);
  if (!payload) {
    if (payload.error().code() == anim::StatusCode::kNotFound) {
      spdlog::info("state: no saved characters in {}: starting with none", config_.state_dir);
      return;
    }
    spdlog::error("state: nothing restored: {}", payload.error().message());
    keep_aside();
    return;
  }
  auto decoded = decode_state_file(*payload, name);
  if (!decoded) {
    spdlog::error("state: nothing restored: {}", decoded.error().message());
    keep_aside();
    return;
  }
  StateFile& file = decoded->file;
  const bool same_clock =
      file.tick_rate == config_.tick_rate && file.tick_epoch == config_.tick_epoch;
  if (!same_clock)
    spdlog::warn(
        "state: {} was saved at --tick-rate {} --tick-epoch {} (now {} and {}): its characters "
        "resume where they were, not caught up",
        name, file.tick_rate, file.tick_epoch, config_.tick_rate, config_.tick_epoch);
  const auto max_steps =
      static_cast<uint64_t>(std::llround(kMaxCatchUpSeconds * config_.tick_rate));
  const size_t saved = file.characters.size() + decoded->refused.size();
  RestoreOutcome out = world.restore_characters(std::move(file.characters), file.next_id, tick,
                                                same_clock, max_steps);
  std::vector<std::string> refused = std::move(decoded->refused);
  refused.insert(refused.end(), out.refused.begin(), out.refused.end());
  metrics_.state_restored.store(out.restored, std::memory_order_relaxed);
  metrics_.state_refused.store(refused.size(), std::memory_order_relaxed);
  spdlog::info(
      "state: {} of {} characters restored from {} (saved at tick {}, now {}; each caught up "
      "by at most {} ticks{}); next character id {}",
      out.restored, saved, name, file.tick, tick, out.max_caught_up_ticks,
      out.behind ? fmt::format(", {} of them older than {} s and behind by the rest", out.behind,
                               kMaxCatchUpSeconds)
                 : std::string(),
      world.next_character_id());
  if (!refused.empty()) {
    log_refusals(refused);
    keep_aside();
  }
}

void StateSaver::after_tick(const World& world, uint64_t tick) {
  if (!sweep_) {
    if (tick < next_sweep_tick_) return;
    next_sweep_tick_ = tick + sweep_ticks_;
    const size_t n = world.num_characters();
    per_tick_ = std::clamp<size_t>((n + sweep_ticks_ - 1) / sweep_ticks_, 1, kMaxCapturedPerTick);
    sweep_ = std::make_shared<std::vector<PersistedCharacter>>();
    sweep_->reserve(n);
    cursor_ = 0;
  }
  const size_t before = sweep_->size();
  const uint32_t last = world.capture_characters(cursor_, per_tick_, tick + 1, *sweep_);
  if (sweep_->size() - before == per_tick_) {
    cursor_ = last;
    return;
  }
  // The sweep is complete: those despawned since their capture are not saved.
  world.drop_despawned(*sweep_);
  auto done = std::move(sweep_);
  sweep_.reset();
  if (done->empty() && last_offered_empty_) return;
  last_offered_empty_ = done->empty();
  offer(std::move(done), world, tick);
}

void StateSaver::offer(std::shared_ptr<std::vector<PersistedCharacter>> characters,
                       const World& world, uint64_t tick) {
  auto file = std::make_shared<StateFile>();
  file->tick_rate = config_.tick_rate;
  file->tick_epoch = config_.tick_epoch;
  file->tick = tick;
  file->next_id = world.next_character_id();
  file->characters = std::move(*characters);
  writer_->offer(StateWriter::Producer([this, file] {
    started_ns_.store(now_ns(), std::memory_order_relaxed);
    return encode_state_file(*file);
  }));
}

anim::Status StateSaver::save_all(const World& world, uint64_t tick) {
  const int64_t t0 = now_ns();
  StateFile file;
  file.tick_rate = config_.tick_rate;
  file.tick_epoch = config_.tick_epoch;
  file.tick = tick;
  file.next_id = world.next_character_id();
  file.characters.reserve(world.num_characters());
  world.capture_characters(0, SIZE_MAX, tick + 1, file.characters);
  const size_t n = file.characters.size();
  started_ns_.store(t0, std::memory_order_relaxed);
  anim::Status s = writer_->write_now(encode_state_file(file));
  if (s)
    spdlog::info("state: {} characters saved to {} in {:.1f} ms", n, path_.string(),
                 static_cast<double>(now_ns() - t0) / 1e6);
  return s;
}

}  // namespace animd
