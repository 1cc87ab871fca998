#include "snapshot/compact_layout.h"

#include "animcodec/morph_codec.h"

#include <map>
#include <mutex>
#include <utility>
#include <vector>

namespace animd {

animcodec::Layout make_compact_layout(const anim::Asset& asset) {
  const anim::Skeleton& s = asset.skeleton;
  const int n = s.num_joints();
  std::vector<int> parents(s.parents.begin(), s.parents.end());
  std::vector<animcodec::Trs> rest(n);
  for (int j = 0; j < n; ++j)
    rest[j] = {s.rest_pose[j].translation, s.rest_pose[j].rotation, s.rest_pose[j].scale};
  const animcodec::SkinView skin{asset.mesh.positions, asset.mesh.joints, asset.mesh.weights,
                                 s.inverse_bind};
  return animcodec::make_layout(parents, rest, s.root_transform, &skin);
}

void quantize_character(Snapshot& snap, size_t index, const anim::Animator& animator,
                        const QuantRef (&pull)[2]) {
  quantize_character(snap, index, animator.local_pose().locals, animator, pull);
}

void quantize_character(Snapshot& snap, size_t index, std::span<const anim::Transform> locals,
                        const anim::Animator& animator, const QuantRef (&pull)[2]) {
  const SnapshotCharacter& c = snap.characters[index];
  QuantFrame& frame = *snap.quant;
  // The frames the receivers will predict from (absent: no pull).
  const animcodec::QJoint* prev[2] = {nullptr, nullptr};
  const animcodec::QRoot* prev_root[2] = {nullptr, nullptr};
  for (int k = 0; k < 2; ++k) {
    if (!pull[k] || c.pull_offset[k] == kNotQuantized) break;
    prev[k] = pull[k]->joints.data() + c.pull_offset[k];
    prev_root[k] = &pull[k]->roots[c.pull_index[k]];
  }
  animcodec::quantize_pose(*c.layout, animcodec::transform_view<anim::Transform>(locals), prev[0],
                           prev[1], {frame.joints.data() + c.quant_offset, locals.size()});
  const anim::Transform& root = animator.root_transform();
  frame.roots[index] = animcodec::quantize_root(root.translation, root.rotation, root.scale,
                                                prev_root[0], prev_root[1]);
  const std::span<const float> weights = animator.morph_weights();
  for (size_t k = 0; k < c.num_morphs && k < weights.size(); ++k)
    frame.morphs[c.morph_offset + k] = animcodec::quantize_morph_weight(weights[k]);
}

std::shared_ptr<const animcodec::Layout> compact_layout(const AssetPtr& asset) {
  // Keyed by address, checked against the asset itself: an unloaded asset's address may be
  // reused by a new one, whose weak_ptr then does not match.
  struct Entry {
    std::weak_ptr<const anim::Asset> asset;
    std::shared_ptr<const animcodec::Layout> layout;
  };
  static std::mutex mutex;
  static std::map<const anim::Asset*, Entry> cache;
  std::lock_guard lock(mutex);
  auto it = cache.find(asset.get());
  if (it != cache.end() && it->second.asset.lock() == asset) return it->second.layout;
  std::erase_if(cache, [](const auto& e) { return e.second.asset.expired(); });
  auto layout = std::make_shared<const animcodec::Layout>(make_compact_layout(*asset));
  cache[asset.get()] = Entry{asset, layout};
  return layout;
}

}  // namespace animd
