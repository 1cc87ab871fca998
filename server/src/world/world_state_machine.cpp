// The World's state machine handlers (docs/animation.md, "State machines"): each asset has a
// table of machines that only grows (define_state_machine, `.animgraph.json` files at
// start-up); a character runs one of its asset's machines on its base. Every handler checks
// first and changes nothing on error.
#include "world/world.h"

namespace animd {

anim::Status World::define_state_machines(const AssetPtr& asset,
                                          const std::vector<anim::StateMachineDesc>& machines,
                                          const std::function<std::string(size_t)>& field) {
  auto current = machine_tables_.find(asset.get());
  const anim::StateMachineTable* have =
      current != machine_tables_.end() ? current->second.get() : nullptr;
  const size_t count = have ? have->machines.size() : 0;
  const auto spaces = blend_tables_.find(asset.get());
  const anim::BlendSpaceTable* space_table =
      spaces != blend_tables_.end() ? spaces->second.get() : nullptr;
  std::vector<std::shared_ptr<const anim::StateMachine>> made;
  made.reserve(machines.size());
  for (size_t i = 0; i < machines.size(); ++i) {
    const anim::StateMachineDesc& d = machines[i];
    const std::string f = field(i);
    if (count + i >= static_cast<size_t>(anim::kMaxStateMachinesPerAsset))
      return anim::Status(anim::StatusCode::kResourceExhausted,
                          f + ": asset '" + asset->name + "' has " + std::to_string(count + i) +
                              " state machines, the most it may have");
    if (have && have->find(d.name) >= 0)
      return anim::failed_precondition(f + ".name: asset '" + asset->name +
                                       "' already has a state machine named '" + d.name +
                                       "' (definitions are immutable: choose another name)");
    for (size_t k = 0; k < i; ++k)
      if (machines[k].name == d.name)
        return anim::failed_precondition(f + ".name: " + field(k) + " is named '" + d.name +
                                         "' too");
    auto m = anim::make_state_machine(d, asset->clips, asset->skeleton.num_joints(), space_table);
    if (!m) return anim::Status(m.error().code(), f + "." + m.error().message());
    made.push_back(std::make_shared<const anim::StateMachine>(std::move(*m)));
  }
  // Every machine checked: the new table is the old one's machines (the same objects, which
  // characters may be running) followed by these.
  auto next = std::make_shared<anim::StateMachineTable>();
  if (have) next->machines = have->machines;
  next->machines.insert(next->machines.end(), made.begin(), made.end());
  machine_tables_[asset.get()] = std::move(next);
  return {};
}

anim::Status World::add_state_machines(const std::string& asset,
                                       const std::vector<anim::StateMachineDesc>& machines) {
  auto it = assets_.find(asset);
  if (it == assets_.end()) return anim::not_found("unknown asset '" + asset + "'");
  return define_state_machines(
      it->second, machines, [](size_t i) { return "state_machines[" + std::to_string(i) + "]"; });
}

anim::Status World::handle(const DefineStateMachine& r, const CommandContext& ctx) {
  auto found = find_usable_asset(r.asset, "define_state_machine.asset", ctx.owner);
  if (!found) return found.error();
  // One machine (a copy: the request is const and small next to what a tick does).
  return define_state_machines((*found)->second, {r.machine},
                               [](size_t) { return std::string("define_state_machine.machine"); });
}

anim::Status World::handle(const StartStateMachine& r, const CommandContext& ctx) {
  auto c = find_controlled(r.character, "start_state_machine.character_id", ctx.owner);
  if (!c) return c.error();
  const Character& ch = **c;
  auto t = machine_tables_.find(ch.asset.get());
  const int index = t != machine_tables_.end() ? t->second->find(r.machine) : -1;
  if (index < 0)
    return anim::not_found("start_state_machine.machine: asset '" + ch.asset->name +
                           "' has no state machine named '" + r.machine + "'");
  return (*c)->animator.start_state_machine(t->second->machines[static_cast<size_t>(index)],
                                            r.state);
}

anim::Status World::handle(const StopStateMachine& r, const CommandContext& ctx) {
  auto c = find_controlled(r.character, "stop_state_machine.character_id", ctx.owner);
  if (!c) return c.error();
  (*c)->animator.stop_state_machine();
  return {};
}

anim::Status World::handle(const SetTrigger& r, const CommandContext& ctx) {
  auto c = find_controlled(r.character, "set_trigger.character_id", ctx.owner);
  if (!c) return c.error();
  return (*c)->animator.set_trigger(r.name, r.value);
}

anim::Expected<MachineStateAnswer> World::handle(const GetMachineState& r, const CommandContext&) {
  auto c = find_character(r.character, "get_state.character_id");
  if (!c) return c.error();
  const anim::Animator& a = (*c)->animator;
  MachineStateAnswer out{a.state_machine(), a.machine_status(), {}, {}, {}};
  for (int id : a.machine_layer_ids()) {
    auto status = a.machine_layer_status(id);
    if (!status) continue;  // every id listed runs a machine
    out.layers.push_back({static_cast<uint32_t>(id), a.machine_layer_machine(id), *status});
  }
  for (int i = 0; i < a.num_parameters(); ++i)
    out.parameters.emplace_back(a.parameter_name(i), a.parameter_value(i));
  for (int i = 0; i < a.num_triggers(); ++i)
    out.triggers.emplace_back(a.trigger_name(i), a.trigger_set(i));
  return out;
}

}  // namespace animd
