#pragma once
// State machines: a character's base animation authored as data. States play a clip or a
// blend space; transitions between them fire on conditions over the character's parameters
// and triggers, after an optional exit time, and crossfade over a duration with a blend curve.
// docs/animation.md, "State machines", has the rules; the Animator runs them.
//
// A StateMachine is built once (make_state_machine checks everything and resolves names to
// indices) and is immutable: running it allocates nothing.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "anim/animator_options.h"
#include "anim/status.h"

namespace anim {

class Clip;
struct BlendSpaceTable;

inline constexpr int kMaxMachineStates = 64;          // states per machine
inline constexpr int kMaxMachineTransitions = 256;    // transitions per machine
inline constexpr int kMaxTransitionConditions = 8;    // conditions per transition
inline constexpr int kMaxMachineParameters = 16;      // distinct parameters a machine reads
inline constexpr int kMaxTriggers = 16;               // triggers per character (and machine)
inline constexpr int kMaxStateMachinesPerAsset = 64;  // definitions per asset (the daemon's)
inline constexpr size_t kMaxMachineNameBytes = 256;   // machine, state, parameter names

// How a condition tests its parameter (a named parameter, Animator::set_parameter) or trigger.
enum class ConditionOp : uint8_t {
  kGreater,       // parameter > value
  kGreaterEqual,  // parameter >= value
  kLess,          // parameter < value
  kLessEqual,     // parameter <= value
  kEqual,         // parameter == value
  kNotEqual,      // parameter != value
  kTrue,          // parameter != 0 (a bool set as 1 or 0)
  kFalse,         // parameter == 0
  kTrigger,       // the trigger is set (Animator::set_trigger); firing consumes it
};

struct ConditionDesc {
  std::string parameter;  // a parameter's name, or a trigger's for kTrigger
  ConditionOp op = ConditionOp::kTrue;
  float value = 0.0f;  // finite; compared against by the first six ops, unused by the rest
};

// How a transition's target starts and runs while it fades in.
enum class TransitionSync : uint8_t {
  kNone,        // the target starts at time 0 on its own clock
  kNormalized,  // it starts at, and follows while fading, the normalized time of the state
                // it fades from (CrossfadeOptions::sync_normalized_time)
  kMarkers,     // as kNormalized by foot markers (CrossfadeOptions::sync_markers)
};

struct StateDesc {
  std::string name;    // non-empty, at most kMaxMachineNameBytes, unique in the machine
  std::string motion;  // a clip's name, or a blend space's (clips are looked up first)
  float speed = 1.0f;  // playback rate, finite (negative plays in reverse)
  bool loop = true;    // false: holds the last frame
};

struct TransitionDesc {
  std::string from;        // a state's name; empty with any_state
  bool any_state = false;  // fires from every state but `to` itself
  std::string to;          // a state's name
  // All must hold (an empty list holds). At most kMaxTransitionConditions.
  std::vector<ConditionDesc> conditions;
  // Normalized time of the current state (cycles since it was entered, not wrapped) from
  // which the transition may fire; < 0: none. A transition needs conditions or an exit time.
  // With a state that does not loop it must be at most 1 (its time stops there).
  float exit_time = -1.0f;
  float duration = 0.0f;  // seconds of fade, finite, >= 0 (0: a cut)
  BlendCurve curve = BlendCurve::kLinear;
  TransitionSync sync = TransitionSync::kNone;
  // Among the transitions that can fire in one update the highest priority wins; equal
  // priorities go in the order given.
  int priority = 0;
  // While it fades: true lets the target's own transitions and the any-state ones start (a
  // new fade over it); false holds the machine until it completes.
  bool interruptible = false;
};

struct StateMachineDesc {
  std::string name;                         // non-empty, at most kMaxMachineNameBytes
  std::string entry;                        // the state it starts in; empty: the first state
  std::vector<StateDesc> states;            // 1..kMaxMachineStates
  std::vector<TransitionDesc> transitions;  // 0..kMaxMachineTransitions
};

// A condition resolved: `slot` indexes StateMachine::parameters, or ::triggers for kTrigger.
struct MachineCondition {
  ConditionOp op = ConditionOp::kTrue;
  int slot = 0;
  float value = 0.0f;
};

// A state resolved: exactly one of clip and space is >= 0.
struct MachineState {
  std::string name;
  int clip = -1;   // index into the asset's clips
  int space = -1;  // index into the asset's blend space table
  float speed = 1.0f;
  bool loop = true;
};

// A transition resolved (states by index; from -1: any state).
struct MachineTransition {
  int from = -1;
  int to = 0;
  int first_condition = 0;  // its conditions: StateMachine::conditions[first, first + count)
  int num_conditions = 0;
  float exit_time = -1.0f;
  float duration = 0.0f;
  BlendCurve curve = BlendCurve::kLinear;
  TransitionSync sync = TransitionSync::kNone;
  int priority = 0;
  bool interruptible = false;
};

struct StateMachine {
  std::string name;
  int entry = 0;
  std::vector<MachineState> states;
  std::vector<MachineTransition> transitions;  // in the order given
  std::vector<MachineCondition> conditions;
  std::vector<std::string> parameters;  // the distinct parameters the conditions read
  std::vector<std::string> triggers;    // the distinct triggers they consume
  // The transitions to try from state s, in the order they are tried (priority, then the
  // order given; any-state ones included): candidates[candidate_begin[s] ..
  // candidate_begin[s + 1]) index `transitions`.
  std::vector<int> candidates;
  std::vector<int> candidate_begin;  // states.size() + 1 entries

  int find_state(const std::string& name) const;  // -1 when absent
};

// Checks `desc` against the asset's clips (each state's clip must have `num_joints` joints
// and a positive duration) and blend spaces (`spaces` may be null: none) and resolves it.
// INVALID_ARGUMENT or NOT_FOUND naming the field (e.g. "transitions[2].to: no state named
// 'rnu'") on any fault.
Expected<StateMachine> make_state_machine(const StateMachineDesc& desc, std::span<const Clip> clips,
                                          int num_joints, const BlendSpaceTable* spaces);

// The state machines defined for one asset, in the order defined (the daemon's table).
struct StateMachineTable {
  std::vector<std::shared_ptr<const StateMachine>> machines;
  int find(const std::string& name) const;  // -1 when absent
};

// Where a character's machine is after the last update (Animator::machine_status).
struct MachineStatus {
  bool running = false;
  int state = -1;           // index into the machine's states (the target while fading)
  float state_time = 0.0f;  // normalized time in it: cycles since it was entered, not wrapped
  int transition = -1;      // the transition fading in (index into transitions), -1: none
  int from_state = -1;      // the state it fades from (-1 when none)
  float transition_elapsed = 0.0f;   // seconds of fade so far
  float transition_duration = 0.0f;  // seconds
};

}  // namespace anim
