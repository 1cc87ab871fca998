// Montage sections (montage_sections.h, Animator::play_montage with sections,
// jump_to_section) on the built-in character: "wave" (2 s) in an upper-body slot over "walk",
// updated in steps of 1/8 s so that every clock below is exact. Expected times, sections,
// weights and events are hand-computed from docs/animation.md, "Montages".
#include "anim/montage_sections.h"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "anim/animator.h"
#include "montage_rig.h"

namespace anim {
namespace montage_sections_test {

using animtest::builtin;
using animtest::EventNames;
using animtest::expect_montage_pose;
using animtest::fired_names;
using animtest::numbered;
using animtest::table_with;
using animtest::walk_with_slot;

constexpr float kDt = 0.125f;

int wave() {
  return animtest::montage_clip("wave");
}

// intro [0, 0.5) then loop; loop [0.5, 1.25) repeating itself; outro [1.25, 2] ending the
// montage.
std::vector<MontageSection> intro_loop_outro() {
  return {{"intro", 0.0f, "loop"}, {"loop", 0.5f, "loop"}, {"outro", 1.25f, ""}};
}

// Events on wave: one at each section's start, one inside the loop.
std::shared_ptr<const ClipEventTable> wave_events() {
  return table_with(wave(), {{"z", 0.0f, ""}, {"a", 0.5f, ""}, {"b", 1.0f, ""}, {"c", 1.25f, ""}});
}

TEST(MontageTimeline, ResolvesEndsNextsAndWhatIsLeftAfterEachSection) {
  const Clip& clip = builtin().clips[static_cast<size_t>(wave())];
  const auto made = make_montage_timeline(
      std::vector<MontageSection>{{"a", 0.0f, "c"}, {"b", 0.5f, "b"}, {"c", 1.5f, ""}}, clip,
      "test");
  ASSERT_TRUE(made.has_value()) << made.error().message();
  const MontageTimeline& t = **made;
  ASSERT_EQ(t.sections.size(), 3u);
  EXPECT_EQ(t.sections[0].end, 0.5f);
  EXPECT_EQ(t.sections[1].end, 1.5f);
  EXPECT_EQ(t.sections[2].end, 2.0f);
  EXPECT_EQ(t.sections[0].next, 2);
  EXPECT_EQ(t.sections[1].next, 1);
  EXPECT_EQ(t.sections[2].next, -1);
  EXPECT_EQ(t.sections[0].rest, 0.5);  // then c, 0.5 s
  EXPECT_TRUE(std::isinf(t.sections[1].rest));
  EXPECT_EQ(t.sections[2].rest, 0.0);
  EXPECT_EQ(t.remaining(0, 0.25f), 0.75);
  EXPECT_EQ(t.section_at(0.0f), 0);
  EXPECT_EQ(t.section_at(0.5f), 1);
  EXPECT_EQ(t.section_at(1.99f), 2);
  EXPECT_EQ(t.find("b"), 1);
  EXPECT_EQ(t.find("d"), -1);

  // a -> c: the playhead goes from a's end to c's start, then stops at c's end.
  MontagePlayhead p{0, 0.25f, 0.0f};
  MontageMove m = advance_montage_time(t, p, 0.5f);
  EXPECT_EQ(p.section, 2);
  EXPECT_EQ(p.time, 1.75f);
  EXPECT_EQ(m.hops, 1);
  EXPECT_EQ(m.travel, 0.5);
  EXPECT_FALSE(m.at_end);
  m = advance_montage_time(t, p, 1.0f);
  EXPECT_EQ(p.time, 2.0f);
  EXPECT_TRUE(m.at_end);
  EXPECT_EQ(m.travel, 0.25);
  // b loops: 10 turns and a quarter in one step.
  p = MontagePlayhead{1, 0.5f, 0.0f};
  m = advance_montage_time(t, p, 10.25f);
  EXPECT_EQ(p.section, 1);
  EXPECT_EQ(p.time, 0.75f);
  EXPECT_EQ(m.hops, 10);
  EXPECT_EQ(m.travel, 10.25);
}

TEST(MontageSections, ALoopingSectionRepeatsThroughNextUntilStopped) {
  const Asset& asset = builtin();
  Animator a(asset.skeleton, asset.clips);
  const int slot = walk_with_slot(a);
  ASSERT_TRUE(a.set_event_table(wave_events()));
  // A blend-out of 0.5 s never starts on its own: the loop has no end.
  ASSERT_TRUE(a.play_montage(slot, {wave(), 1.0f, 0.0f, 0.5f, 0.0f, intro_loop_outro()}));
  EXPECT_EQ(a.montage(slot)->section, 0);
  const std::string at = numbered("@", slot);
  struct Step {
    float time;
    int section;
    EventNames events;
  };
  const Step steps[] = {
      {0.125f, 0, {"montage:wave:montage_started" + at, "wave:z" + at}},
      {0.25f, 0, {}},
      {0.375f, 0, {}},
      {0.5f, 1, {"wave:a" + at}},  // intro's end: on into the loop, crossing its start
      {0.625f, 1, {}},
      {0.75f, 1, {}},
      {0.875f, 1, {}},
      {1.0f, 1, {"wave:b" + at}},
      {1.125f, 1, {}},
      {0.5f, 1, {"wave:a" + at}},  // the loop's end: back to its start (outro's "c" not met)
      {0.625f, 1, {}},
      {0.75f, 1, {}},
      {0.875f, 1, {}},
      {1.0f, 1, {"wave:b" + at}},
      {1.125f, 1, {}},
      {0.5f, 1, {"wave:a" + at}},  // twice round
  };
  int k = 0;
  for (const Step& s : steps) {
    ++k;
    ASSERT_TRUE(a.update(kDt));
    const MontageState m = *a.montage(slot);
    EXPECT_EQ(m.time, s.time) << "update " << k;
    EXPECT_EQ(m.section, s.section) << "update " << k;
    EXPECT_EQ(m.weight, 1.0f) << "update " << k;
    EXPECT_EQ(m.phase, MontagePhase::kPlaying) << "update " << k;
    EXPECT_EQ(fired_names(a), s.events) << "update " << k;
  }
  expect_montage_pose(a, 16 * kDt, wave(), 0.5f, 1.0f);
  // stop_montage ends it: half-way out after one update, silent after two.
  ASSERT_TRUE(a.stop_montage(slot, 0.25f));
  ASSERT_TRUE(a.update(kDt));
  EXPECT_EQ(a.montage(slot)->time, 0.625f);
  EXPECT_EQ(a.montage(slot)->weight, 0.5f);
  EXPECT_EQ(a.montage(slot)->phase, MontagePhase::kStopping);
  EXPECT_EQ(fired_names(a), EventNames{"montage:wave:montage_blending_out" + at});
  expect_montage_pose(a, 17 * kDt, wave(), 0.625f, 0.5f);
  ASSERT_TRUE(a.update(kDt));
  EXPECT_EQ(a.montage(slot)->weight, 0.0f);
  EXPECT_EQ(a.montage(slot)->phase, MontagePhase::kEnded);
  EXPECT_EQ(fired_names(a), EventNames{"montage:wave:montage_ended" + at});
  expect_montage_pose(a, 18 * kDt, wave(), 0.0f, 0.0f);
}

TEST(MontageSections, JumpMovesThePlayheadAtOnceWithoutTheSkippedEvents) {
  const Asset& asset = builtin();
  Animator a(asset.skeleton, asset.clips);
  const int slot = walk_with_slot(a);
  ASSERT_TRUE(a.set_event_table(wave_events()));
  ASSERT_TRUE(a.play_montage(slot, {wave(), 1.0f, 0.0f, 0.25f, 0.0f, intro_loop_outro()}));
  const std::string at = numbered("@", slot);
  ASSERT_TRUE(a.update(kDt));
  ASSERT_TRUE(a.update(kDt));  // 0.25, mid-intro
  ASSERT_TRUE(a.jump_to_section(slot, "outro"));
  EXPECT_EQ(a.montage(slot)->time, 1.25f);
  EXPECT_EQ(a.montage(slot)->section, 2);
  EXPECT_EQ(a.montage(slot)->phase, MontagePhase::kPlaying);
  // From the section's start: its event there fires, "a" and "b" (skipped) do not.
  ASSERT_TRUE(a.update(kDt));
  EXPECT_EQ(a.montage(slot)->time, 1.375f);
  EXPECT_EQ(fired_names(a), EventNames{"wave:c" + at});
  // outro has no next: the montage ends at 2.0, its weight reaching 0 there.
  const float weights[] = {1.0f, 1.0f, 1.0f, 0.5f, 0.0f};  // at 1.5 .. 2.0
  const EventNames events[] = {
      {}, {}, {}, {"montage:wave:montage_blending_out" + at}, {"montage:wave:montage_ended" + at}};
  for (int k = 0; k < 5; ++k) {
    ASSERT_TRUE(a.update(kDt));
    EXPECT_EQ(a.montage(slot)->time, 1.5f + kDt * static_cast<float>(k)) << k;
    EXPECT_EQ(a.montage(slot)->weight, weights[k]) << k;
    EXPECT_EQ(fired_names(a), events[k]) << k;
  }
  EXPECT_EQ(a.montage(slot)->phase, MontagePhase::kEnded);

  // Mid-loop, back to the loop's own start.
  ASSERT_TRUE(a.play_montage(slot, {wave(), 1.0f, 0.0f, 0.0f, 0.75f, intro_loop_outro()}));
  EXPECT_EQ(a.montage(slot)->section, 1);  // start_time 0.75 is in the loop
  ASSERT_TRUE(a.update(kDt));
  EXPECT_EQ(a.montage(slot)->time, 0.875f);
  ASSERT_TRUE(a.jump_to_section(slot, "loop"));
  ASSERT_TRUE(a.update(kDt));
  EXPECT_EQ(a.montage(slot)->time, 0.625f);
  EXPECT_EQ(a.montage(slot)->section, 1);
  EXPECT_EQ(fired_names(a), EventNames{"wave:a" + at});
  expect_montage_pose(a, 10 * kDt, wave(), 0.625f, 1.0f);
}

TEST(MontageSections, ASectionWithoutNextEndsTheMontageBlendingOutToZeroAtItsEnd) {
  const Asset& asset = builtin();
  Animator a(asset.skeleton, asset.clips);
  const int slot = walk_with_slot(a);
  // "a" ends the montage at 1.0 s of wave's 2 s; "b" never plays.
  ASSERT_TRUE(a.play_montage(slot, {wave(), 1.0f, 0.0f, 0.5f, 0.0f, {{"a", 0.0f}, {"b", 1.0f}}}));
  // Weight min(1, (1 - t) / 0.5) at t = k / 8.
  const float weights[] = {1.0f, 1.0f, 1.0f, 1.0f, 0.75f, 0.5f, 0.25f, 0.0f};
  for (int k = 1; k <= 8; ++k) {
    ASSERT_TRUE(a.update(kDt));
    EXPECT_EQ(a.montage(slot)->time, kDt * static_cast<float>(k)) << k;
    EXPECT_EQ(a.montage(slot)->weight, weights[k - 1]) << k;
    EXPECT_EQ(a.montage(slot)->section, 0) << k;
    EXPECT_EQ(a.montage(slot)->phase, k < 8 ? MontagePhase::kPlaying : MontagePhase::kEnded);
    if (k == 6) expect_montage_pose(a, 0.75f, wave(), 0.75f, 0.5f);
  }
  // Held at the section's end, silent.
  ASSERT_TRUE(a.update(kDt));
  EXPECT_EQ(a.montage(slot)->time, 1.0f);
  expect_montage_pose(a, 9 * kDt, wave(), 0.0f, 0.0f);

  // intro -> outro, skipping "mid": 1 s of montage. The blend-out (0.75 s) starts in intro and
  // reaches 0 at outro's end, the clip's.
  ASSERT_TRUE(a.play_montage(slot, {wave(),
                                    1.0f,
                                    0.0f,
                                    0.75f,
                                    0.0f,
                                    {{"intro", 0.0f, "outro"}, {"mid", 0.5f}, {"outro", 1.5f}}}));
  const float times[] = {0.125f, 0.25f, 0.375f, 1.5f, 1.625f, 1.75f, 1.875f, 2.0f};
  for (int k = 1; k <= 8; ++k) {
    ASSERT_TRUE(a.update(kDt));
    EXPECT_EQ(a.montage(slot)->time, times[k - 1]) << k;
    EXPECT_EQ(a.montage(slot)->section, k < 4 ? 0 : 2) << k;
    const float left = 1.0f - kDt * static_cast<float>(k);
    EXPECT_NEAR(a.montage(slot)->weight, std::min(1.0f, left / 0.75f), 1e-6f) << k;
  }
  EXPECT_EQ(a.montage(slot)->phase, MontagePhase::kEnded);
}

TEST(MontageSections, ManyLoopTurnsInOneUpdateAreCountedNotWalked) {
  const Asset& asset = builtin();
  Animator a(asset.skeleton, asset.clips);
  const int slot = walk_with_slot(a);
  ASSERT_TRUE(a.set_event_table(table_with(wave(), {{"b", 1.0f, ""}})));
  ASSERT_TRUE(a.play_montage(slot, {wave(), 1.0f, 0.0f, 0.0f, 0.0f, intro_loop_outro()}));
  // intro's 0.5 s, 100 turns of the 0.75 s loop, and 0.25 s: "b" crossed 100 times, kept
  // after the montage's start while there is room, the rest counted.
  ASSERT_TRUE(a.update(75.75f));
  EXPECT_EQ(a.montage(slot)->section, 1);
  EXPECT_EQ(a.montage(slot)->time, 0.75f);
  ASSERT_EQ(a.fired_events().size(), static_cast<size_t>(kMaxFiredEvents));
  EXPECT_EQ(a.fired_events()[0].source, EventSource::kMontage);
  EXPECT_EQ(a.fired_events()[1].source, EventSource::kLayer);
  EXPECT_EQ(a.events_overflowed(), 101u - static_cast<uint64_t>(kMaxFiredEvents));
}

TEST(MontageSections, BadSectionsAreRefusedNamingTheFieldAndChangeNothing) {
  const Asset& asset = builtin();
  Animator a(asset.skeleton, asset.clips);
  const int slot = walk_with_slot(a);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // Refused with nothing played: the slot stays empty. Refused over a playing montage: it
  // plays on as it was.
  std::vector<MontageSection> many;
  for (int i = 0; i <= kMaxMontageSections; ++i)
    many.push_back({numbered("s", i), 0.01f * static_cast<float>(i)});
  struct Case {
    std::vector<MontageSection> sections;
    StatusCode code;
    const char* message;
  };
  const Case cases[] = {
      {{{"", 0.0f}}, StatusCode::kInvalidArgument, "sections[0].name is empty"},
      {{{std::string(kMaxMontageSectionNameBytes + 1, 'x'), 0.0f}},
       StatusCode::kInvalidArgument,
       "sections[0].name is 257 bytes, more than 256"},
      {{{"a", 0.0f}, {"a", 0.5f}},
       StatusCode::kInvalidArgument,
       "sections[1].name 'a' is also sections[0].name"},
      {{{"a", 0.25f}}, StatusCode::kInvalidArgument, "sections[0].start_time 0.250000 is not 0"},
      {{{"a", 0.0f}, {"b", nan}}, StatusCode::kInvalidArgument, "sections[1].start_time is NaN"},
      {{{"a", 0.0f}, {"b", 0.5f}, {"c", 0.5f}},
       StatusCode::kInvalidArgument,
       "sections[2].start_time 0.500000 is not after sections[1].start_time 0.500000"},
      {{{"a", 0.0f}, {"b", 2.0f}},
       StatusCode::kInvalidArgument,
       "sections[1].start_time 2.000000 is outside [0, 2.000000) of clip 'wave'"},
      {{{"a", 0.0f, "nowhere"}},
       StatusCode::kInvalidArgument,
       "sections[0].next 'nowhere' names no section"},
      {many, StatusCode::kResourceExhausted, "sections has 65 entries, more than 64"},
  };
  for (int round = 0; round < 2; ++round) {
    if (round == 1) {
      ASSERT_TRUE(a.play_montage(slot, {wave(), 1.0f, 0.0f, 0.0f, 0.0f, intro_loop_outro()}));
      ASSERT_TRUE(a.update(0.75f));
    }
    const MontageState before = *a.montage(slot);
    for (const Case& c : cases) {
      const Status s = a.play_montage(slot, {wave(), 1.0f, 0.0f, 0.0f, 0.0f, c.sections});
      EXPECT_EQ(s.code(), c.code) << s.message();
      EXPECT_NE(s.message().find(c.message), std::string::npos) << s.message();
      EXPECT_EQ(s.message().rfind(numbered("play_montage (slot ", slot) + "): ", 0), 0u)
          << s.message();
    }
    const MontageState after = *a.montage(slot);
    EXPECT_EQ(after.phase, before.phase);
    EXPECT_EQ(after.clip, before.clip);
    EXPECT_EQ(after.time, before.time);
    EXPECT_EQ(after.section, before.section);
    EXPECT_EQ(after.weight, before.weight);
  }
  // jump_to_section: an unknown section, changing nothing.
  const Status unknown = a.jump_to_section(slot, "nowhere");
  EXPECT_EQ(unknown.code(), StatusCode::kNotFound);
  EXPECT_NE(unknown.message().find("section 'nowhere' is not a section of the montage"),
            std::string::npos)
      << unknown.message();
  EXPECT_EQ(a.montage(slot)->time, 0.75f);
  EXPECT_EQ(a.montage(slot)->section, 1);
  // A montage without sections has none to jump to; a slot with nothing playing, a layer
  // that is not a slot and an unknown layer are refused.
  ASSERT_TRUE(a.play_montage(slot, {wave()}));
  const Status none = a.jump_to_section(slot, "loop");
  EXPECT_EQ(none.code(), StatusCode::kNotFound);
  EXPECT_NE(none.message().find("(it has no sections)"), std::string::npos) << none.message();
  EXPECT_EQ(a.montage(slot)->section, -1);
  ASSERT_TRUE(a.stop_montage(slot, 0.0f));
  ASSERT_TRUE(a.update(kDt));
  EXPECT_EQ(a.jump_to_section(slot, "loop").code(), StatusCode::kFailedPrecondition);
  AdditiveLayerDesc own;
  own.clip = wave();
  own.blend = LayerBlend::kOverride;
  const int clip_layer = *a.add_layer(own);
  EXPECT_EQ(a.jump_to_section(clip_layer, "loop").code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(a.jump_to_section(999, "loop").code(), StatusCode::kNotFound);
}

}  // namespace montage_sections_test
}  // namespace anim
