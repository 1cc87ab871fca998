#include "tick/tick_loop.h"

#include <cerrno>
#include <cstring>
#include <string>

#include <spdlog/spdlog.h>

#include "base/thread_name.h"
#include "base/thread_slice.h"
#include "tick/tick_numbering.h"
#include "tick/tick_overrun.h"

namespace animd {

using Clock = std::chrono::steady_clock;

TickLoop::TickLoop(const Config& config, World& world, CommandQueue& commands, Metrics& metrics,
                   Publish publish, Publish deliver, Observe observe)
    : config_(config),
      world_(world),
      commands_(commands),
      metrics_(metrics),
      publish_(std::move(publish)),
      deliver_(std::move(deliver)),
      observe_(std::move(observe)) {}

TickLoop::~TickLoop() {
  stop();
}

void TickLoop::start() {
  thread_ = std::thread([this] {
    name_this_thread("animd-tick");
    // The workers ask the same kernel for the same slice: one message covers them too.
    if (!request_thread_slice(std::chrono::microseconds(config_.tick_slice_us)))
      spdlog::info(
          "--tick-slice-us {}: the kernel refused the slice (sched_setattr: {}); the "
          "tick threads keep the default one",
          config_.tick_slice_us, std::strerror(errno));
    if (!world_.pool().pin_caller())
      spdlog::warn(
          "the tick thread could not keep to CPU {} (sched_setaffinity: {}); it runs "
          "wherever the kernel puts it",
          world_.pool().cpus().front(), std::strerror(errno));
    run();
  });
}

void TickLoop::stop() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
}

