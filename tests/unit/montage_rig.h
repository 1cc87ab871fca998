#pragma once
// The montage tests' rig: the built-in character walking, an upper-body slot over it, the
// pose a montage should give (its clip sampled directly and blended at a weight), and the
// events of an update written as "source:clip:name" strings.
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "anim/animator.h"
#include "anim/blend.h"
#include "builtin_clips.h"

namespace animtest {

inline int montage_clip(const char* name) {
  return builtin_clip(name);
}

inline anim::JointMask upper_body() {
  return *anim::JointMask::subtree(builtin().skeleton, builtin().skeleton.find_joint("chest"));
}

// Walk playing, an empty upper-body slot added; returns the slot's id.
inline int walk_with_slot(anim::Animator& a) {
  EXPECT_TRUE(a.play(montage_clip("walk")));
  anim::AdditiveLayerDesc d;
  d.blend = anim::LayerBlend::kOverride;
  d.mask = upper_body();
  const anim::Expected<int> slot = a.add_layer(d);
  EXPECT_TRUE(slot.has_value()) << (slot ? "" : slot.error().message());
  return slot ? *slot : -1;
}

// Whether two transforms agree within 1e-5.
inline bool near_transform(const anim::Transform& a, const anim::Transform& b) {
  const float tol = 1e-5f;
  for (int i = 0; i < 3; ++i)
    if (std::abs(a.translation[i] - b.translation[i]) > tol ||
        std::abs(a.scale[i] - b.scale[i]) > tol)
      return false;
  return std::abs(std::abs(glm::dot(a.rotation, b.rotation)) - 1.0f) < tol;
}

// The pose walk at `walk_time` (looping) with `clip` at `clip_time` over the upper body at
// `weight` (0: walk alone).
inline void expect_montage_pose(const anim::Animator& a, float walk_time, int clip, float clip_time,
                                float weight) {
  const int walk = montage_clip("walk");
  const float walk_duration = builtin().clips[walk].duration;
  const auto base = sample_builtin(walk, std::fmod(walk_time, walk_duration));
  std::vector<anim::Transform> want(base.size());
  if (weight > 0.0f)
    anim::blend(base, sample_builtin(clip, clip_time), weight, upper_body(), want);
  else
    want = base;
  for (size_t j = 0; j < want.size(); ++j)
    EXPECT_TRUE(near_transform(a.local_pose().locals[j], want[j]))
        << builtin().skeleton.names[j] << " (walk " << walk_time << ", clip " << clip_time
        << ", weight " << weight << ")";
}

// An event table of the built-in clips with `events` on `clip` (none elsewhere).
inline std::shared_ptr<const anim::ClipEventTable> table_with(int clip,
                                                              std::vector<anim::ClipEvent> events) {
  auto t = std::make_shared<anim::ClipEventTable>();
  t->clips.resize(builtin().clips.size());
  t->clips[static_cast<size_t>(clip)] = std::move(events);
  return t;
}

// prefix followed by n ("@" 3 -> "@3"), appended (GCC 12 warns falsely about
// `"literal" + std::string&&`).
inline std::string numbered(const char* prefix, long long n) {
  std::string s(prefix);
  s.append(std::to_string(n));
  return s;
}

// The last update's events: "clip:name" for a clip event (with the slot's id as "@id" for a
// layer's), "montage:clip:name@slot" for a montage's lifecycle.
inline std::vector<std::string> fired_names(const anim::Animator& a) {
  std::vector<std::string> out;
  for (const anim::FiredEvent& f : a.fired_events()) {
    const std::string clip = a.clips()[f.clip].name;
    if (f.source == anim::EventSource::kMontage) {
      out.push_back("montage:" + clip + ":" + anim::montage_event_name(f.event) +
                    numbered("@", f.layer_id));
      continue;
    }
    std::string name = clip + ":" + a.event_table()->clips[f.clip][f.event].name;
    if (f.source == anim::EventSource::kLayer) name += numbered("@", f.layer_id);
    out.push_back(name);
  }
  return out;
}
using EventNames = std::vector<std::string>;

}  // namespace animtest
