// Animator::update(dt, buffers): the daemon's update, evaluated in buffers one thread lends
// to every character it updates. It must give bit for bit the pose, model matrices and
// palette of the Animator's own update(dt), whatever else used the buffers in between; the
// Animator's own matrices and palette wait (out of date, and saying so) until refreshed.
#include <algorithm>
#include <cstring>
#include <limits>
#include <span>
#include <vector>

#include <gtest/gtest.h>

#include "anim/animator.h"
#include "anim/joint_detail.h"
#include "anim/loaders/builtin_character.h"
#include "anim_test_rig.h"
#include "every_feature_animator.h"

namespace anim {
namespace animator_update_buffers_test {

constexpr float kDt = 1.0f / 60.0f;

bool same_matrices(std::span<const glm::mat4> a, std::span<const glm::mat4> b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size_bytes()) == 0;
}

bool same_locals(const Animator& a, const Animator& b) {
  const auto& x = a.local_pose().locals;
  const auto& y = b.local_pose().locals;
  if (x.size() != y.size()) return false;
  for (size_t j = 0; j < x.size(); ++j)
    if (!animtest::same_transform_bits(x[j], y[j])) return false;
  return true;
}

std::span<const glm::mat4> lent_model(const UpdateBuffers& buffers, const Animator& a) {
  return std::span(buffers.model).first(a.model_matrices().size());
}

// `own` updated by update(dt), `lent` by update(dt, buffers), `ticks` times: after each, the
// same locals and (in the buffers) model matrices; every `refresh_every` ticks `lent` brings
// its own matrices and palette up to date and they must equal `own`'s.
void expect_same_updates(Animator& own, Animator& lent, UpdateBuffers& buffers, int ticks,
                         int refresh_every) {
  for (int i = 0; i < ticks; ++i) {
    ASSERT_TRUE(own.update(kDt));
    ASSERT_TRUE(lent.update(kDt, buffers));
    ASSERT_TRUE(same_locals(own, lent)) << "tick " << i;
    ASSERT_TRUE(same_matrices(own.model_matrices(), lent_model(buffers, lent))) << "tick " << i;
    ASSERT_EQ(own.fired_events().size(), lent.fired_events().size()) << "tick " << i;
    if (i % refresh_every == 0) {
      EXPECT_FALSE(lent.model_current());
      lent.refresh_palette();  // the model matrices first
      EXPECT_TRUE(lent.model_current());
      ASSERT_TRUE(same_matrices(own.model_matrices(), lent.model_matrices())) << "tick " << i;
      ASSERT_TRUE(animtest::same_palettes(own.palette(), lent.palette())) << "tick " << i;
    }
  }
}

TEST(AnimatorUpdateBuffers, EveryFeatureGivesTheOwnUpdatesPoseBitForBit) {
  const animtest::EveryFeatureRig rig;
  Animator own(rig.skeleton, rig.clips);
  ASSERT_TRUE(rig.set_up(own));
  Animator lent = own;
  UpdateBuffers buffers;  // empty: the first update grows it
  // Through the crossfades, the IK goals and the layers' event storms.
  expect_same_updates(own, lent, buffers, 240, 7);
}

TEST(AnimatorUpdateBuffers, FootAndAimIkGiveTheOwnUpdatesPoseBitForBit) {
  // Both IK steps rewrite locals and recompute model matrices part way: the matrices the
  // Animator later computes from its locals alone must be the ones the evaluation had.
  const Asset asset = make_builtin_character();
  Animator own(asset.skeleton, asset.clips);
  ASSERT_TRUE(animtest::set_up_foot_and_aim(own));
  GroundDesc ground;
  ground.kind = GroundDesc::Kind::kPlane;
  ground.point = {0.0f, 0.05f, 0.0f};  // a tilted floor a little above the feet
  ground.normal = {0.1f, 1.0f, 0.0f};
  ASSERT_TRUE(own.set_ground(ground));
  ASSERT_TRUE(own.update_aim_target({0.5f, 1.5f, 2.0f}, 1.0f));
  Animator lent = own;
  UpdateBuffers buffers;
  buffers.reserve(Skeleton::kMaxJoints);
  expect_same_updates(own, lent, buffers, 120, 5);
  // The feet did reach for the raised floor (the IK ran, with a pelvis drop or not).
  const FootIkState& feet = lent.foot_ik_state();
  EXPECT_TRUE(feet.need[0] != 0.0f || feet.need[1] != 0.0f);
  ASSERT_TRUE(own.crossfade(0, 0.3f));
  ASSERT_TRUE(lent.crossfade(0, 0.3f));
  expect_same_updates(own, lent, buffers, 60, 1);
}

TEST(AnimatorUpdateBuffers, CharactersOfDifferentSkeletonsShareOneSetOfBuffers) {
  // As a daemon thread runs them: one after the other in the same buffers, the larger
  // skeleton first, then the smaller (whose entries are a prefix), then the larger again.
  const animtest::EveryFeatureRig rig;
  const Asset builtin = make_builtin_character();
  ASSERT_GT(builtin.skeleton.num_joints(), rig.skeleton.num_joints());
  Animator small_own(rig.skeleton, rig.clips);
  ASSERT_TRUE(rig.set_up(small_own));
  Animator small_lent = small_own;
  Animator big_own(builtin.skeleton, builtin.clips);
  ASSERT_TRUE(big_own.play(0));
  ASSERT_TRUE(big_own.crossfade(1, 1.0f));
  Animator big_lent = big_own;
  UpdateBuffers buffers;
  for (int i = 0; i < 90; ++i) {
    ASSERT_TRUE(big_own.update(kDt));
    ASSERT_TRUE(big_lent.update(kDt, buffers));
    ASSERT_TRUE(same_matrices(big_own.model_matrices(), lent_model(buffers, big_lent)));
    ASSERT_TRUE(small_own.update(kDt));
    ASSERT_TRUE(small_lent.update(kDt, buffers));
    ASSERT_TRUE(same_matrices(small_own.model_matrices(), lent_model(buffers, small_lent)));
    ASSERT_TRUE(same_locals(big_own, big_lent) && same_locals(small_own, small_lent)) << i;
  }
  big_lent.refresh_palette();
  small_lent.refresh_palette();
  EXPECT_TRUE(animtest::same_palettes(big_own.palette(), big_lent.palette()));
  EXPECT_TRUE(animtest::same_palettes(small_own.palette(), small_lent.palette()));
}

TEST(AnimatorUpdateBuffers, TheAnimatorsOwnMatricesWaitUntilRefreshed) {
  const Asset asset = make_builtin_character();
  Animator a(asset.skeleton, asset.clips);
  ASSERT_TRUE(a.play(1));
  ASSERT_TRUE(a.update(kDt));
  ASSERT_TRUE(a.model_current());
  ASSERT_TRUE(a.palette_current());
  const std::vector<glm::mat4> before(a.model_matrices().begin(), a.model_matrices().end());
  const std::vector<PaletteMatrix> palette(a.palette().begin(), a.palette().end());

  UpdateBuffers buffers;
  ASSERT_TRUE(a.update(0.25f, buffers));
  EXPECT_FALSE(a.model_current());
  EXPECT_FALSE(a.palette_current());
  // Untouched, not half written, and the pose did move.
  EXPECT_TRUE(same_matrices(a.model_matrices(), before));
  EXPECT_TRUE(animtest::same_palettes(a.palette(), palette));
  EXPECT_FALSE(same_matrices(lent_model(buffers, a), before)) << "the pose did not move";

  // A refused dt changes nothing, the flags included.
  EXPECT_FALSE(a.update(std::numeric_limits<float>::quiet_NaN(), buffers));
  EXPECT_FALSE(a.update(-1.0f, buffers));
  EXPECT_FALSE(a.model_current());

  const std::vector<glm::mat4> evaluated(lent_model(buffers, a).begin(),
                                         lent_model(buffers, a).end());
  a.refresh_model();
  EXPECT_TRUE(a.model_current());
  EXPECT_FALSE(a.palette_current());
  EXPECT_TRUE(same_matrices(a.model_matrices(), evaluated));
  a.refresh_palette();
  EXPECT_TRUE(a.palette_current());
  EXPECT_FALSE(animtest::same_palettes(a.palette(), palette));
  // An update of its own brings everything back in step.
  ASSERT_TRUE(a.update(kDt));
  EXPECT_TRUE(a.model_current());
  EXPECT_TRUE(a.palette_current());
}

TEST(AnimatorUpdateBuffers, WithoutWantedMatricesTheLocalsAreTheSame) {
  // A crossfading character: no IK step, so no matrices are written; the local pose is bit
  // for bit the one of an update that wrote them.
  const Asset builtin = make_builtin_character();
  Animator with(builtin.skeleton, builtin.clips), without(builtin.skeleton, builtin.clips);
  for (Animator* a : {&with, &without}) {
    ASSERT_TRUE(a->play(builtin.find_clip("walk")));
    ASSERT_TRUE(a->crossfade(builtin.find_clip("run"), 0.5f));
  }
  UpdateBuffers full, locals_only;
  locals_only.want_model = false;
  for (int i = 0; i < 60; ++i) {
    ASSERT_TRUE(with.update(kDt, full));
    ASSERT_TRUE(without.update(kDt, locals_only));
    EXPECT_TRUE(full.model_written);
    EXPECT_FALSE(locals_only.model_written) << "tick " << i;
    ASSERT_TRUE(same_locals(with, without)) << "tick " << i;
  }
  // Refreshed from the locals, the matrices are those the full update wrote.
  without.refresh_model();
  EXPECT_TRUE(same_matrices(lent_model(full, with), without.model_matrices()));
  // An IK goal needs the matrices: they are written all the same, and equal.
  const animtest::EveryFeatureRig rig;
  Animator a(rig.skeleton, rig.clips), b(rig.skeleton, rig.clips);
  ASSERT_TRUE(rig.set_up(a));
  ASSERT_TRUE(rig.set_up(b));
  for (int i = 0; i < 30; ++i) {
    ASSERT_TRUE(a.update(kDt, full));
    ASSERT_TRUE(b.update(kDt, locals_only));
    EXPECT_TRUE(locals_only.model_written) << "tick " << i;
    ASSERT_TRUE(same_locals(a, b)) << "tick " << i;
    ASSERT_TRUE(same_matrices(lent_model(full, a), lent_model(locals_only, b))) << "tick " << i;
  }
}

// update(dt, buffers, previous) against update(dt, buffers) on a twin: the same poses, and
// `previous` the pose from before each update. What `previous` held goes into the Animator's
// storage and is filled with NaN first: a joint the update did not write would show.
void expect_same_with_previous(Animator& plain, Animator& handing, int ticks) {
  UpdateBuffers buffers_a, buffers_b;
  std::vector<Transform> previous(handing.local_pose().locals.size());
  for (int i = 0; i < ticks; ++i) {
    const std::vector<Transform> before = handing.local_pose().locals;
    const float nan = std::numeric_limits<float>::quiet_NaN();
    for (Transform& t : previous)
      t = Transform{glm::vec3(nan), glm::quat(nan, nan, nan, nan), glm::vec3(nan)};
    const Transform* storage = previous.data();
    ASSERT_TRUE(plain.update(kDt, buffers_a));
    ASSERT_TRUE(handing.update(kDt, buffers_b, previous));
    ASSERT_TRUE(same_locals(plain, handing)) << "tick " << i;
    EXPECT_EQ(handing.local_pose().locals.data(), storage) << "storage exchanged, not copied";
    ASSERT_EQ(previous.size(), before.size());
    for (size_t j = 0; j < before.size(); ++j)
      ASSERT_TRUE(animtest::same_transform_bits(previous[j], before[j])) << i << " joint " << j;
  }
}

TEST(AnimatorUpdateBuffers, HandingOverThePreviousPoseChangesNoUpdate) {
  const animtest::EveryFeatureRig rig;
  Animator plain(rig.skeleton, rig.clips);
  ASSERT_TRUE(rig.set_up(plain));
  Animator handing = plain;
  expect_same_with_previous(plain, handing, 120);

  // Detail joints skipped: they are written too (the rest pose).
  Asset builtin = make_builtin_character();
  std::vector<int32_t> leaves;  // joints no other joint hangs from
  for (int32_t j = 0; j < builtin.skeleton.num_joints(); ++j)
    if (builtin.skeleton.parents[static_cast<size_t>(j)] >= 0 &&
        std::find(builtin.skeleton.parents.begin(), builtin.skeleton.parents.end(), j) ==
            builtin.skeleton.parents.end())
      leaves.push_back(j);
  ASSERT_TRUE(set_detail_joints(builtin, leaves));
  ASSERT_FALSE(builtin.skeleton.detail_joints.empty());
  Animator a(builtin.skeleton, builtin.clips);
  ASSERT_TRUE(a.play(builtin.find_clip("walk")));
  ASSERT_TRUE(a.crossfade(builtin.find_clip("run"), 0.5f));
  a.set_skip_detail(true);
  ASSERT_TRUE(a.skip_detail());
  Animator b = a;
  expect_same_with_previous(a, b, 40);

  // A `previous` of another size is resized and takes a copy.
  std::vector<Transform> small(2);
  UpdateBuffers buffers;
  const std::vector<Transform> before = b.local_pose().locals;
  ASSERT_TRUE(b.update(kDt, buffers, small));
  ASSERT_EQ(small.size(), before.size());
  for (size_t j = 0; j < before.size(); ++j)
    EXPECT_TRUE(animtest::same_transform_bits(small[j], before[j])) << "joint " << j;
  // A refused dt changes nothing.
  EXPECT_FALSE(b.update(-1.0f, buffers, small));
  for (size_t j = 0; j < before.size(); ++j)
    EXPECT_TRUE(animtest::same_transform_bits(small[j], before[j])) << "joint " << j;
}

}  // namespace animator_update_buffers_test
}  // namespace anim
