// MorphLayout: the flat list of a mesh's morph weights and name lookups (morph_layout.h).
#include "anim/morph_layout.h"

#include "anim/clip.h"

namespace anim {

MorphLayout make_morph_layout(const SkinnedMesh& mesh) {
  MorphLayout layout;
  for (const MorphSet& set : mesh.morph_sets) {
    layout.set_first.push_back(layout.num_weights());
    layout.set_count.push_back(set.num_targets());
    for (int k = 0; k < set.num_targets(); ++k) {
      const MorphTarget& t = set.targets[static_cast<size_t>(k)];
      layout.defaults.push_back(set.default_weights[static_cast<size_t>(k)]);
      layout.names.push_back(set.name + "/" + t.name);
      layout.target_names.push_back(t.name);
    }
  }
  return layout;
}

Expected<int> MorphLayout::find(std::string_view name) const {
  for (int i = 0; i < num_weights(); ++i)
    if (names[static_cast<size_t>(i)] == name) return i;
  std::vector<int> matches;
  for (int i = 0; i < num_weights(); ++i)
    if (target_names[static_cast<size_t>(i)] == name) matches.push_back(i);
  if (matches.size() == 1) return matches.front();
  if (matches.empty()) return not_found("no morph target named '" + std::string(name) + "'");
  std::string all;
  for (int i : matches) all += (all.empty() ? "'" : ", '") + names[static_cast<size_t>(i)] + "'";
  return invalid_argument("morph target '" + std::string(name) +
                          "' is in several morph sets: name one of " + all);
}

Expected<std::vector<int>> MorphLayout::resolve(std::string_view name) const {
  std::vector<int> indices;
  for (int s = 0; s < num_sets(); ++s) {
    const std::string& first = names[static_cast<size_t>(set_first[static_cast<size_t>(s)])];
    const std::string_view set_name = std::string_view(first).substr(0, first.rfind('/'));
    if (set_name != name) continue;
    for (int k = 0; k < set_count[static_cast<size_t>(s)]; ++k)
      indices.push_back(set_first[static_cast<size_t>(s)] + k);
    return indices;
  }
  Expected<int> one = find(name);
  if (!one) return one.error();
  indices.push_back(*one);
  return indices;
}

Status MorphLayout::check_clip(const Clip& clip) const {
  for (const MorphWeightChannel& ch : clip.morph_channels) {
    if (ch.set < 0 || ch.set >= num_sets())
      return failed_precondition("clip '" + clip.name + "' animates morph set " +
                                 std::to_string(ch.set) + ", the mesh has " +
                                 std::to_string(num_sets()));
    if (ch.num_targets != set_count[static_cast<size_t>(ch.set)])
      return failed_precondition("clip '" + clip.name + "' animates " +
                                 std::to_string(ch.num_targets) + " targets of morph set " +
                                 std::to_string(ch.set) + ", which has " +
                                 std::to_string(set_count[static_cast<size_t>(ch.set)]));
  }
  return Status::ok();
}

}  // namespace anim
