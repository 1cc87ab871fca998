// World: morph targets (set_morph_weights, clear_morph_weights; docs/animation.md, "Morph
// targets").
#include <memory>
#include <string>
#include <vector>

#include "world/world.h"

namespace animd {

namespace {

// The weight index each entry names, refused with the entry's field when the character's
// asset has no such target.
anim::Expected<std::vector<int>> resolve_refs(const anim::Animator& a, const anim::Asset& asset,
                                              const std::vector<MorphTargetRef>& refs,
                                              const std::string& field) {
  const auto& layout = a.morph_layout();
  if (!layout)
    return anim::failed_precondition(field + ": asset '" + asset.name + "' has no morph targets");
  std::vector<int> out;
  out.reserve(refs.size());
  for (size_t i = 0; i < refs.size(); ++i) {
    const std::string at = field + "[" + std::to_string(i) + "]";
    if (refs[i].name.empty()) {
      if (refs[i].index >= static_cast<uint32_t>(layout->num_weights()))
        return anim::not_found(at + ".index " + std::to_string(refs[i].index) +
                               " out of range (asset '" + asset.name + "' has " +
                               std::to_string(layout->num_weights()) + " morph targets)");
      out.push_back(static_cast<int>(refs[i].index));
      continue;
    }
    auto found = layout->find(refs[i].name);
    if (!found)
      return anim::Status(found.error().code(), at + ".name: " + found.error().message() +
                                                    " in asset '" + asset.name + "'");
    out.push_back(*found);
  }
  return out;
}

}  // namespace

std::shared_ptr<const anim::MorphLayout> World::morph_layout_of(const AssetPtr& asset) {
  if (asset->mesh.morph_sets.empty()) return nullptr;
  auto& layout = morph_layouts_[asset.get()];
  if (!layout)
    layout = std::make_shared<const anim::MorphLayout>(anim::make_morph_layout(asset->mesh));
  return layout;
}

anim::Status World::handle(const SetMorphWeights& r, const CommandContext& ctx) {
  auto c = find_controlled(r.character, "set_morph_weights.character_id", ctx.owner);
  if (!c) return c.error();
  anim::Animator& a = (*c)->animator;
  auto indices = resolve_refs(a, *(*c)->asset, r.weights, "set_morph_weights.weights");
  if (!indices) return indices.error();
  std::vector<anim::MorphWeightValue> values;
  values.reserve(indices->size());
  for (size_t i = 0; i < indices->size(); ++i)
    values.push_back({(*indices)[i], r.weights[i].value});
  return a.set_morph_weights(values, r.blend_time);
}

anim::Status World::handle(const ClearMorphWeights& r, const CommandContext& ctx) {
  auto c = find_controlled(r.character, "clear_morph_weights.character_id", ctx.owner);
  if (!c) return c.error();
  anim::Animator& a = (*c)->animator;
  auto indices = resolve_refs(a, *(*c)->asset, r.targets, "clear_morph_weights.targets");
  if (!indices) return indices.error();
  return a.clear_morph_weights(*indices, r.blend_time);
}

}  // namespace animd
