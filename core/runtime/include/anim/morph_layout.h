#pragma once
// MorphLayout: a character's morph weights as one flat list, made from its asset's mesh
// (skinned_mesh.h). The list holds every target of every morph set: the sets in
// SkinnedMesh::morph_sets order, each set's targets in order. The Animator blends, the daemon
// streams and a client applies the weights in this order (docs/animation.md, "Morph targets").
//
// Invariants: set_first and set_count have one entry per set; the sets' runs tile the list
// in order (set_first[0] == 0, set_first[s + 1] == set_first[s] + set_count[s], the last
// ending at num_weights()); every count >= 1; defaults, names and target_names have
// num_weights() entries; defaults are finite.

#include <string>
#include <string_view>
#include <vector>

#include "anim/skinned_mesh.h"
#include "anim/status.h"

namespace anim {

class Clip;

struct MorphLayout {
  std::vector<int> set_first;             // per set: its first weight's index in the list
  std::vector<int> set_count;             // per set: its target count, >= 1
  std::vector<float> defaults;            // per weight: the set's default weight of the target
  std::vector<std::string> names;         // per weight: "set/target" (unique)
  std::vector<std::string> target_names;  // per weight: the target's own name

  int num_weights() const { return static_cast<int>(defaults.size()); }
  int num_sets() const { return static_cast<int>(set_first.size()); }
  bool empty() const { return defaults.empty(); }

  // The index of the weight named `name`: "set/target", or a target's own name when no other
  // set has a target so named. NOT_FOUND for a name no target has; INVALID_ARGUMENT for a bare
  // name that several sets share (the message lists the "set/target" names to use).
  Expected<int> find(std::string_view name) const;
  // The indices of the weights a layer's morph mask names (docs/animation.md): a weight's
  // name as find() takes it, or a set's name (all its targets). Errors as find(), naming the
  // entry.
  Expected<std::vector<int>> resolve(std::string_view name) const;
  // OK when every morph channel of `clip` fits: its set exists here and has the channel's
  // target count. FAILED_PRECONDITION naming the clip and the channel otherwise.
  Status check_clip(const Clip& clip) const;
};

// The layout of `mesh`'s morph sets (empty when it has none).
MorphLayout make_morph_layout(const SkinnedMesh& mesh);

}  // namespace anim
