#pragma once
// The skeleton layout and baselines the compact_frame fuzz target decodes against (and its
// seed writer encodes with): a 6-joint chain whose joints rotate, translate and scale.

#include <cmath>
#include <vector>

#include "animcodec/compact.h"

namespace compactfuzz {

inline animcodec::Layout layout() {
  std::vector<animcodec::JointPrecision> precision{{15, 14, 12}, {13, 14, 12}, {12, 13, 11},
                                                   {10, 12, 10}, {8, 12, 9},   {6, 10, 8}};
  std::vector<animcodec::Trs> rest(precision.size());
  for (size_t j = 1; j < rest.size(); ++j) rest[j].t = {0.0f, 0.3f, 0.0f};
  return animcodec::layout_from_precision(precision, rest, 0x5EEDu);
}

// The pose at step `f` of a smooth motion (baselines are steps 0 and 1; seeds encode 2).
inline std::vector<animcodec::QJoint> pose(const animcodec::Layout& l, int f) {
  std::vector<animcodec::QJoint> out(l.num_joints());
  for (size_t j = 0; j < out.size(); ++j) {
    const float a = 0.3f * f + 0.5f * static_cast<float>(j);
    const glm::quat r = glm::angleAxis(std::sin(a), glm::normalize(glm::vec3(1.0f, j, 0.5f)));
    const glm::vec3 t = l.rest[j].t + glm::vec3(j % 2 ? 0.01f * f : 0.0f, 0.0f, 0.0f);
    const glm::vec3 s(j == 3 ? 1.0f + 0.02f * f : 1.0f);
    out[j] = animcodec::quantize_joint(l, j, t, r, s);
  }
  return out;
}

inline animcodec::QRoot root(int f) {
  return animcodec::quantize_root({0.05f * f, 0.0f, 1.0f},
                                  glm::angleAxis(0.1f * f, glm::vec3(0, 1, 0)), {1.0f, 1.0f, 1.0f});
}

}  // namespace compactfuzz
