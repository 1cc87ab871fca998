#pragma once
// State machines: a character's base animation authored as data. States play a clip or a
// blend space; transitions between them fire on conditions over the character's parameters
// and triggers, after an optional exit time, and crossfade over a duration with a blend curve.
// docs/animation.md, "State machines", has the rules; the Animator runs them.
//
// A StateMachine is built once (make_state_machine checks everything and resolves names to
// indices) and is immutable: running it allocates nothing.
//
// Nested machines. A state plays a motion or holds a machine of its own (a sub-state
// machine), up to kMaxMachineDepth machines deep. make_state_machine flattens the nesting
// away; the StateMachine the Animator runs has only leaves:
// - Its states are the leaves (the states that play a motion), in depth-first order of the
//   description; a leaf's name is its path, the names from the outermost machine joined by
//   '/' ("Ground/walk"), so no state name contains '/'. At most kMaxMachineStates leaves.
// - Entering a state that holds a machine (as a transition's `to`, as its machine's entry,
//   or by its path in find_state) enters that machine's entry, down to a leaf.
// - A transition names states of the machine it is defined in (siblings). From a state that
//   holds a machine it fires from every leaf under that state, on conditions only (an exit
//   time is refused: the state has no time of its own). An any-state transition fires from
//   every leaf of its machine but the leaves under its `to`.
// - A leaf's candidates are tried level by level from the outermost machine in: at each
//   level, the transitions from the state on the leaf's path and that machine's any-state
//   ones, highest priority first, then in the order given.
// - The flat transitions (and MachineStatus::transition, which indexes them) are in the order
//   of a depth-first walk of the description: a machine's own transitions in the order
//   given, then those of the machines its states hold, in state order, each walked the same
//   way. At most kMaxMachineTransitions in all.
// - Parameters and triggers are those of every level together (the same limits, and a name
//   is a parameter or a trigger throughout).

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

inline constexpr int kMaxMachineStates = 64;          // leaves per machine, nested ones' included
inline constexpr int kMaxMachineTransitions = 256;    // transitions, nested machines' included
inline constexpr int kMaxMachineDepth = 4;            // machines in machines, the outermost counted
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

// A transition names states of the machine it is defined in.
struct TransitionDesc {
  std::string from;        // a state's name; empty with any_state
  bool any_state = false;  // fires from every state but `to` itself (its leaves, when nested)
  std::string to;          // a state's name
  // All must hold (an empty list holds). At most kMaxTransitionConditions.
  std::vector<ConditionDesc> conditions;
  // Normalized time of the current state (cycles since it was entered, not wrapped) from
  // which the transition may fire; < 0: none. A transition needs conditions or an exit time.
  // With a state that does not loop it must be at most 1 (its time stops there); from a
  // state that holds a machine, none.
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

struct StateDesc;  // below: a state may hold a StateMachineDesc

struct StateMachineDesc {
  // Non-empty, at most kMaxMachineNameBytes; a nested machine's: empty or its state's name.
  std::string name;
  std::string entry;                        // the state it starts in; empty: the first state
  std::vector<StateDesc> states;            // 1..kMaxMachineStates
  std::vector<TransitionDesc> transitions;  // 0..kMaxMachineTransitions
};

// A state plays a motion or holds a machine: exactly one of `motion` and `machine`.
struct StateDesc {
  // Non-empty, at most kMaxMachineNameBytes, unique in its machine, without '/'; a leaf's
  // path (the names from the outermost machine joined by '/') is at most kMaxMachineNameBytes.
  std::string name;
  std::string motion;  // a clip's name, or a blend space's (clips are looked up first)
  float speed = 1.0f;  // playback rate, finite (negative plays in reverse); 1 with a machine
  bool loop = true;    // false: holds the last frame; true with a machine
  // Empty, or the one machine the state holds; its `name` is empty or the state's.
  std::vector<StateMachineDesc> machine = {};
};

// A condition resolved: `slot` indexes StateMachine::parameters, or ::triggers for kTrigger.
struct MachineCondition {
  ConditionOp op = ConditionOp::kTrue;
  int slot = 0;
  float value = 0.0f;
};

// A leaf resolved: exactly one of clip and space is >= 0.
struct MachineState {
  std::string name;  // its path ("Ground/walk"; a state of the outermost machine: its name)
  int clip = -1;     // index into the asset's clips
  int space = -1;    // index into the asset's blend space table
  float speed = 1.0f;
  bool loop = true;
};

// A state that holds a machine, resolved.
struct MachineComposite {
  std::string name;    // its path ("Ground", "Ground/Air")
  int entry = 0;       // the leaf entering it enters: its machine's entry, down to a leaf
  int first_leaf = 0;  // the leaves under it: states[first_leaf, end_leaf)
  int end_leaf = 0;
};

// A transition resolved (leaves by index into StateMachine::states).
struct MachineTransition {
  int from = -1;  // the leaf it fires from; -1: any state, or a composite (from_composite)
  int from_composite = -1;  // the composite state it fires from (index into composites)
  int to = 0;               // the leaf it enters (a composite's entry leaf for a composite)
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
  int entry = 0;                             // the leaf it starts in
  std::vector<MachineState> states;          // the leaves, depth-first
  std::vector<MachineComposite> composites;  // the states that hold a machine, depth-first
  // In the order given; nested machines' after their parent's, depth-first (above).
  std::vector<MachineTransition> transitions;
  std::vector<MachineCondition> conditions;
  std::vector<std::string> parameters;  // the distinct parameters the conditions read
  std::vector<std::string> triggers;    // the distinct triggers they consume
  // The transitions to try from leaf s, in the order they are tried (level by level from
  // the outermost; at each, priority, then the order given; any-state ones included):
  // candidates[candidate_begin[s] .. candidate_begin[s + 1]) index `transitions`.
  std::vector<int> candidates;
  std::vector<int> candidate_begin;  // states.size() + 1 entries

  // The leaf with path `name`, or the leaf a composite state with that path enters (its
  // entry, down to a leaf); -1 when neither.
  int find_state(const std::string& name) const;
};

// Checks `desc` against the asset's clips (each state's clip must have `num_joints` joints
// and a positive duration) and blend spaces (`spaces` may be null: none), resolves it and
// flattens its nested machines (above). INVALID_ARGUMENT or NOT_FOUND naming the field (e.g.
// "transitions[2].to: no state named 'rnu'", "states[1].machine.transitions[0].to: ...") on
// any fault.
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
