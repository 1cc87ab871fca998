// Animator::rebind: moving a character onto a copy of its asset with clips appended keeps
// what plays bit for bit, makes the new clips playable, and refuses copies that differ.
#include <cstring>
#include <memory>

#include <gtest/gtest.h>

#include "anim/animator.h"
#include "anim_test_rig.h"

namespace anim {
namespace animator_rebind_test {

using Rig = animtest::WalkRunRig;

bool same_palette(const Animator& a, const Animator& b) {
  const auto pa = a.palette(), pb = b.palette();
  return pa.size() == pb.size() && std::memcmp(pa.data(), pb.data(), pa.size_bytes()) == 0;
}

TEST(AnimatorRebind, KeepsPlayingAndAddsTheNewClips) {
  const Rig before;
  Rig after;  // a copy with one more clip, as the daemon builds when a clip is attached
  after.clips.push_back(
      animtest::make_swing_clip("mocap", after.skeleton.num_joints(), 0.9f, 0.5f, {0, 1, 0}, 0.0f));

  Animator moved(before.skeleton, before.clips), stayed(before.skeleton, before.clips);
  for (Animator* a : {&moved, &stayed}) {
    ASSERT_TRUE(a->play(0).is_ok());
    ASSERT_TRUE(a->crossfade(1, 0.5f).is_ok());
    for (int i = 0; i < 10; ++i) ASSERT_TRUE(a->update(1.0f / 60.0f).is_ok());
  }
  EXPECT_EQ(moved.play(2).code(), StatusCode::kNotFound);  // not there yet
  ASSERT_TRUE(moved.rebind(after.skeleton, after.clips).is_ok());
  EXPECT_EQ(&moved.skeleton(), &after.skeleton);
  EXPECT_EQ(moved.clips().size(), 3u);
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE(moved.update(1.0f / 60.0f).is_ok());
    ASSERT_TRUE(stayed.update(1.0f / 60.0f).is_ok());
    EXPECT_TRUE(same_palette(moved, stayed)) << "update " << i;
  }
  EXPECT_TRUE(moved.play(2).is_ok());
  EXPECT_EQ(moved.current_clip(), 2);
}

// A character with events (its clips' own or a table given to it) keeps them after a rebind,
// and the appended clips fire theirs: the table grows one list per new clip.
TEST(AnimatorRebind, TheEventTableGrowsWithTheClips) {
  const Rig before;
  Rig after;
  after.clips.push_back(
      animtest::make_swing_clip("mocap", after.skeleton.num_joints(), 1.0f, 0.5f, {0, 1, 0}, 0.0f));
  after.clips.back().events.push_back(ClipEvent{"land", 0.5f, ""});
  Animator a(before.skeleton, before.clips);
  auto table = std::make_shared<ClipEventTable>();
  table->clips.resize(before.clips.size());
  table->clips[0].push_back(ClipEvent{"step", 0.25f, "left"});
  ASSERT_TRUE(a.set_event_table(table).is_ok());
  ASSERT_TRUE(a.rebind(after.skeleton, after.clips).is_ok());
  ASSERT_NE(a.event_table(), nullptr);
  ASSERT_EQ(a.event_table()->clips.size(), 3u);
  EXPECT_EQ(a.event_table()->clips[0].size(), 1u);  // the table it had, kept
  ASSERT_EQ(a.event_table()->clips[2].size(), 1u);  // the new clip's own
  EXPECT_EQ(a.event_table()->clips[2][0].name, "land");

  ASSERT_TRUE(a.play(2).is_ok());
  int fired = 0;
  for (int i = 0; i < 45; ++i) {  // 0.75 s of a 1 s clip: crosses 0.5 once
    ASSERT_TRUE(a.update(1.0f / 60.0f).is_ok());
    for (const FiredEvent& e : a.fired_events()) {
      EXPECT_EQ(e.clip, 2);
      EXPECT_EQ(e.event, 0);
      ++fired;
    }
  }
  EXPECT_EQ(fired, 1);

  // Without events before, the appended clip's own still fire.
  Animator b(before.skeleton, before.clips);
  EXPECT_EQ(b.event_table(), nullptr);
  ASSERT_TRUE(b.rebind(after.skeleton, after.clips).is_ok());
  ASSERT_NE(b.event_table(), nullptr);
  EXPECT_EQ(b.event_table()->clips.size(), 3u);
}

TEST(AnimatorRebind, RefusesOtherSkeletonsAndClipsAndChangesNothing) {
  const Rig rig;
  Animator a(rig.skeleton, rig.clips);
  ASSERT_TRUE(a.play(1).is_ok());
  // Fewer clips.
  std::vector<Clip> fewer(rig.clips.begin(), rig.clips.begin() + 1);
  EXPECT_EQ(a.rebind(rig.skeleton, fewer).code(), StatusCode::kFailedPrecondition);
  // Clips in another order.
  std::vector<Clip> swapped = {rig.clips[1], rig.clips[0]};
  const Status s = a.rebind(rig.skeleton, swapped);
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("clip 0 is 'run', not 'walk'"), std::string::npos) << s.message();
  // Another skeleton (a joint renamed).
  Skeleton other = rig.skeleton;
  other.names[1] = "renamed";
  EXPECT_EQ(a.rebind(other, rig.clips).code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(&a.skeleton(), &rig.skeleton);
  EXPECT_EQ(a.clips().data(), rig.clips.data());
  EXPECT_EQ(a.current_clip(), 1);
}

}  // namespace animator_rebind_test
}  // namespace anim
