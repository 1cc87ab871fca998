#pragma once
// The built-in character with one more clip whose root joint travels, for the root-motion
// tests of the daemon's pieces: "stride" goes 1.5 along +z per second; "turn" also goes 1.5
// along +z per second and turns a quarter to the left (about +y) per second.
#include <memory>
#include <string>

#include <gtest/gtest.h>
#include <glm/gtc/quaternion.hpp>

#include "anim/asset.h"
#include "anim/loaders/builtin_character.h"

namespace animd {

inline std::shared_ptr<anim::Asset> moving_asset(const std::string& name = "strider") {
  auto a = std::make_shared<anim::Asset>(anim::make_builtin_character());
  a->name = name;
  const int n = a->skeleton.num_joints();
  for (bool turns : {false, true}) {
    anim::Clip c;
    c.name = turns ? "turn" : "stride";
    c.joints.resize(static_cast<size_t>(n));
    anim::Vec3Channel t;
    t.times = {0.0f, 1.0f};
    t.values = {{0, 0, 0}, {0, 0, 1.5f}};
    c.vec3_channels.push_back(std::move(t));
    c.joints[0].translation = 0;
    if (turns) {
      anim::QuatChannel r;
      r.times = {0.0f, 1.0f};
      r.values = {glm::quat(1, 0, 0, 0), glm::angleAxis(1.5707964f, glm::vec3(0, 1, 0))};
      c.quat_channels.push_back(std::move(r));
      c.joints[0].rotation = 0;
    }
    EXPECT_TRUE(c.finalize(n));
    a->clips.push_back(std::move(c));
  }
  return a;
}

}  // namespace animd
