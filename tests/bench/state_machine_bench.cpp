// What a state machine costs over the crossfade commands it stands for, per character on
// bench64 (64 joints, clips A and B, 2 s each):
//  - BM_AnimatorStateMachine: a four-state machine drives the base (below), by set_parameter /
//    set_trigger changes on a fixed schedule;
//  - BM_AnimatorStateMachineAsCrossfades: the same clips driven by the crossfade commands the
//    machine's transitions are, sent before the same updates (so both evaluate the same fades);
//  - BM_AnimatorStateMachineOverhead: both in one run, alternated update by update, with the
//    ratio of their times (below).
// The machine: idle (A), walk (B), run (A at 1.5x), jump (B at 2x, one-shot). idle <-> walk <->
// run on the float parameter "speed" (fades of 0.25 s and 0.3 s), jump from any state on the
// trigger "jump" (0.2 s, smooth step, priority 1), back to idle at exit time 0.9 (0.25 s). Every
// transition the schedule makes changes the clip (jump is triggered from run), so none of the
// crossfades is a no-op (a crossfade to the latest target is). The schedule repeats every kPeriod
// updates: idle, walk, run, walk, idle, walk and on to run, the jump trigger sent while that fade
// runs (a non-interruptible fade holds it), speed back to 0 while jumping, idle again before the
// period ends: 8 fades, 2.1 s of the 5. Character i runs it kOffset * i updates ahead, so every
// update sees the whole schedule spread over the characters and their clips at distinct times.
// The crossfade commands are recorded from a machine run; before timing both variants run one
// period (untimed), and probe pairs check that after one period the two give the same palettes
// bit for bit, update by update, over the next two.
// Reports "time_per_char" (seconds per character-update) and items/s, as animator_bench; the
// paired benchmark its own counters. Each driver's characters are made once per process and
// count and shared by the benchmarks, so the one made first is the one the filter runs first.
// Where a process's characters land in memory moves the ratio more than its repetitions do:
// compare over several processes (docs/benchmarks.md, "State machines").
#include <algorithm>
#include <array>
#include <cstdint>
#include <ctime>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "anim/animator.h"
#include "anim/loaders/gltf_loader.h"
#include "anim/state_machine.h"
#include "shared_assets.h"

