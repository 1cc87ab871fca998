// make_state_machine: checks a state machine's description, resolves its names and flattens
// its nested machines (anim/state_machine.h has the rules).
#include "anim/state_machine.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <utility>

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

// One machine of the description while it is flattened. Levels are numbered in the order a
// depth-first walk meets them (the outermost is 0), the order of the flat transitions.
struct Level {
  const StateMachineDesc* desc = nullptr;
  std::string field;           // its fields' prefix in errors: "", "states[1].machine.", ...
  std::string path;            // its states' path prefix: "", "Ground/", ...
  std::vector<int> leaf;       // per state: its leaf (index into states), -1: holds a machine
  std::vector<int> composite;  // per state: its index into composites, -1: plays a motion
  int entry = 0;               // the leaf entering the machine enters
};

// Where a flat transition was defined: its level, and the states of that level it names
// (from -1: any state).
struct Origin {
  int level = 0;
  int from = -1;
  int to = 0;
};

struct Flattening {
  std::span<const Clip> clips;
  int num_joints = 0;
  const BlendSpaceTable* spaces = nullptr;
  StateMachine m;
  std::vector<Level> levels;
  // Per leaf: the (level, state) pairs from the outermost machine down to it.
  std::vector<std::vector<std::pair<int, int>>> routes;
  std::vector<Origin> origins;  // per flat transition
};

// Adds machine `d` (its fields named after `field`, its states' paths after `path`) as a new
// level, `depth` machines deep, and the machines its states hold after it, depth-first.
// `route` leads to it and is as it was on return.
Status add_level(Flattening& f, const StateMachineDesc& d, const std::string& field,
                 const std::string& path, int depth, std::vector<std::pair<int, int>>& route) {
  if (d.states.empty())
    return invalid_argument(field + "states: a machine needs at least one state");
  if (d.states.size() > static_cast<size_t>(kMaxMachineStates))
    return invalid_argument(field + "states: " + std::to_string(d.states.size()) +
                            " states, more than " + std::to_string(kMaxMachineStates));
  if (d.transitions.size() > static_cast<size_t>(kMaxMachineTransitions))
    return invalid_argument(field + "transitions: " + std::to_string(d.transitions.size()) +
                            " transitions, more than " + std::to_string(kMaxMachineTransitions));
  const int self = static_cast<int>(f.levels.size());
  f.levels.push_back(Level{&d, field, path, {}, {}, 0});
  for (size_t i = 0; i < d.states.size(); ++i) {
    const StateDesc& s = d.states[i];
    const std::string sf = field + "states[" + std::to_string(i) + "]";
    if (Status st = check_name(sf + ".name", s.name); !st) return st;
    if (s.name.find('/') != std::string::npos)
      return invalid_argument(sf + ".name: '" + s.name +
                              "' contains '/', which joins the names of a nested state's path");
    for (size_t k = 0; k < i; ++k)
      if (d.states[k].name == s.name)
        return invalid_argument(sf + ".name: a state named '" + s.name + "' comes before it");
    if (s.machine.size() > 1)
      return invalid_argument(sf + ".machine: " + std::to_string(s.machine.size()) +
                              " machines; a state holds at most one");
    if (!s.machine.empty() && !s.motion.empty())
      return invalid_argument(sf + ".machine: the state also plays motion '" + s.motion +
                              "' (a state plays a motion or holds a machine, not both)");
    if (s.machine.empty() && s.motion.empty())
      return invalid_argument(sf +
                              ".motion is empty and the state holds no machine (a state plays a "
                              "clip or a blend space, or holds a machine)");
    const std::string full = path + s.name;
    route.emplace_back(self, static_cast<int>(i));
    if (s.machine.empty()) {
      if (full.size() > kMaxMachineNameBytes)
        return invalid_argument(sf + ".name: the state's path '" + full + "' is longer than " +
                                std::to_string(kMaxMachineNameBytes) + " bytes");
      if (f.m.states.size() == static_cast<size_t>(kMaxMachineStates))
        return invalid_argument(sf + ": more than " + std::to_string(kMaxMachineStates) +
                                " states play a motion in the machine (nested machines' included)");
      auto r = resolve_state(s, sf, f.clips, f.num_joints, f.spaces);
      if (!r) return r.error();
      r->name = full;
      f.levels[static_cast<size_t>(self)].leaf.push_back(static_cast<int>(f.m.states.size()));
      f.levels[static_cast<size_t>(self)].composite.push_back(-1);
      f.m.states.push_back(std::move(*r));
      f.routes.push_back(route);
    } else {
      if (s.speed != 1.0f)
        return invalid_argument(sf + ".speed: " + num(s.speed) + " on state '" + s.name +
                                "', which holds a machine (its states have their own speeds)");
      if (!s.loop)
        return invalid_argument(sf + ".loop: false on state '" + s.name +
                                "', which holds a machine (its states loop or not on their own)");
      const StateMachineDesc& inner = s.machine.front();
      if (!inner.name.empty() && inner.name != s.name)
        return invalid_argument(sf + ".machine.name: '" + inner.name +
                                "' is not its state's name '" + s.name +
                                "' (a nested machine is its state's: leave it empty)");
      if (depth >= kMaxMachineDepth)
        return invalid_argument(sf + ".machine: machines nest more than " +
                                std::to_string(kMaxMachineDepth) + " deep");
      const int c = static_cast<int>(f.m.composites.size());
      const int first = static_cast<int>(f.m.states.size());
      f.m.composites.push_back(MachineComposite{full, first, first, first});
      f.levels[static_cast<size_t>(self)].leaf.push_back(-1);
      f.levels[static_cast<size_t>(self)].composite.push_back(c);
      const size_t child = f.levels.size();
      if (Status st = add_level(f, inner, sf + ".machine.", full + "/", depth + 1, route); !st)
        return st;
      MachineComposite& mc = f.m.composites[static_cast<size_t>(c)];
      mc.end_leaf = static_cast<int>(f.m.states.size());
      mc.entry = f.levels[child].entry;
    }
    route.pop_back();
  }
  Level& level = f.levels[static_cast<size_t>(self)];
  int entry = 0;
  if (!d.entry.empty()) {
    entry = -1;
    for (size_t i = 0; i < d.states.size() && entry < 0; ++i)
      if (d.states[i].name == d.entry) entry = static_cast<int>(i);
    if (entry < 0) return not_found(field + "entry: no state named '" + d.entry + "'");
  }
  const auto e = static_cast<size_t>(entry);
  level.entry = level.leaf[e] >= 0 ? level.leaf[e]
                                   : f.m.composites[static_cast<size_t>(level.composite[e])].entry;
  return Status::ok();
}

