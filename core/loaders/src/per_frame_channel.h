#pragma once
// Building a clip channel from one value per frame (the MD5 and BVH loaders: both formats
// store every joint's value at every frame).

#include <vector>

#include "anim/clip.h"

namespace anim {

// Appends to `channels` a linear channel with one key per frame (`times`, `values`), a single
// key when every frame holds the same value (`same(a, b)`), or nothing when that single value
// is the rest value (`at_rest(v)`: the joint then samples its rest pose). Returns the new
// channel's index, or -1 when nothing was added.
template <class V, class Same, class AtRest>
int add_per_frame_channel(std::vector<Channel<V>>& channels, const std::vector<float>& times,
                          const std::vector<V>& values, Same same, AtRest at_rest) {
  bool constant = true;
  for (size_t k = 1; k < values.size() && constant; ++k) constant = same(values[k], values[0]);
  if (constant && at_rest(values[0])) return -1;
  Channel<V> c;
  c.interpolation = Interpolation::kLinear;
  if (constant) {
    c.times = {0.0f};
    c.values = {values[0]};
  } else {
    c.times = times;
    c.values = values;
  }
  channels.push_back(std::move(c));
  return static_cast<int>(channels.size()) - 1;
}

}  // namespace anim
