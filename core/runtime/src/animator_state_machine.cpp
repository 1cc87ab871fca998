// Animator: the state machine on the base and the character's triggers. docs/animation.md,
// "State machines", has the rules.
#include <algorithm>
#include <cmath>
#include <string>

#include "anim/animator.h"
#include "anim/blend_space.h"

namespace anim {

namespace {

// The names of `wanted` that are not among the first `have` entries of `slots` (by name).
// `slots` may be null when `have` is 0.
template <typename Slots>
int count_missing(const std::vector<std::string>& wanted, const Slots* slots, int have) {
  int missing = 0;
  for (const std::string& w : wanted) {
    bool found = false;
    for (int i = 0; i < have && !found; ++i) found = (*slots)[static_cast<size_t>(i)].name == w;
    missing += found ? 0 : 1;
  }
  return missing;
}

}  // namespace

Status Animator::check_no_machine(const char* what) const {
  if (!machine_.machine) return Status::ok();
  return failed_precondition(std::string(what) + ": state machine '" + machine_.machine->name +
                             "' drives the base (stop it first)");
}

int Animator::find_trigger(const std::string& name) const {
  for (int i = 0; i < num_triggers_; ++i)
    if (controls_->triggers[static_cast<size_t>(i)].name == name) return i;
  return -1;
}

Status Animator::start_machine(MachineDriver& driver, Track& track,
                               std::shared_ptr<const StateMachine> machine,
                               const std::string& state, const char* what) {
  const std::string cmd(what);
  if (!machine) return invalid_argument(cmd + ": no machine given");
  const StateMachine& m = *machine;
  const int start = state.empty() ? m.entry : m.find_state(state);
  if (start < 0)
    return not_found(cmd + ": machine '" + m.name + "' has no state named '" + state + "'");
  // Everything it names must be the character's.
  const int num_spaces = spaces_ ? static_cast<int>(spaces_->spaces.size()) : 0;
  std::vector<std::string> params = m.parameters;
  for (const MachineState& s : m.states) {
    if (s.clip >= 0) {
      const std::string who = cmd + ": state '" + s.name + "':";
      if (Status st = check_clip(s.clip, who.c_str()); !st)
        return failed_precondition(st.message());
    } else if (s.space < 0 || s.space >= num_spaces) {
      return failed_precondition(cmd + ": state '" + s.name + "' plays blend space " +
                                 std::to_string(s.space) + ", which the character does not have");
    } else {
      const BlendSpace& bs = *spaces_->spaces[static_cast<size_t>(s.space)];
      for (int a = 0; a < bs.dimensions; ++a)
        if (std::find(params.begin(), params.end(), bs.axes[static_cast<size_t>(a)]) ==
            params.end())
          params.push_back(bs.axes[static_cast<size_t>(a)]);
    }
  }
  const int new_params =
      count_missing(params, controls_ ? &controls_->params : nullptr, num_params_);
  if (num_params_ + new_params > kMaxParameters)
    return Status(StatusCode::kResourceExhausted,
                  cmd + ": machine '" + m.name + "' needs " + std::to_string(new_params) +
                      " more parameters; the character has " + std::to_string(num_params_) +
                      " of at most " + std::to_string(kMaxParameters));
  const int new_triggers =
      count_missing(m.triggers, controls_ ? &controls_->triggers : nullptr, num_triggers_);
  if (num_triggers_ + new_triggers > kMaxTriggers)
    return Status(StatusCode::kResourceExhausted,
                  cmd + ": machine '" + m.name + "' needs " + std::to_string(new_triggers) +
                      " more triggers; the character has " + std::to_string(num_triggers_) +
                      " of at most " + std::to_string(kMaxTriggers));

  // Everything checked: create what is missing, then resolve the slots and the players.
  if (!params.empty() || !m.triggers.empty()) controls_.make();
  for (const std::string& p : params) {
    int slot = -1;
    for (int i = 0; i < num_params_; ++i)
      if (controls_->params[static_cast<size_t>(i)].name == p) slot = i;
    if (slot < 0) controls_->params[static_cast<size_t>(num_params_++)] = Parameter{p};
  }
  for (size_t k = 0; k < m.parameters.size(); ++k)
    for (int i = 0; i < num_params_; ++i)
      if (controls_->params[static_cast<size_t>(i)].name == m.parameters[k])
        driver.params[k] = static_cast<int8_t>(i);
  for (size_t k = 0; k < m.triggers.size(); ++k) {
    int slot = find_trigger(m.triggers[k]);
    if (slot < 0) {
      slot = num_triggers_++;
      controls_->triggers[static_cast<size_t>(slot)] = Trigger{m.triggers[k], false};
    }
    driver.triggers[k] = static_cast<int8_t>(slot);
  }
  std::vector<Player> players;
  players.reserve(m.states.size());
  for (const MachineState& s : m.states) {
    if (s.clip >= 0) {
      players.push_back(Player{s.clip, 0.0f, s.speed, s.loop, {}, 0.0f, {}, 0.0f, 0, true});
    } else {
      // Its parameters exist now: this neither creates any nor fails.
      auto p = space_player(s.space, s.loop, s.speed, what);
      if (!p) return p.error();
      players.push_back(*p);
    }
  }
  driver.players = std::move(players);
  driver.machine = std::move(machine);
  start_fade(track, driver.players[static_cast<size_t>(start)], 0.0f, false);
  driver.run = MachineRun{start, 0.0f, -1, -1};
  return Status::ok();
}

Status Animator::start_state_machine(std::shared_ptr<const StateMachine> machine,
                                     const std::string& state) {
  return start_machine(machine_, main_, std::move(machine), state, "start_state_machine");
}

void Animator::stop_state_machine() {
  machine_ = MachineDriver{};
}

MachineStatus Animator::status_of(const MachineDriver& driver, const Track& track) const {
  MachineStatus s;
  if (!driver.machine) return s;
  const MachineRun& run = driver.run;
  s.running = true;
  s.state = run.state;
  s.state_time = run.state_time;
  if (run.transition >= 0 && track.num_fades > 0) {
    const Fade& f = track.fades[static_cast<size_t>(track.num_fades - 1)];
    s.transition = run.transition;
    s.from_state = run.from;
    s.transition_elapsed = f.elapsed;
    s.transition_duration = f.duration;
  }
  return s;
}

int Animator::fades_bound() const {
  return std::min(kMaxFades, main_.num_fades + (machine_.machine ? 1 : 0));
}

bool Animator::blend_space_bound() const {
  return plays_blend_space() || (machine_.machine && spaces_ && !spaces_->spaces.empty());
}

int Animator::machine_layer_sources_bound() const {
  int sources = 0;
  for (const Layer& l : layers_)
    if (l.machine) sources += 1 + std::min(kMaxFades, l.machine->track.num_fades + 1);
  return sources;
}

MachineStatus Animator::machine_status() const {
  return status_of(machine_, main_);
}

Status Animator::set_trigger(const std::string& name, bool value) {
  if (name.empty()) return invalid_argument("set_trigger: name is empty");
  if (name.size() > kMaxMachineNameBytes)
    return invalid_argument("set_trigger: name is longer than " +
                            std::to_string(kMaxMachineNameBytes) + " bytes");
  int slot = find_trigger(name);
  if (slot < 0) {
    if (num_triggers_ == kMaxTriggers)
      return Status(StatusCode::kResourceExhausted,
                    "set_trigger '" + name + "': the character has " +
                        std::to_string(kMaxTriggers) + " triggers, the most it may have");
    slot = num_triggers_++;
    controls_.make().triggers[static_cast<size_t>(slot)] = Trigger{name, false};
  }
  controls_->triggers[static_cast<size_t>(slot)].set = value;
  return Status::ok();
}

Expected<bool> Animator::trigger(const std::string& name) const {
  const int slot = find_trigger(name);
  if (slot < 0) return not_found("trigger '" + name + "' is not set on this character");
  return controls_->triggers[static_cast<size_t>(slot)].set;
}

bool Animator::conditions_hold(const MachineDriver& driver, const MachineTransition& t) const {
  const StateMachine& m = *driver.machine;
  for (int k = 0; k < t.num_conditions; ++k) {
    const MachineCondition& c = m.conditions[static_cast<size_t>(t.first_condition + k)];
    if (c.op == ConditionOp::kTrigger) {
      if (!controls_->triggers[static_cast<size_t>(driver.triggers[static_cast<size_t>(c.slot)])]
               .set)
        return false;
      continue;
    }
    const float v =
        controls_->params[static_cast<size_t>(driver.params[static_cast<size_t>(c.slot)])].value;
    bool holds = false;
    switch (c.op) {
      case ConditionOp::kGreater:
        holds = v > c.value;
        break;
      case ConditionOp::kGreaterEqual:
        holds = v >= c.value;
        break;
      case ConditionOp::kLess:
        holds = v < c.value;
        break;
      case ConditionOp::kLessEqual:
        holds = v <= c.value;
        break;
      case ConditionOp::kEqual:
        holds = v == c.value;
        break;
      case ConditionOp::kNotEqual:
        holds = v != c.value;
        break;
      case ConditionOp::kTrue:
        holds = v != 0.0f;
        break;
      case ConditionOp::kFalse:
        holds = v == 0.0f;
        break;
      case ConditionOp::kTrigger:
        break;
    }
    if (!holds) return false;
  }
  return true;
}

void Animator::step_machine(MachineDriver& driver, Track& track) {
  if (!driver.machine) return;
  const StateMachine& m = *driver.machine;
  MachineRun& run = driver.run;
  if (track.num_fades == 0) run.transition = -1;
  if (run.transition >= 0 && !m.transitions[static_cast<size_t>(run.transition)].interruptible)
    return;
  const int begin = m.candidate_begin[static_cast<size_t>(run.state)];
  const int end = m.candidate_begin[static_cast<size_t>(run.state) + 1];
  for (int i = begin; i < end; ++i) {
    const int index = m.candidates[static_cast<size_t>(i)];
    const MachineTransition& t = m.transitions[static_cast<size_t>(index)];
    if (t.exit_time >= 0.0f && run.state_time < t.exit_time) continue;
    if (!conditions_hold(driver, t)) continue;
    for (int k = 0; k < t.num_conditions; ++k) {
      const MachineCondition& c = m.conditions[static_cast<size_t>(t.first_condition + k)];
      if (c.op == ConditionOp::kTrigger)
        controls_->triggers[static_cast<size_t>(driver.triggers[static_cast<size_t>(c.slot)])].set =
            false;
    }
    run.from = run.state;
    run.state = t.to;
    run.transition = t.duration > 0.0f ? index : -1;
    start_fade(track, driver.players[static_cast<size_t>(t.to)], t.duration,
               t.sync != TransitionSync::kNone, t.curve, t.sync == TransitionSync::kMarkers);
    const Player& now = track.latest();
    const float d = duration_of(now);
    run.state_time = d > 0.0f ? now.time / d : 0.0f;
    return;
  }
}

void Animator::track_machine_time(MachineDriver& driver, const Track& track) const {
  if (!driver.machine) return;
  const Player& p = track.latest();
  const float d = duration_of(p);
  if (d > 0.0f) driver.run.state_time += std::abs(p.advance) / d;
}

}  // namespace anim