// Resolves the transitions of level `index` onto the flat list.
Status add_transitions(Flattening& f, int index) {
  const Level& level = f.levels[static_cast<size_t>(index)];
  const StateMachineDesc& d = *level.desc;
  StateMachine& m = f.m;
  auto find = [&](const std::string& name) {
    for (size_t i = 0; i < d.states.size(); ++i)
      if (d.states[i].name == name) return static_cast<int>(i);
    return -1;
  };
  for (size_t i = 0; i < d.transitions.size(); ++i) {
    const TransitionDesc& t = d.transitions[i];
    const std::string field = level.field + "transitions[" + std::to_string(i) + "]";
    if (m.transitions.size() == static_cast<size_t>(kMaxMachineTransitions))
      return invalid_argument(field + ": more than " + std::to_string(kMaxMachineTransitions) +
                              " transitions in the machine (nested machines' included)");
    MachineTransition r;
    Origin o{index, -1, 0};
    if (t.any_state) {
      if (!t.from.empty())
        return invalid_argument(field + ".from: '" + t.from +
                                "' given for an any-state transition");
    } else {
      o.from = find(t.from);
      if (o.from < 0) return not_found(field + ".from: no state named '" + t.from + "'");
      r.from = level.leaf[static_cast<size_t>(o.from)];
      r.from_composite = level.composite[static_cast<size_t>(o.from)];
    }
    o.to = find(t.to);
    if (o.to < 0) return not_found(field + ".to: no state named '" + t.to + "'");
    const auto to = static_cast<size_t>(o.to);
    r.to = level.leaf[to] >= 0 ? level.leaf[to]
                               : m.composites[static_cast<size_t>(level.composite[to])].entry;
    if (t.conditions.size() > static_cast<size_t>(kMaxTransitionConditions))
      return invalid_argument(field + ".conditions: " + std::to_string(t.conditions.size()) +
                              " conditions, more than " + std::to_string(kMaxTransitionConditions));
    if (!std::isfinite(t.exit_time))
      return invalid_argument(field + ".exit_time: " + num(t.exit_time) + " is not finite");
    r.exit_time = t.exit_time < 0.0f ? -1.0f : t.exit_time;
    if (r.exit_time >= 0.0f && r.from_composite >= 0)
      return invalid_argument(field + ".exit_time: state '" + t.from +
                              "' holds a machine; its transitions fire on conditions only");
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
    f.origins.push_back(o);
  }
  return Status::ok();
}

}  // namespace

int StateMachine::find_state(const std::string& state) const {
  for (size_t i = 0; i < states.size(); ++i)
    if (states[i].name == state) return static_cast<int>(i);
  for (const MachineComposite& c : composites)
    if (c.name == state) return c.entry;
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
  Flattening f{clips, num_joints, spaces, {}, {}, {}, {}};
  f.m.name = desc.name;
  std::vector<std::pair<int, int>> route;
  if (Status st = add_level(f, desc, "", "", 1, route); !st) return st;
  f.m.entry = f.levels[0].entry;
  // Depth-first: the levels were numbered in the order the walk meets them.
  for (size_t level = 0; level < f.levels.size(); ++level)
    if (Status st = add_transitions(f, static_cast<int>(level)); !st) return st;

  // Candidates per leaf, level by level from the outermost: at each, the transitions from
  // the state on its route and the level's any-state ones (but those into that state),
  // highest priority first, then in the order given.
  StateMachine& m = f.m;
  m.candidate_begin.push_back(0);
  for (size_t s = 0; s < m.states.size(); ++s) {
    for (const auto& [level, state] : f.routes[s]) {
      std::vector<int> mine;
      for (int i = 0; i < static_cast<int>(m.transitions.size()); ++i) {
        const Origin& o = f.origins[static_cast<size_t>(i)];
        if (o.level == level && (o.from == state || (o.from < 0 && o.to != state)))
          mine.push_back(i);
      }
      std::stable_sort(mine.begin(), mine.end(), [&](int a, int b) {
        return m.transitions[static_cast<size_t>(a)].priority >
               m.transitions[static_cast<size_t>(b)].priority;
      });
      m.candidates.insert(m.candidates.end(), mine.begin(), mine.end());
    }
    m.candidate_begin.push_back(static_cast<int>(m.candidates.size()));
  }
  return std::move(f.m);
}

}  // namespace anim
