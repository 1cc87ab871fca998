#pragma once
// Helpers of the state machine tests on the built-in character: conditions and transitions
// by value, a machine made from a description (a test failure when refused), an Animator of
// the character, its machine's current state by name, and palettes compared bit for bit.

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "anim/animator.h"
#include "anim/state_machine.h"
#include "builtin_clips.h"

namespace animtest {

inline int clip(const char* name) {
  return builtin_clip(name);
}

inline anim::ConditionDesc when(const std::string& parameter, anim::ConditionOp op,
                                float value = 0.0f) {
  return anim::ConditionDesc{parameter, op, value};
}

inline anim::TransitionDesc go(const std::string& from, const std::string& to,
                               std::vector<anim::ConditionDesc> conditions, float duration = 0.0f) {
  anim::TransitionDesc t;
  t.from = from;
  t.to = to;
  t.conditions = std::move(conditions);
  t.duration = duration;
  return t;
}

inline anim::TransitionDesc from_any(const std::string& to,
                                     std::vector<anim::ConditionDesc> conditions,
                                     float duration = 0.0f) {
  anim::TransitionDesc t = go("", to, std::move(conditions), duration);
  t.any_state = true;
  return t;
}

inline std::shared_ptr<const anim::StateMachine> make(const anim::StateMachineDesc& d) {
  auto m = anim::make_state_machine(d, builtin().clips, builtin().skeleton.num_joints(), nullptr);
  EXPECT_TRUE(m.has_value()) << (m ? "" : m.error().message());
  return m ? std::make_shared<const anim::StateMachine>(std::move(*m)) : nullptr;
}

inline anim::Animator animator() {
  return anim::Animator(builtin().skeleton, builtin().clips);
}

// The name (path) of the base machine's current state; empty when none runs.
inline std::string state_of(const anim::Animator& a) {
  const anim::MachineStatus s = a.machine_status();
  return s.running ? a.state_machine()->states[static_cast<size_t>(s.state)].name : "";
}

inline void expect_same_palette(const anim::Animator& a, const anim::Animator& b, int update) {
  ASSERT_EQ(a.palette().size(), b.palette().size());
  for (size_t j = 0; j < a.palette().size(); ++j)
    for (int i = 0; i < 12; ++i)
      ASSERT_EQ(a.palette()[j].m[i], b.palette()[j].m[i]) << "update " << update << " joint " << j;
}

}  // namespace animtest