void TickLoop::run() {
  const TickSchedule schedule(config_.tick_epoch, config_.tick_rate);
  const auto period = std::chrono::duration_cast<Clock::duration>(schedule.period());
  TickDt dts(config_.tick_rate);
  const auto start = Clock::now();
  std::vector<Command> batch;
  uint64_t tick = 0;  // the last tick run (0: none yet)
  bool degrade = false;
  auto last_publish = start;
  // Overruns are logged with their phases, at most one line a second (the rest counted).
  auto last_overrun_line = start - std::chrono::seconds(1);
  uint64_t unlogged_overruns = 0;
  // Wall-clock steps are logged at most once every 10 s (the rest counted).
  auto last_step_line = start - std::chrono::seconds(10);
  uint64_t unlogged_steps = 0;
  bool slewing = false;  // the numbering is ahead of the wall clock by more than the hold
  auto us_between = [](Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double, std::micro>(b - a).count();
  };
  Clock::time_point wake = start;
  Clock::time_point prev_steady{};
  WallClock::time_point prev_wall{};
  while (!stop_.load(std::memory_order_relaxed)) {
    std::this_thread::sleep_until(wake);
    if (stop_.load(std::memory_order_relaxed)) break;
    metrics_.tick_running.store(true, std::memory_order_relaxed);
    const auto t0 = Clock::now();
    const auto wall0 = WallClock::now();
    const double cpu0 = thread_cpu_us();
    const double workers0 = world_.pool().workers_cpu_us();
    const double parallel0 = world_.pool().parallel_us();
    // The number of the current instant, never one that ran (tick_numbering.h).
    const TickPlan plan = plan_tick(schedule, tick, wall0);
    if (tick == 0) metrics_.first_tick.store(plan.tick, std::memory_order_relaxed);
    if (plan.skipped() > 0)
      metrics_.ticks_skipped.fetch_add(plan.skipped(), std::memory_order_relaxed);
    if (tick != 0) {
      // How far the wall clock moved apart from the steady clock since the last tick.
      const auto step = (wall0 - prev_wall) - (t0 - prev_steady);
      if (step > period || step < -period) {
        const bool forward = step > period;
        (forward ? metrics_.clock_steps_forward : metrics_.clock_steps_back)
            .fetch_add(1, std::memory_order_relaxed);
        if (t0 - last_step_line >= std::chrono::seconds(10)) {
          const double ms = std::chrono::duration<double, std::milli>(step).count();
          if (forward)
            spdlog::warn(
                "the wall clock stepped forward by {:.1f} ms: tick {} runs after tick {} ({} "
                "tick(s) skipped; the update covers at most {} s){}",
                ms, plan.tick, tick, plan.skipped(), kMaxStepSeconds,
                unlogged_steps ? fmt::format(" ({} more step(s) not logged)", unlogged_steps)
                               : std::string());
          else
            spdlog::warn(
                "the wall clock stepped back by {:.1f} ms: tick numbers keep counting from tick "
                "{}, ahead of the wall clock's tick {}, until it catches up (held up to {} s, "
                "slewed beyond){}",
                -ms, tick, schedule.tick_at(wall0), kMaxStepSeconds,
                unlogged_steps ? fmt::format(" ({} more step(s) not logged)", unlogged_steps)
                               : std::string());
          last_step_line = t0;
          unlogged_steps = 0;
        } else {
          ++unlogged_steps;
        }
      }
    }
    prev_steady = t0;
    prev_wall = wall0;
    tick = plan.tick;  // tick 0 never runs: replies of tick 0 mean "not tied to a tick"
    const double server_time = std::chrono::duration<double>(t0 - start).count();
    // What the encode stage left of the last tick's quantization, before anything changes
    // a character (World::apply would do it first too; timed apart for the overrun line).
    world_.settle();
    const auto settled = Clock::now();
    commands_.take(batch, config_.max_commands_per_tick);
    TickPhases phases;
    phases.commands = batch.size();
    world_.apply(batch, tick, server_time);
    batch.clear();
    const auto applied = Clock::now();
    SnapshotPtr snap = world_.update(dts.next(plan), tick, server_time, degrade);
    const auto updated = Clock::now();
    publish_(snap);
    // Sequentially consistent, for the notify: a waiter that is about to sleep is counted
    // before this is read, so it is woken (std::atomic::notify skips uncounted waiters).
    metrics_.tick_running.store(false);
    metrics_.tick_running.notify_all();
    metrics_.tick.store(tick, std::memory_order_relaxed);
    const auto t1 = Clock::now();
    const double us = us_between(t0, t1);
    world_.tick_stats().record(us);
    if (deliver_) deliver_(snap);
    if (observe_) observe_(t1 - t0, period);
    degrade = t1 - t0 > period;
    if (degrade) {
      metrics_.tick_overruns.fetch_add(1, std::memory_order_relaxed);
      const bool quantized = snap->quantized_in_tick;
      if (quantized) metrics_.overruns_quantized_in_tick.fetch_add(1, std::memory_order_relaxed);
      if (t1 - last_overrun_line >= std::chrono::seconds(1)) {
        phases.settle_us = us_between(t0, settled);
        phases.apply_us = us_between(settled, applied);
        phases.update_us = us_between(applied, updated);
        phases.publish_us = us_between(updated, t1);
        phases.wall_us = us;
        phases.thread_cpu_us = thread_cpu_us() - cpu0;
        phases.workers_cpu_us = world_.pool().workers_cpu_us() - workers0;
        phases.threads = world_.pool().threads();
        phases.parallel_us = world_.pool().parallel_us() - parallel0;
        phases.quantized_in_tick = quantized;
        spdlog::warn("{}",
                     describe_overrun(tick, phases,
                                      std::chrono::duration<double, std::micro>(period).count(),
                                      unlogged_overruns));
        last_overrun_line = t1;
        unlogged_overruns = 0;
      } else {
        ++unlogged_overruns;
      }
    }
    // The next tick's wall-clock instant, slept toward on the steady clock; a late one runs
    // at once (its skipped numbers never run in a burst).
    const TickWait w = wait_before_tick(schedule, tick, WallClock::now());
    const bool now_slewing = w.kind == TickWait::Kind::kSlew;
    if (slewing && !now_slewing)
      spdlog::info("tick numbering is back within {} s of the wall clock at tick {}",
                   kMaxStepSeconds, tick);
    slewing = now_slewing;
    wake = Clock::now() + std::chrono::duration_cast<Clock::duration>(w.sleep);
    if (t1 - last_publish > std::chrono::seconds(1)) {
      const TickTimes t = world_.tick_stats().compute();
      metrics_.tick_p50_us.store(t.p50_us, std::memory_order_relaxed);
      metrics_.tick_p99_us.store(t.p99_us, std::memory_order_relaxed);
      metrics_.tick_max_us.store(t.max_us, std::memory_order_relaxed);
      const World::StoreBytes b = world_.store_bytes();
      metrics_.history_bytes.store(b.history, std::memory_order_relaxed);
      metrics_.snapshot_bytes.store(b.snapshots, std::memory_order_relaxed);
      metrics_.quant_frame_bytes.store(b.quant_frames, std::memory_order_relaxed);
      metrics_.snapshots_kept.store(static_cast<uint32_t>(b.snapshot_count),
                                    std::memory_order_relaxed);
      metrics_.quant_frames_kept.store(static_cast<uint32_t>(b.quant_frame_count),
                                       std::memory_order_relaxed);
      last_publish = t1;
    }
  }
  // Whatever arrived after the last tick, or waits for a later one, is answered, never
  // silently dropped.
  world_.cancel_scheduled(
      anim::Status(anim::StatusCode::kUnavailable, "the daemon is shutting down"));
  commands_.take(batch);
  for (auto& c : batch) {
    if (!c.sink) continue;
    c.sink->deliver_result(
        ResultHeader{c.seq, c.request_id, 0},
        anim::Status(anim::StatusCode::kUnavailable, "the daemon is shutting down"));
  }
  spdlog::info("tick loop stopped at tick {}", tick);
}

}  // namespace animd
