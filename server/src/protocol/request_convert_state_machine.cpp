// State machine converters (request_convert_state_machine.h).
#include "protocol/request_convert_state_machine.h"

#include <cmath>
#include <utility>

#include "animjson/json_message.h"
#include "protocol/proto_convert.h"
#include "protocol/request_convert_caps.h"

namespace animd {

namespace {

using Converted = anim::Expected<WorldRequest>;

// The wire's any-state `from`, which no state may be named.
constexpr std::string_view kAnyState = "*";

anim::Status check_name(const std::string& name, const std::string& field, bool may_be_empty) {
  if (name.empty() && !may_be_empty) return anim::invalid_argument(field + " is empty");
  if (name.size() > anim::kMaxMachineNameBytes)
    return anim::invalid_argument(field + " is longer than " +
                                  std::to_string(anim::kMaxMachineNameBytes) + " bytes");
  return {};
}

anim::Status unknown_value(const std::string& field, int value, const char* known) {
  return anim::invalid_argument(field + " has an unknown value " + std::to_string(value) + " (" +
                                known + ")");
}

anim::Expected<anim::ConditionOp> op_from_proto(anim::v1::ConditionOp op,
                                                const std::string& field) {
  switch (op) {
    case anim::v1::CONDITION_UNSPECIFIED:
      return anim::invalid_argument(field +
                                    " is unset (CONDITION_GREATER = 1 .. CONDITION_TRIGGER = 9)");
    case anim::v1::CONDITION_GREATER:
      return anim::ConditionOp::kGreater;
    case anim::v1::CONDITION_GREATER_EQUAL:
      return anim::ConditionOp::kGreaterEqual;
    case anim::v1::CONDITION_LESS:
      return anim::ConditionOp::kLess;
    case anim::v1::CONDITION_LESS_EQUAL:
      return anim::ConditionOp::kLessEqual;
    case anim::v1::CONDITION_EQUAL:
      return anim::ConditionOp::kEqual;
    case anim::v1::CONDITION_NOT_EQUAL:
      return anim::ConditionOp::kNotEqual;
    case anim::v1::CONDITION_TRUE:
      return anim::ConditionOp::kTrue;
    case anim::v1::CONDITION_FALSE:
      return anim::ConditionOp::kFalse;
    case anim::v1::CONDITION_TRIGGER:
      return anim::ConditionOp::kTrigger;
    default:
      return unknown_value(field, op, "CONDITION_GREATER = 1 .. CONDITION_TRIGGER = 9");
  }
}

anim::Expected<anim::TransitionDesc> transition_from_proto(const anim::v1::MachineTransitionDef& t,
                                                           const std::string& field) {
  anim::TransitionDesc out;
  if (t.from() == kAnyState) {
    out.any_state = true;
  } else {
    out.from = t.from();
  }
  out.to = t.to();
  out.conditions.reserve(static_cast<size_t>(t.conditions_size()));
  for (int k = 0; k < t.conditions_size(); ++k) {
    const auto& c = t.conditions(k);
    const std::string cf = field + ".conditions[" + std::to_string(k) + "]";
    auto op = op_from_proto(c.op(), cf + ".op");
    if (!op) return op.error();
    if (auto s = check_finite(c.value(), cf + ".value"); !s) return s;
    out.conditions.push_back(anim::ConditionDesc{c.parameter(), *op, c.value()});
  }
  if (t.has_exit_time()) {
    if (auto s = check_finite(t.exit_time(), field + ".exit_time"); !s) return s;
    if (t.exit_time() < 0.0f)
      return anim::invalid_argument(field + ".exit_time is negative (unset: no exit time)");
    out.exit_time = t.exit_time();
  }
  if (auto s = check_finite(t.duration(), field + ".duration"); !s) return s;
  if (t.duration() < 0.0f) return anim::invalid_argument(field + ".duration is negative");
  out.duration = t.duration();
  switch (t.curve()) {
    case anim::v1::BLEND_CURVE_LINEAR:
      out.curve = anim::BlendCurve::kLinear;
      break;
    case anim::v1::BLEND_CURVE_SMOOTH_STEP:
      out.curve = anim::BlendCurve::kSmoothStep;
      break;
    default:
      return unknown_value(field + ".curve", t.curve(),
                           "BLEND_CURVE_LINEAR = 0, BLEND_CURVE_SMOOTH_STEP = 1");
  }
  switch (t.sync()) {
    case anim::v1::TRANSITION_SYNC_NONE:
      out.sync = anim::TransitionSync::kNone;
      break;
    case anim::v1::TRANSITION_SYNC_NORMALIZED:
      out.sync = anim::TransitionSync::kNormalized;
      break;
    case anim::v1::TRANSITION_SYNC_MARKERS:
      out.sync = anim::TransitionSync::kMarkers;
      break;
    default:
      return unknown_value(field + ".sync", t.sync(),
                           "TRANSITION_SYNC_NONE = 0 .. TRANSITION_SYNC_MARKERS = 2");
  }
  out.priority = t.priority();
  out.interruptible = t.interruptible();
  return out;
}

// Machine `def` (`field` in errors) and the machines its states hold, within their caps and
// depth (check_state_machine_caps).
anim::Expected<anim::StateMachineDesc> machine_from_proto(const anim::v1::StateMachineDef& def,
                                                          const std::string& field) {
  anim::StateMachineDesc out;
  out.name = def.name();
  out.entry = def.entry();
  out.states.reserve(static_cast<size_t>(def.states_size()));
  for (int i = 0; i < def.states_size(); ++i) {
    const auto& s = def.states(i);
    const std::string sf = field + ".states[" + std::to_string(i) + "]";
    if (s.name() == kAnyState)
      return anim::invalid_argument(sf +
                                    ".name '*' is reserved (a transition's `from` for any "
                                    "state)");
    anim::StateDesc d;
    d.name = s.name();
    d.motion = s.motion();
    if (s.has_speed()) {
      if (auto st = check_finite(s.speed(), sf + ".speed"); !st) return st;
      d.speed = s.speed();
    }
    d.loop = s.has_loop() ? s.loop() : true;
    if (s.has_machine()) {
      auto inner = machine_from_proto(s.machine(), sf + ".machine");
      if (!inner) return inner.error();
      d.machine.push_back(std::move(*inner));
    }
    out.states.push_back(std::move(d));
  }
  out.transitions.reserve(static_cast<size_t>(def.transitions_size()));
  for (int i = 0; i < def.transitions_size(); ++i) {
    auto t = transition_from_proto(def.transitions(i),
                                   field + ".transitions[" + std::to_string(i) + "]");
    if (!t) return t.error();
    out.transitions.push_back(std::move(*t));
  }
  return out;
}

}  // namespace

anim::Expected<anim::StateMachineDesc> state_machine_from_proto(
    const anim::v1::StateMachineDef& def, std::string_view field_name) {
  // Within their caps and depth before any list is read (check_repeated_field_caps did so for
  // a request; a file's machine comes here unchecked).
  if (auto s = check_state_machine_caps(def, field_name); !s) return s;
  return machine_from_proto(def, std::string(field_name));
}

Converted define_state_machine_request(const anim::v1::DefineStateMachineRequest& r) {
  auto machine = state_machine_from_proto(r.machine(), "define_state_machine.machine");
  if (!machine) return machine.error();
  return WorldRequest(DefineStateMachine{r.asset(), std::move(*machine)});
}

Converted start_state_machine_request(const anim::v1::StartStateMachineRequest& r) {
  if (auto s = check_name(r.machine(), "start_state_machine.machine", false); !s) return s;
  if (auto s = check_name(r.state(), "start_state_machine.state", true); !s) return s;
  return WorldRequest(StartStateMachine{r.character_id(), r.machine(), r.state()});
}

Converted set_trigger_request(const anim::v1::SetTriggerRequest& r) {
  if (auto s = check_name(r.name(), "set_trigger.name", false); !s) return s;
  return WorldRequest(SetTrigger{r.character_id(), r.name(), !r.clear()});
}

anim::Expected<std::vector<anim::StateMachineDesc>> state_machine_file_from_json(
    std::string_view json) {
  if (json.size() > kMaxStateMachineFileBytes)
    return anim::invalid_argument("the file has " + std::to_string(json.size()) +
                                  " bytes, more than " + std::to_string(kMaxStateMachineFileBytes));
  anim::v1::StateMachineFile file;
  if (std::string error = animjson::parse_json_message(json, file); !error.empty())
    return anim::invalid_argument(error);
  if (file.state_machines_size() > anim::kMaxStateMachinesPerAsset)
    return anim::invalid_argument(
        "state_machines has " + std::to_string(file.state_machines_size()) +
        " machines, more than " + std::to_string(anim::kMaxStateMachinesPerAsset) +
        " (an asset's limit)");
  std::vector<anim::StateMachineDesc> out;
  out.reserve(static_cast<size_t>(file.state_machines_size()));
  for (int i = 0; i < file.state_machines_size(); ++i) {
    auto m = state_machine_from_proto(file.state_machines(i),
                                      "state_machines[" + std::to_string(i) + "]");
    if (!m) return m.error();
    out.push_back(std::move(*m));
  }
  return out;
}

}  // namespace animd
