#include "compact_layout.h"

#include <map>
#include <mutex>
#include <utility>
#include <vector>

namespace animd {

animcodec::Layout make_compact_layout(const anim::Skeleton& s) {
  const int n = s.num_joints();
  std::vector<int> parents(s.parents.begin(), s.parents.end());
  std::vector<animcodec::Trs> rest(n);
  for (int j = 0; j < n; ++j)
    rest[j] = {s.rest_pose[j].translation, s.rest_pose[j].rotation, s.rest_pose[j].scale};
  return animcodec::make_layout(parents, rest, s.root_transform);
}

void quantize_character(const animcodec::Layout& layout, const anim::Animator& animator,
                        uint32_t offset, uint32_t index, QuantFrame& frame) {
  const auto& locals = animator.local_pose().locals;
  animcodec::QJoint* out = frame.joints.data() + offset;
  for (size_t j = 0; j < locals.size(); ++j)
    out[j] = animcodec::quantize_joint(layout, j, locals[j].translation, locals[j].rotation,
                                       locals[j].scale);
  const anim::Transform& root = animator.root_transform();
  frame.roots[index] = animcodec::quantize_root(root.translation, root.rotation, root.scale);
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
  auto layout = std::make_shared<const animcodec::Layout>(make_compact_layout(asset->skeleton));
  cache[asset.get()] = Entry{asset, layout};
  return layout;
}

}  // namespace animd
