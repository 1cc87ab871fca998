// make_state_machine: checks a state machine's description and resolves its names.
#include "anim/state_machine.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "anim/blend_space.h"
#include "anim/clip.h"

namespace anim {

namespace {

std::string num(float v) {
  return std::to_string(v);
}

Status check_name(const std::string& field, const std::string& name) {
  if (name.empty()) return invalid_argument(field + " is empty");
  if (name.size() > kMaxMachineNameBytes)
    return invalid_argument(field + " is longer than " + std::to_string(kMaxMachineNameBytes) +
                            " bytes");
  return Status::ok();
}

bool compares(ConditionOp op) {
  return op == ConditionOp::kGreater || op == ConditionOp::kGreaterEqual ||
         op == ConditionOp::kLess || op == ConditionOp::kLessEqual || op == ConditionOp::kEqual ||
         op == ConditionOp::kNotEqual;
}

// The index of `name` in `names`, appended when absent.
int intern(std::vector<std::string>& names, const std::string& name) {
  auto it = std::find(names.begin(), names.end(), name);
  if (it != names.end()) return static_cast<int>(it - names.begin());
  names.push_back(name);
  return static_cast<int>(names.size()) - 1;
}

Expected<MachineState> resolve_state(const StateDesc& s, const std::string& field,
                                     std::span<const Clip> clips, int num_joints,
                                     const BlendSpaceTable* spaces) {
  if (Status st = check_name(field + ".name", s.name); !st) return st;
  if (!std::isfinite(s.speed))
    return invalid_argument(field + ".speed: " + num(s.speed) + " is not finite");
  MachineState m{s.name, -1, -1, s.speed, s.loop};
  for (size_t c = 0; c < clips.size(); ++c)
    if (clips[c].name == s.motion) {
      m.clip = static_cast<int>(c);
      break;
    }
  if (m.clip >= 0) {
    const Clip& c = clips[static_cast<size_t>(m.clip)];
    if (static_cast<int>(c.joints.size()) != num_joints)
      return failed_precondition(field + ".motion: clip '" + c.name + "' has " +
                                 std::to_string(c.joints.size()) + " joints, not the skeleton's " +
                                 std::to_string(num_joints));
    if (!(c.duration > 0.0f))
      return invalid_argument(field + ".motion: clip '" + c.name + "' has no duration");
    return m;
  }
  m.space = spaces ? spaces->find(s.motion) : -1;
  if (m.space < 0)
    return not_found(field + ".motion: the asset has no clip or blend space named '" + s.motion +
                     "'");
  return m;
}

}  // namespace

int StateMachine::find_state(const std::string& state) const {
  for (size_t i = 0; i < states.size(); ++i)
    if (states[i].name == state) return static_cast<int>(i);
  return -1;
}

int StateMachineTable::find(const std::string& machine) const {
  for (size_t i = 0; i < machines.size(); ++i)
    if (machines[i]->name == machine) return static_cast<int>(i);
  return -1;
}

Expected<StateMachine> make_state_machine(const StateMachineDesc& desc, std::span<const Clip> clips,
                                          int num_joints, const BlendSpaceTable* spaces) {
  if (Status st = check_name("name", desc.name); !st) return st;
  if (desc.states.empty()) return invalid_argument("states: a machine needs at least one state");
  if (desc.states.size() > static_cast<size_t>(kMaxMachineStates))
    return invalid_argument("states: " + std::to_string(desc.states.size()) +
                            " states, more than " + std::to_string(kMaxMachineStates));
  if (desc.transitions.size() > static_cast<size_t>(kMaxMachineTransitions))
    return invalid_argument("transitions: " + std::to_string(desc.transitions.size()) +
                            " transitions, more than " + std::to_string(kMaxMachineTransitions));
  StateMachine m;
  m.name = desc.name;
  for (size_t i = 0; i < desc.states.size(); ++i) {
    const std::string field = "states[" + std::to_string(i) + "]";
    auto s = resolve_state(desc.states[i], field, clips, num_joints, spaces);
    if (!s) return s.error();
    if (m.find_state(s->name) >= 0)
      return invalid_argument(field + ".name: a state named '" + s->name + "' comes before it");
    m.states.push_back(std::move(*s));
  }
  m.entry = desc.entry.empty() ? 0 : m.find_state(desc.entry);
  if (m.entry < 0) return not_found("entry: no state named '" + desc.entry + "'");

  for (size_t i = 0; i < desc.transitions.size(); ++i) {
    const TransitionDesc& t = desc.transitions[i];
    const std::string field = "transitions[" + std::to_string(i) + "]";
    MachineTransition r;
    if (t.any_state) {
      if (!t.from.empty())
        return invalid_argument(field + ".from: '" + t.from +
                                "' given for an any-state transition");
    } else {
      r.from = m.find_state(t.from);
      if (r.from < 0) return not_found(field + ".from: no state named '" + t.from + "'");
    }
    r.to = m.find_state(t.to);
    if (r.to < 0) return not_found(field + ".to: no state named '" + t.to + "'");
    if (t.conditions.size() > static_cast<size_t>(kMaxTransitionConditions))
      return invalid_argument(field + ".conditions: " + std::to_string(t.conditions.size()) +
                              " conditions, more than " + std::to_string(kMaxTransitionConditions));
    if (!std::isfinite(t.exit_time))
      return invalid_argument(field + ".exit_time: " + num(t.exit_time) + " is not finite");
    r.exit_time = t.exit_time < 0.0f ? -1.0f : t.exit_time;
    if (t.conditions.empty() && r.exit_time < 0.0f)
      return invalid_argument(field + ": a transition needs a condition or an exit time");
    if (r.exit_time > 1.0f && r.from >= 0 && !m.states[static_cast<size_t>(r.from)].loop)
      return invalid_argument(
          field + ".exit_time: " + num(r.exit_time) + " is never reached: " + "state '" +
          m.states[static_cast<size_t>(r.from)].name + "' does not loop (its time stops at 1)");
    if (!std::isfinite(t.duration) || t.duration < 0.0f)
      return invalid_argument(field + ".duration: " + num(t.duration) + " must be finite and >= 0");
    r.duration = t.duration;
    r.curve = t.curve;
    if (static_cast<uint8_t>(t.sync) > static_cast<uint8_t>(TransitionSync::kMarkers))
      return invalid_argument(field + ".sync: unknown sync rule");
    if (static_cast<uint8_t>(t.curve) > static_cast<uint8_t>(BlendCurve::kSmoothStep))
      return invalid_argument(field + ".curve: unknown blend curve");
    r.sync = t.sync;
    r.priority = t.priority;
    r.interruptible = t.interruptible;
    r.first_condition = static_cast<int>(m.conditions.size());
    r.num_conditions = static_cast<int>(t.conditions.size());
    for (size_t k = 0; k < t.conditions.size(); ++k) {
      const ConditionDesc& c = t.conditions[k];
      const std::string cf = field + ".conditions[" + std::to_string(k) + "]";
      if (Status st = check_name(cf + ".parameter", c.parameter); !st) return st;
      if (static_cast<uint8_t>(c.op) > static_cast<uint8_t>(ConditionOp::kTrigger))
        return invalid_argument(cf + ".op: unknown operator");
      if (compares(c.op) && !std::isfinite(c.value))
        return invalid_argument(cf + ".value: " + num(c.value) + " is not finite");
      MachineCondition mc{c.op, 0, compares(c.op) ? c.value : 0.0f};
      if (c.op == ConditionOp::kTrigger) {
        if (std::find(m.parameters.begin(), m.parameters.end(), c.parameter) != m.parameters.end())
          return invalid_argument(cf + ".parameter: '" + c.parameter +
                                  "' is a parameter elsewhere in the machine, not a trigger");
        mc.slot = intern(m.triggers, c.parameter);
        if (m.triggers.size() > static_cast<size_t>(kMaxTriggers))
          return invalid_argument(cf + ".parameter: the machine tests more than " +
                                  std::to_string(kMaxTriggers) + " triggers");
      } else {
        if (std::find(m.triggers.begin(), m.triggers.end(), c.parameter) != m.triggers.end())
          return invalid_argument(cf + ".parameter: '" + c.parameter +
                                  "' is a trigger elsewhere in the machine, not a parameter");
        mc.slot = intern(m.parameters, c.parameter);
        if (m.parameters.size() > static_cast<size_t>(kMaxMachineParameters))
          return invalid_argument(cf + ".parameter: the machine reads more than " +
                                  std::to_string(kMaxMachineParameters) + " parameters");
      }
      m.conditions.push_back(mc);
    }
    m.transitions.push_back(r);
  }

  // Candidates per state: its own and the any-state transitions (but those to itself),
  // highest priority first, then in the order given.
  m.candidate_begin.push_back(0);
  for (int s = 0; s < static_cast<int>(m.states.size()); ++s) {
    std::vector<int> mine;
    for (int i = 0; i < static_cast<int>(m.transitions.size()); ++i) {
      const MachineTransition& t = m.transitions[static_cast<size_t>(i)];
      if (t.from == s || (t.from < 0 && t.to != s)) mine.push_back(i);
    }
    std::stable_sort(mine.begin(), mine.end(), [&](int a, int b) {
      return m.transitions[static_cast<size_t>(a)].priority >
             m.transitions[static_cast<size_t>(b)].priority;
    });
    m.candidates.insert(m.candidates.end(), mine.begin(), mine.end());
    m.candidate_begin.push_back(static_cast<int>(m.candidates.size()));
  }
  return m;
}

}  // namespace anim