namespace {

constexpr float kDt = 1.0f / 60.0f;
constexpr int kPeriod = 300;  // updates (5 s)
constexpr int kOffset = 37;   // co-prime with kPeriod

const std::string kSpeed = "speed";
const std::string kJump = "jump";

const anim::Asset* bench64() {
  static const anim::Expected<anim::Asset> asset =
      anim::load_gltf(animtest::shared_path("assets/Bench64/bench64.glb"));
  return asset ? &*asset : nullptr;
}

// A command the schedule sends before the update at its phase.
struct Event {
  int phase = 0;
  bool trigger = false;  // set_trigger("jump"); else set_parameter("speed", value, 0)
  float value = 0.0f;
};
constexpr std::array<Event, 7> kSchedule{{
    {10, false, 0.5f},   // idle -> walk
    {60, false, 1.5f},   // walk -> run
    {110, false, 0.5f},  // run -> walk
    {140, false, 0.0f},  // walk -> idle
    {170, false, 1.5f},  // idle -> walk, then walk -> run when that fade ends
    {190, true, 0.0f},   // jump, held until the walk -> run fade ends
    {215, false, 0.0f},  // jump -> idle at its exit time
}};

anim::ConditionDesc when(anim::ConditionOp op, float value) {
  return anim::ConditionDesc{kSpeed, op, value};
}

anim::TransitionDesc transition(const std::string& from, const std::string& to,
                                std::vector<anim::ConditionDesc> conditions, float duration) {
  anim::TransitionDesc t;
  t.from = from;
  t.any_state = from.empty();
  t.to = to;
  t.conditions = std::move(conditions);
  t.duration = duration;
  return t;
}

anim::StateMachineDesc locomotion() {
  using anim::ConditionOp;
  anim::StateMachineDesc d;
  d.name = "bench_locomotion";
  d.entry = "idle";
  d.states = {{"idle", "A", 1.0f, true},
              {"walk", "B", 1.0f, true},
              {"run", "A", 1.5f, true},
              {"jump", "B", 2.0f, false}};
  d.transitions = {
      transition("idle", "walk", {when(ConditionOp::kGreater, 0.1f)}, 0.25f),
      transition("walk", "run", {when(ConditionOp::kGreater, 1.0f)}, 0.3f),
      transition("run", "walk", {when(ConditionOp::kLess, 1.0f)}, 0.3f),
      transition("walk", "idle", {when(ConditionOp::kLess, 0.1f)}, 0.25f),
      transition("", "jump", {{kJump, ConditionOp::kTrigger, 0.0f}}, 0.2f),
      transition("jump", "idle", {}, 0.25f),
  };
  d.transitions[4].curve = anim::BlendCurve::kSmoothStep;
  d.transitions[4].priority = 1;
  d.transitions[5].exit_time = 0.9f;
  return d;
}

// The crossfade a transition is (CrossfadeOptions::sync_normalized_time stays false: no
// transition here syncs).
struct Crossfade {
  int clip = -1;
  float duration = 0.0f;
  anim::CrossfadeOptions options;
};

struct Setup {
  std::shared_ptr<const anim::StateMachine> machine;
  std::array<std::optional<Crossfade>, kPeriod> crossfades;  // by phase
  std::array<const Event*, kPeriod> events{};                // by phase
  std::string error;
};

void send(anim::Animator& c, const Event& e) {
  if (e.trigger)
    (void)c.set_trigger(kJump);
  else
    (void)c.set_parameter(kSpeed, e.value, 0.0f);
}

// Sends phase `phase`'s command (if any) to a machine-driven character, then updates it.
void tick_machine(const Setup& s, anim::Animator& c, int phase) {
  if (const Event* e = s.events[static_cast<size_t>(phase)]) send(c, *e);
  (void)c.update(kDt);
}

void tick_crossfades(const Setup& s, anim::Animator& c, int phase) {
  if (const auto& x = s.crossfades[static_cast<size_t>(phase)])
    (void)c.crossfade(x->clip, x->duration, x->options);
  (void)c.update(kDt);
}

std::unique_ptr<anim::Animator> character(const anim::Asset& asset, const Setup& s, bool machine) {
  auto c = std::make_unique<anim::Animator>(asset.skeleton, asset.clips);
  if (machine) {
    if (!c->start_state_machine(s.machine)) return nullptr;
  } else {
    const anim::MachineState& entry = s.machine->states[static_cast<size_t>(s.machine->entry)];
    if (!c->play(entry.clip, {.loop = entry.loop, .speed = entry.speed})) return nullptr;
  }
  return c;
}

bool same_palette(const anim::Animator& a, const anim::Animator& b) {
  if (a.palette().size() != b.palette().size()) return false;
  for (size_t j = 0; j < a.palette().size(); ++j)
    for (int i = 0; i < 12; ++i)
      if (a.palette()[j].m[i] != b.palette()[j].m[i]) return false;
  return true;
}

// Builds the machine, records its transitions as crossfades (one period from the entry state,
// checked against the next) and checks the two drivers against each other.
Setup make_setup(const anim::Asset& asset) {
  Setup s;
  for (const Event& e : kSchedule) s.events[static_cast<size_t>(e.phase)] = &e;
  auto m =
      anim::make_state_machine(locomotion(), asset.clips, asset.skeleton.num_joints(), nullptr);
  if (!m) {
    s.error = m.error().message();
    return s;
  }
  s.machine = std::make_shared<const anim::StateMachine>(std::move(*m));
  const anim::StateMachine& sm = *s.machine;

  auto recorder = character(asset, s, true);
  if (!recorder) {
    s.error = "start_state_machine failed";
    return s;
  }
  std::array<int, kPeriod> fired{};  // the transition started at each phase, -1: none
  for (int t = 0; t < 2 * kPeriod; ++t) {
    const int phase = t % kPeriod;
    const int before = recorder->machine_status().state;
    tick_machine(s, *recorder, phase);
    const anim::MachineStatus after = recorder->machine_status();
    const int index = after.state != before ? after.transition : -1;
    if (after.state != before && index < 0) {
      s.error = "a transition ended within its first update";
      return s;
    }
    if (t < kPeriod) {
      fired[static_cast<size_t>(phase)] = index;
    } else if (fired[static_cast<size_t>(phase)] != index) {
      s.error = "the machine's transitions do not repeat with the schedule";
      return s;
    }
  }
  int count = 0;
  for (int phase = 0; phase < kPeriod; ++phase) {
    const int index = fired[static_cast<size_t>(phase)];
    if (index < 0) continue;
    const anim::MachineTransition& t = sm.transitions[static_cast<size_t>(index)];
    const anim::MachineState& to = sm.states[static_cast<size_t>(t.to)];
    Crossfade x;
    x.clip = to.clip;
    x.duration = t.duration;
    x.options.loop = to.loop;
    x.options.speed = to.speed;
    x.options.curve = t.curve;
    s.crossfades[static_cast<size_t>(phase)] = x;
    ++count;
  }
  if (count != 8) {
    s.error = "expected 8 transitions a period, the machine made " + std::to_string(count);
    return s;
  }

  // Probe pairs at a few offsets: a period to settle, then two compared update by update.
  for (int i : {0, 1, 5, 123, 299}) {
    auto a = character(asset, s, true);
    auto b = character(asset, s, false);
    if (!a || !b) {
      s.error = "probe setup failed";
      return s;
    }
    const int offset = (kOffset * i) % kPeriod;
    for (int t = 0; t < 3 * kPeriod; ++t) {
      const int phase = (t + offset) % kPeriod;
      tick_machine(s, *a, phase);
      tick_crossfades(s, *b, phase);
      if (t >= kPeriod && !same_palette(*a, *b)) {
        s.error = "machine and crossfades differ (probe " + std::to_string(i) + ", update " +
                  std::to_string(t) + ")";
        return s;
      }
    }
  }
  return s;
}

// The characters of one driver and count and where each is in the schedule: made on first use
// (with its untimed period) and kept for the process, so the runs Google Benchmark makes (its
// iteration-count trials, repetitions, interleaved or not) and the paired benchmark share them.
struct Population {
  std::vector<std::unique_ptr<anim::Animator>> characters;
  std::vector<int> phases;  // each character's phase at its next update
};

template <bool kMachine>
void tick(const Setup& setup, Population& p) {
  for (size_t i = 0; i < p.characters.size(); ++i) {
    if constexpr (kMachine)
      tick_machine(setup, *p.characters[i], p.phases[i]);
    else
      tick_crossfades(setup, *p.characters[i], p.phases[i]);
    p.phases[i] = p.phases[i] + 1 == kPeriod ? 0 : p.phases[i] + 1;
  }
  benchmark::DoNotOptimize(p.characters.back()->palette().data());
  benchmark::ClobberMemory();
}

// The setup, or null after SkipWithError.
const Setup* checked_setup(benchmark::State& state) {
  const anim::Asset* asset = bench64();
  if (!asset) {
    state.SkipWithError("bench64.glb not found under ../shared/assets (set ANIMD_SHARED_DIR)");
    return nullptr;
  }
  static const Setup setup = make_setup(*asset);
  if (!setup.error.empty()) {
    state.SkipWithError(setup.error.c_str());
    return nullptr;
  }
  return &setup;
}

// state.range(0) characters driven by the machine (kMachine) or by crossfades; null after
// SkipWithError.
template <bool kMachine>
Population* population(benchmark::State& state, const Setup& setup) {
  static std::map<int, Population> populations;
  const int count = static_cast<int>(state.range(0));
  if (auto it = populations.find(count); it != populations.end()) return &it->second;
  Population p;
  p.characters.reserve(static_cast<size_t>(count));
  p.phases.reserve(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) {
    auto c = character(*bench64(), setup, kMachine);
    if (!c) {
      state.SkipWithError("character setup failed");
      return nullptr;
    }
    p.characters.push_back(std::move(c));
    p.phases.push_back((kOffset * i) % kPeriod);
  }
  for (int t = 0; t < kPeriod; ++t) tick<kMachine>(setup, p);  // untimed: all settle
  return &populations.emplace(count, std::move(p)).first->second;
}

void per_character_counters(benchmark::State& state) {
  const int64_t updates = state.iterations() * state.range(0);
  state.SetItemsProcessed(updates);
  state.counters["time_per_char"] = benchmark::Counter(
      static_cast<double>(updates), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["joints"] = bench64()->skeleton.num_joints();
}

template <bool kMachine>
void run(benchmark::State& state) {
  const Setup* setup = checked_setup(state);
  Population* p = setup ? population<kMachine>(state, *setup) : nullptr;
  if (!p) return;
  for (auto _ : state) tick<kMachine>(*setup, *p);
  per_character_counters(state);
}

void BM_AnimatorStateMachine(benchmark::State& state) {
  run<true>(state);
}
void BM_AnimatorStateMachineAsCrossfades(benchmark::State& state) {
  run<false>(state);
}

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

template <bool kMachine>
double timed_tick(const Setup& setup, Population& p) {
  const double t0 = thread_cpu_seconds();
  tick<kMachine>(setup, p);
  return thread_cpu_seconds() - t0;
}

// Both populations in one run, alternated update by update (which goes first alternates too),
// each update timed on the thread's CPU clock, so that the host's drift, slow over a pair,
// cancels in the ratio. The benchmark's own time is the pair's (items: both updates). Counters:
// "machine" and "crossfades", CPU seconds per character-update of each (sums over the run);
// "ratio", the median of the pairs' machine / crossfades, with "ratio_q1" and "ratio_q3" its
// quartiles.
void BM_AnimatorStateMachineOverhead(benchmark::State& state) {
  const Setup* setup = checked_setup(state);
  Population* machine = setup ? population<true>(state, *setup) : nullptr;
  Population* crossfades = machine ? population<false>(state, *setup) : nullptr;
  if (!crossfades) return;
  std::vector<double> ratios;
  double machine_sum = 0.0, crossfades_sum = 0.0;
  bool machine_first = true;
  for (auto _ : state) {
    double m = 0.0, x = 0.0;
    if (machine_first) {
      m = timed_tick<true>(*setup, *machine);
      x = timed_tick<false>(*setup, *crossfades);
    } else {
      x = timed_tick<false>(*setup, *crossfades);
      m = timed_tick<true>(*setup, *machine);
    }
    machine_first = !machine_first;
    machine_sum += m;
    crossfades_sum += x;
    if (x > 0.0) ratios.push_back(m / x);
  }
  const double updates = static_cast<double>(state.iterations() * state.range(0));
  state.SetItemsProcessed(2 * state.iterations() * state.range(0));
  state.counters["joints"] = bench64()->skeleton.num_joints();
  state.counters["machine"] = machine_sum / updates;
  state.counters["crossfades"] = crossfades_sum / updates;
  if (!ratios.empty()) {
    std::sort(ratios.begin(), ratios.end());
    const auto at = [&](size_t q) { return ratios[(ratios.size() - 1) * q / 4]; };
    state.counters["ratio"] = at(2);
    state.counters["ratio_q1"] = at(1);
    state.counters["ratio_q3"] = at(3);
  }
}

BENCHMARK(BM_AnimatorStateMachine)
    ->Arg(1)
    ->Arg(100)
    ->Arg(1000)
    ->Arg(10000)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_AnimatorStateMachineAsCrossfades)
    ->Arg(1)
    ->Arg(100)
    ->Arg(1000)
    ->Arg(10000)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_AnimatorStateMachineOverhead)
    ->Arg(1)
    ->Arg(100)
    ->Arg(1000)
    ->Arg(10000)
    ->Unit(benchmark::kMicrosecond);

}  // namespace
