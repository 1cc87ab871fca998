#pragma once
// The built-in character for tests that check poses against its clips sampled directly:
// the asset (made once), a clip's index by name, and a clip's local pose at a time.

#include <vector>

#include <gtest/gtest.h>

#include "anim/asset.h"
#include "anim/loaders/builtin_character.h"

namespace animtest {

inline const anim::Asset& builtin() {
  static const anim::Asset asset = anim::make_builtin_character();
  return asset;
}

inline int builtin_clip(const char* name) {
  const int i = builtin().find_clip(name);
  EXPECT_GE(i, 0) << name;
  return i;
}

// Clip `c`'s local pose at `t` seconds (the rest pose where it has no track).
inline std::vector<anim::Transform> sample_builtin(int c, float t) {
  const anim::Asset& a = builtin();
  std::vector<anim::Transform> out(a.skeleton.num_joints());
  a.clips[c].sample(t, a.skeleton.rest_pose, out);
  return out;
}

}  // namespace animtest
