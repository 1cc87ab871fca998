// The World's hit-volume requests: set_hit_volumes replaces capsules of an asset (checked in
// full before anything changes), get_hit_volumes reports the ones in force. raycast and
// overlap_sphere are answered by the sessions from the pose history (history/hit_query.h).
#include <algorithm>
#include <string>
#include <vector>

#include "world/world.h"

namespace animd {

const HitVolumeOverride* World::override_of(const anim::Asset* asset) const {
  for (const auto& o : hit_overrides_)
    if (o.asset.get() == asset) return &o;
  return nullptr;
}

void World::publish_hit_volumes() {
  hit_table_->publish(std::make_shared<const HitVolumeOverrides>(hit_overrides_));
}

anim::Status World::handle(const SetHitVolumes& r, const CommandContext& ctx) {
  const uint64_t owner = ctx.owner;
  auto found = find_usable_asset(r.asset, "set_hit_volumes.asset", owner);
  if (!found) return found.error();
  const AssetPtr& asset = (*found)->second;
  const anim::Skeleton& skeleton = asset->skeleton;
  const size_t n = static_cast<size_t>(skeleton.num_joints());

  std::vector<anim::CapsuleEdit> edits;
  edits.reserve(r.joints.size());
  std::vector<int> given_by(n, -1);  // which entry of r.joints names each joint
  for (size_t i = 0; i < r.joints.size(); ++i) {
    const JointCapsuleEdit& e = r.joints[i];
    const std::string field = "set_hit_volumes.joints[" + std::to_string(i) + "]";
    int joint = -1;
    if (!e.joint_name.empty()) {
      joint = skeleton.find_joint(e.joint_name);
      if (joint < 0)
        return anim::not_found(field + ".joint_name: unknown joint '" + e.joint_name +
                               "' in asset '" + asset->name + "'");
    } else {
      if (e.joint_index >= n)
        return anim::not_found(field + ".joint_index: joint index " +
                               std::to_string(e.joint_index) + " out of range (asset '" +
                               asset->name + "' has " + std::to_string(n) + " joints)");
      joint = static_cast<int>(e.joint_index);
    }
    int& first = given_by[static_cast<size_t>(joint)];
    if (first >= 0)
      return anim::invalid_argument(field + ": joint '" +
                                    skeleton.names[static_cast<size_t>(joint)] +
                                    "' is already given by joints[" + std::to_string(first) + "]");
    first = static_cast<int>(i);
    edits.push_back({joint, e.capsule});
  }

  const HitVolumeOverride* current = override_of(asset.get());
  if (edits.empty() && !r.reset) return {};  // nothing to change
  if (r.reset && edits.empty()) {            // back to the fitted volumes
    if (current) {
      std::erase_if(hit_overrides_, [&](const auto& o) { return o.asset == asset; });
      publish_hit_volumes();
    }
    return {};
  }
  const anim::HitVolumes& base = r.reset || !current ? asset->hit_volumes : *current->volumes;
  auto next = anim::edit_hit_volumes(base, edits);
  if (!next) return next.error();  // values were checked by its converter: not expected
  auto volumes = std::make_shared<const anim::HitVolumes>(std::move(*next));
  if (current) {
    for (auto& o : hit_overrides_)
      if (o.asset == asset) o.volumes = std::move(volumes);
  } else {
    hit_overrides_.push_back({asset, std::move(volumes)});
  }
  publish_hit_volumes();
  return {};
}

anim::Expected<HitVolumesAnswer> World::handle(const GetHitVolumes& r,
                                               const CommandContext&) const {
  auto it = assets_.find(r.asset);
  if (it == assets_.end())
    return anim::not_found("get_hit_volumes.asset: unknown asset '" + r.asset + "'");
  const AssetPtr& asset = it->second;
  if (const HitVolumeOverride* o = override_of(asset.get()))
    return HitVolumesAnswer{asset, o->volumes, false};
  // The fitted volumes live in the asset: shared with it.
  return HitVolumesAnswer{
      asset, std::shared_ptr<const anim::HitVolumes>(asset, &asset->hit_volumes), true};
}

}  // namespace animd
