// World: the aim and foot IK commands (world_requests.h); the Animator checks and applies them.
#include "world/world.h"

namespace animd {

using anim::Status;

Status World::handle(const SetAimIk& r, const CommandContext& ctx) {
  const uint64_t owner = ctx.owner;
  auto c = find_controlled(r.character, "set_aim_ik.character_id", owner);
  if (!c) return c.error();
  return (*c)->animator.set_aim_ik(r.desc);
}

Status World::handle(const MoveAimTarget& r, const CommandContext& ctx) {
  const uint64_t owner = ctx.owner;
  auto c = find_controlled(r.character, "move_aim_target.character_id", owner);
  if (!c) return c.error();
  anim::Animator& a = (*c)->animator;
  if (!a.has_aim_ik())
    return anim::not_found("move_aim_target: character " + std::to_string(r.character) +
                           " has no aim IK (set_aim_ik first)");
  return a.update_aim_target(r.target, r.weight.value_or(a.aim_input().weight));
}

Status World::handle(const ClearAimIk& r, const CommandContext& ctx) {
  const uint64_t owner = ctx.owner;
  auto c = find_controlled(r.character, "clear_aim_ik.character_id", owner);
  if (!c) return c.error();
  return (*c)->animator.clear_aim_ik();
}

Status World::handle(const SetFootIk& r, const CommandContext& ctx) {
  const uint64_t owner = ctx.owner;
  auto c = find_controlled(r.character, "set_foot_ik.character_id", owner);
  if (!c) return c.error();
  return (*c)->animator.set_foot_ik(r.desc);
}

Status World::handle(const SetGround& r, const CommandContext& ctx) {
  const uint64_t owner = ctx.owner;
  auto c = find_controlled(r.character, "set_ground.character_id", owner);
  if (!c) return c.error();
  anim::Animator& a = (*c)->animator;
  // Checked before anything changes: the weight needs a foot IK.
  if (r.weight && !a.has_foot_ik())
    return anim::not_found("set_ground.weight: character " + std::to_string(r.character) +
                           " has no foot IK (set_foot_ik first)");
  if (auto s = a.set_ground(r.ground); !s) return s;
  if (r.weight) return a.set_foot_ik_weight(*r.weight);  // in [0, 1]: cannot fail
  return {};
}

Status World::handle(const ClearFootIk& r, const CommandContext& ctx) {
  const uint64_t owner = ctx.owner;
  auto c = find_controlled(r.character, "clear_foot_ik.character_id", owner);
  if (!c) return c.error();
  return (*c)->animator.clear_foot_ik();
}

}  // namespace animd
