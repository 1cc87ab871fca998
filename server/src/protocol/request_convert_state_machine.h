#pragma once
// The converters for state machines (state_machine.proto): define_state_machine,
// start_state_machine, set_trigger, and the `.animgraph.json` file (a StateMachineFile in
// protobuf's JSON form) the daemon reads beside an asset at start-up. The form is checked here
// with the field's name in the error (lists within their caps, numbers finite, enums known, the
// names start_state_machine and set_trigger give); a definition's names, states, clips and
// blend spaces are anim::make_state_machine's to check, machines and characters the World's.

#include <string>
#include <string_view>
#include <vector>

#include "anim/state_machine.h"
#include "anim/status.h"
#include "anim/v1/state_machine.pb.h"
#include "world/world_requests.h"

namespace animd {

// A StateMachineDef as the core's description, its fields named after `field` in errors
// ("define_state_machine.machine.states[1].speed is NaN"). `from: "*"` is an any-state
// transition; unset speed, loop and exit_time are 1, true and none.
anim::Expected<anim::StateMachineDesc> state_machine_from_proto(
    const anim::v1::StateMachineDef& def, std::string_view field);

anim::Expected<WorldRequest> define_state_machine_request(
    const anim::v1::DefineStateMachineRequest& r);
anim::Expected<WorldRequest> start_state_machine_request(
    const anim::v1::StartStateMachineRequest& r);
anim::Expected<WorldRequest> set_trigger_request(const anim::v1::SetTriggerRequest& r);

// The most bytes an `.animgraph.json` file may hold (64 machines at their caps fit).
inline constexpr size_t kMaxStateMachineFileBytes = size_t{16} << 20;

// The machines of an `.animgraph.json` file's text, converted as define_state_machine's
// (machine i named `state_machines[i]` in errors), at most anim::kMaxStateMachinesPerAsset.
// INVALID_ARGUMENT saying what is wrong: JSON syntax (with its line and column), an unknown
// field or a bad value (with its path), or a machine's form.
anim::Expected<std::vector<anim::StateMachineDesc>> state_machine_file_from_json(
    std::string_view json);

}  // namespace animd
