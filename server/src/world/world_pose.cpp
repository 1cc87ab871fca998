// World: held poses (set_pose, blend_out_pose; docs/animation.md, "Held poses").
#include <string>

#include "world/world.h"

namespace animd {

anim::Status World::handle(const SetPose& r, const CommandContext& ctx) {
  auto c = find_controlled(r.character, "set_pose.character_id", ctx.owner);
  if (!c) return c.error();
  const anim::Status s = (*c)->animator.set_pose(r.locals);
  if (s) return s;
  // The Animator names the command itself; the wire names the field.
  const std::string prefix = "set_pose: ";
  const std::string& m = s.message();
  return anim::Status(
      s.code(), "set_pose.locals: " + (m.rfind(prefix, 0) == 0 ? m.substr(prefix.size()) : m));
}

anim::Status World::handle(const BlendOutPose& r, const CommandContext& ctx) {
  auto c = find_controlled(r.character, "blend_out_pose.character_id", ctx.owner);
  if (!c) return c.error();
  return (*c)->animator.blend_out_pose(r.duration);
}

}  // namespace animd
