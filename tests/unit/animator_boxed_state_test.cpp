// The Animator keeps its parameters, triggers, fired events and layer and goal inputs out of
// line, made by the first command that needs them: a copy owns its own, and every way a
// character comes to fire events (clips with events, a table given later, a rebind that adds
// clips with events, a montage slot) finds them made.
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "anim/animator.h"
#include "anim/state_machine.h"
#include "anim_test_rig.h"
#include "every_feature_animator.h"

namespace anim {
namespace animator_boxed_state_test {

constexpr float kDt = 1.0f / 60.0f;

bool same_events(std::span<const FiredEvent> a, std::span<const FiredEvent> b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].clip != b[i].clip || a[i].event != b[i].event || a[i].source != b[i].source ||
        a[i].weight != b[i].weight || a[i].layer_id != b[i].layer_id)
      return false;
  return true;
}

TEST(AnimatorBoxedState, ACopyOwnsItsParametersTriggersAndEvents) {
  const animtest::EveryFeatureRig rig;
  Animator a(rig.skeleton, rig.clips);
  ASSERT_TRUE(rig.set_up(a));
  ASSERT_TRUE(a.set_parameter("lean", 1.0f, 0.0f));
  ASSERT_TRUE(a.set_trigger("wave"));
  ASSERT_TRUE(a.update(kDt));
  ASSERT_FALSE(a.fired_events().empty());

  Animator b = a;
  ASSERT_TRUE(b.set_parameter("lean", 5.0f, 0.0f));
  ASSERT_TRUE(b.set_trigger("wave", false));
  ASSERT_TRUE(b.set_parameter("extra", 2.0f, 0.0f));
  EXPECT_FLOAT_EQ(*a.parameter("lean"), 1.0f);
  EXPECT_TRUE(*a.trigger("wave"));
  EXPECT_EQ(a.parameter("extra").error().code(), StatusCode::kNotFound);
  EXPECT_EQ(a.num_parameters(), b.num_parameters() - 1);

  // Neither parameter drives anything: both run on to the same poses and events, each in its
  // own storage.
  for (int i = 0; i < 30; ++i) {
    ASSERT_TRUE(a.update(kDt));
    ASSERT_TRUE(b.update(kDt));
    ASSERT_TRUE(animtest::same_palettes(a.palette(), b.palette())) << "tick " << i;
    ASSERT_TRUE(same_events(a.fired_events(), b.fired_events())) << "tick " << i;
    ASSERT_NE(a.fired_events().data(), b.fired_events().data());
  }
}

TEST(AnimatorBoxedState, ACharacterWithoutEventsReportsNone) {
  const animtest::WalkRunRig rig;
  Animator a(rig.skeleton, rig.clips);
  ASSERT_TRUE(a.play(0));
  for (int i = 0; i < 90; ++i) {
    ASSERT_TRUE(a.update(kDt));
    EXPECT_TRUE(a.fired_events().empty());
    EXPECT_EQ(a.events_overflowed(), 0u);
  }
  EXPECT_EQ(a.num_parameters(), 0);
  EXPECT_EQ(a.num_triggers(), 0);
  EXPECT_TRUE(a.capture_state().parameters.empty());
}

TEST(AnimatorBoxedState, AMontageSlotReportsItsLifecycleWithoutClipEvents) {
  const animtest::WalkRunRig rig;
  Animator a(rig.skeleton, rig.clips);
  ASSERT_EQ(a.event_table(), nullptr);
  ASSERT_TRUE(a.play(0));
  AdditiveLayerDesc slot;
  slot.blend = LayerBlend::kOverride;
  const Expected<int> id = a.add_layer(slot);
  ASSERT_TRUE(id.has_value());
  ASSERT_TRUE(a.play_montage(*id, {1, 1.0f, 0.1f, 0.1f, 0.0f}));
  std::vector<uint16_t> seen;
  for (int i = 0; i < 60; ++i) {
    ASSERT_TRUE(a.update(kDt));
    for (const FiredEvent& e : a.fired_events()) {
      EXPECT_EQ(e.source, EventSource::kMontage);
      EXPECT_EQ(e.layer_id, static_cast<uint32_t>(*id));
      seen.push_back(e.event);
    }
  }
  const std::vector<uint16_t> lifecycle = {static_cast<uint16_t>(MontageEvent::kStarted),
                                           static_cast<uint16_t>(MontageEvent::kBlendingOut),
                                           static_cast<uint16_t>(MontageEvent::kEnded)};
  EXPECT_EQ(seen, lifecycle);
}

TEST(AnimatorBoxedState, EventsComeWithATableGivenLaterAndWithRebind) {
  animtest::WalkRunRig rig;
  Animator a(rig.skeleton, rig.clips);
  ASSERT_TRUE(a.play(0));
  auto table = std::make_shared<ClipEventTable>();
  table->clips = {{{"step", 0.5f, ""}}, {}};
  ASSERT_TRUE(a.set_event_table(table));
  int fired = 0;
  for (int i = 0; i < 60; ++i) {
    ASSERT_TRUE(a.update(kDt));
    fired += static_cast<int>(a.fired_events().size());
  }
  EXPECT_EQ(fired, 1);  // one cycle of walk (1 s) crosses its event once

  // Clips without events, then a clip with one appended (a retargeted clip attached).
  Animator b(rig.skeleton, rig.clips);
  ASSERT_EQ(b.event_table(), nullptr);
  std::vector<Clip> more = rig.clips;
  more.push_back(
      animtest::make_swing_clip("wave", rig.skeleton.num_joints(), 1.0f, 0.4f, {0, 1, 0}));
  more.back().events = {{"hand_up", 0.25f, ""}};
  ASSERT_TRUE(b.rebind(rig.skeleton, more));
  ASSERT_NE(b.event_table(), nullptr);
  ASSERT_TRUE(b.play(2));
  fired = 0;
  for (int i = 0; i < 60; ++i) {
    ASSERT_TRUE(b.update(kDt));
    for (const FiredEvent& e : b.fired_events()) {
      EXPECT_EQ(e.clip, 2);
      ++fired;
    }
  }
  EXPECT_EQ(fired, 1);
}

TEST(AnimatorBoxedState, RestoreBringsParametersTriggersAndEventsToAFreshAnimator) {
  const animtest::EveryFeatureRig rig;
  Animator a(rig.skeleton, rig.clips);
  ASSERT_TRUE(rig.set_up(a));
  ASSERT_TRUE(a.set_parameter("lean", 0.25f, 0.5f));
  ASSERT_TRUE(a.set_trigger("wave"));
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(a.update(kDt));
  const AnimatorState state = a.capture_state();

  Animator b(rig.skeleton, rig.clips);
  ASSERT_TRUE(b.restore_state(state));
  ASSERT_EQ(b.num_parameters(), a.num_parameters());
  for (int i = 0; i < a.num_parameters(); ++i) {
    EXPECT_EQ(b.parameter_name(i), a.parameter_name(i));
    EXPECT_EQ(b.parameter_value(i), a.parameter_value(i));
  }
  ASSERT_EQ(b.num_triggers(), a.num_triggers());
  EXPECT_TRUE(*b.trigger("wave"));
  for (int i = 0; i < 30; ++i) {
    ASSERT_TRUE(a.update(kDt));
    ASSERT_TRUE(b.update(kDt));
    ASSERT_TRUE(animtest::same_palettes(a.palette(), b.palette())) << "tick " << i;
    ASSERT_TRUE(same_events(a.fired_events(), b.fired_events())) << "tick " << i;
  }
}

}  // namespace animator_boxed_state_test
}  // namespace anim
