// Held poses (Animator::set_pose / blend_out_pose) on the built-in character: a pose handed
// in from outside is the character's local pose bit for bit at weight 1, its blend-out is
// blend(animation, held, weight) with the weight falling linearly in update time, root
// motion stops while held, and bad poses are refused without changing anything.
#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "anim/animator.h"
#include "anim/blend.h"
#include "anim_test_rig.h"
#include "builtin_clips.h"

namespace anim {
namespace held_pose_test {

using animtest::builtin;
constexpr float kDt = 0.125f;

int clip(const char* name) {
  return animtest::builtin_clip(name);
}

bool same_bits(const Transform& a, const Transform& b) {
  return a.translation == b.translation && a.rotation == b.rotation && a.scale == b.scale;
}

// A pose no clip plays: run at 0.3 s with the chest turned.
std::vector<Transform> ragdoll() {
  std::vector<Transform> p = animtest::sample_builtin(clip("run"), 0.3f);
  const int chest = builtin().skeleton.find_joint("chest");
  p[static_cast<size_t>(chest)].rotation = glm::normalize(glm::quat(0.8f, 0.3f, -0.4f, 0.2f));
  return p;
}

TEST(HeldPose, HoldsTheGivenPoseThenBlendsOutLinearlyIntoTheAnimation) {
  Animator a(builtin().skeleton, builtin().clips), plain(builtin().skeleton, builtin().clips);
  ASSERT_TRUE(a.play(clip("walk")));
  ASSERT_TRUE(plain.play(clip("walk")));
  const std::vector<Transform> given = ragdoll();
  ASSERT_TRUE(a.set_pose(given));
  // What it holds: the pose given, its rotations normalized.
  std::vector<Transform> held = given;
  for (Transform& t : held) t.rotation = glm::normalize(t.rotation);
  EXPECT_EQ(a.held_pose_weight(), 1.0f);
  for (int k = 1; k <= 3; ++k) {
    ASSERT_TRUE(a.update(kDt));
    ASSERT_TRUE(plain.update(kDt));
    for (size_t j = 0; j < held.size(); ++j)
      ASSERT_TRUE(same_bits(a.local_pose().locals[j], held[j])) << "update " << k << " joint " << j;
  }
  // Out over 0.5 s: 0.75, 0.5, 0.25, then 0 (the animation, which kept playing underneath).
  ASSERT_TRUE(a.blend_out_pose(0.5f));
  for (float w : {0.75f, 0.5f, 0.25f, 0.0f}) {
    ASSERT_TRUE(a.update(kDt));
    ASSERT_TRUE(plain.update(kDt));
    EXPECT_EQ(a.held_pose_weight(), w);
    std::vector<Transform> want(held.size());
    blend(plain.local_pose().locals, held, w, JointMask{}, want);
    for (size_t j = 0; j < held.size(); ++j)
      ASSERT_TRUE(same_bits(a.local_pose().locals[j], want[j])) << "weight " << w << " joint " << j;
  }
  EXPECT_EQ(a.blend_out_pose(0.1f).code(), StatusCode::kFailedPrecondition);
  // A new pose is held at full weight again.
  ASSERT_TRUE(a.set_pose(given));
  ASSERT_TRUE(a.update(kDt));
  EXPECT_TRUE(same_bits(a.local_pose().locals[0], held[0]));
  // Blending out at once: the animation from the next update.
  ASSERT_TRUE(a.blend_out_pose(0.0f));
  ASSERT_TRUE(a.update(kDt));
  ASSERT_TRUE(plain.update(kDt));
  ASSERT_TRUE(plain.update(kDt));
  for (size_t j = 0; j < held.size(); ++j)
    ASSERT_TRUE(same_bits(a.local_pose().locals[j], plain.local_pose().locals[j])) << j;
}

TEST(HeldPose, RootMotionStopsWhileHeld) {
  const animtest::WalkRunRig rig;  // walk travels 1 unit per cycle
  Animator a(rig.skeleton, rig.clips);
  ASSERT_TRUE(a.set_root_motion({RootMotionMode::kExtract, -1, false}));
  ASSERT_TRUE(a.play(0));
  ASSERT_TRUE(a.update(kDt));
  EXPECT_GT(glm::length(a.last_root_motion().translation), 0.0f);
  ASSERT_TRUE(a.set_pose(rig.skeleton.rest_pose));
  const glm::vec3 at = a.root_transform().translation;
  for (int k = 0; k < 4; ++k) ASSERT_TRUE(a.update(kDt));
  EXPECT_EQ(a.root_transform().translation, at);
  ASSERT_TRUE(a.blend_out_pose(0.25f));
  ASSERT_TRUE(a.update(kDt));  // half held: half the travel
  EXPECT_NEAR(glm::length(a.root_transform().translation - at), 0.5f * kDt, 1e-5f);
}

TEST(HeldPose, RefusesBadPosesAndChangesNothing) {
  Animator a(builtin().skeleton, builtin().clips);
  ASSERT_TRUE(a.play(clip("idle")));
  ASSERT_TRUE(a.update(kDt));
  const std::vector<Transform> good = ragdoll();
  auto expect_refused = [&](std::vector<Transform> pose, const char* words) {
    const Status s = a.set_pose(pose);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.message();
    EXPECT_NE(s.message().find(words), std::string::npos) << s.message();
    EXPECT_EQ(a.held_pose_weight(), 0.0f);
    EXPECT_EQ(a.setup(), nullptr);
  };
  expect_refused(std::vector<Transform>(good.begin(), good.end() - 1), "joint transforms");
  std::vector<Transform> bad = good;
  bad[3].translation.y = std::numeric_limits<float>::quiet_NaN();
  expect_refused(bad, "joint 3");
  bad = good;
  bad[2].rotation = glm::quat(2.0f, 0.0f, 0.0f, 0.0f);
  expect_refused(bad, "unit quaternion");
  bad = good;
  bad[1].scale = {1.0f, 0.0f, 1.0f};
  expect_refused(bad, "scale");
  EXPECT_EQ(a.blend_out_pose(0.2f).code(), StatusCode::kFailedPrecondition);
  ASSERT_TRUE(a.set_pose(good));
  EXPECT_EQ(a.blend_out_pose(-1.0f).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(a.blend_out_pose(std::numeric_limits<float>::infinity()).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(a.held_pose_weight(), 1.0f);
}

}  // namespace held_pose_test
}  // namespace anim
