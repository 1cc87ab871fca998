// The Animator on the built-in character (no files needed): locomotion crossfades with
// sync, the "lean" additive layer against its first frame, an upper-body mask, and IK on
// its arms and legs (units are metres: 1 mm = 1e-3).
#include <cmath>
#include <cstring>

#include <gtest/gtest.h>

#include "anim/animator.h"
#include "anim/blend.h"
#include "anim/loaders/builtin_character.h"

namespace anim {
namespace animator_builtin_test {

const Asset& builtin() {
  static const Asset asset = make_builtin_character();
  return asset;
}

int clip(const char* name) {
  const int i = builtin().find_clip(name);
  EXPECT_GE(i, 0) << "builtin character has no clip '" << name << "'";
  return i;
}

glm::vec3 position(const Animator& a, int joint) {
  return glm::vec3(a.model_matrices()[joint][3]);
}

bool all_finite(std::span<const PaletteMatrix> palette) {
  for (const PaletteMatrix& p : palette)
    for (float v : p.m)
      if (!std::isfinite(v)) return false;
  return true;
}

TEST(BuiltinAnimator, LocomotionCrossfadesEndOnTheTargetExactly) {
  const Asset& a = builtin();
  Animator anim(a.skeleton, a.clips);
  ASSERT_TRUE(anim.play(clip("idle")));
  for (int i = 0; i < 30; ++i) ASSERT_TRUE(anim.update(1.0f / 60));
  ASSERT_TRUE(anim.crossfade(clip("walk"), 0.3f));
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(anim.update(1.0f / 60));
  ASSERT_TRUE(anim.crossfade(clip("run"), 0.4f, {.sync_normalized_time = true}));
  EXPECT_EQ(anim.num_active_fades(), 2);
  for (int i = 0; i < 60; ++i) {
    ASSERT_TRUE(anim.update(1.0f / 60));
    ASSERT_TRUE(all_finite(anim.palette()));
  }
  EXPECT_EQ(anim.num_active_fades(), 0);
  EXPECT_EQ(anim.current_clip(), clip("run"));
  ASSERT_TRUE(anim.update(1.0f / 60));
  Animator fresh(a.skeleton, a.clips);
  ASSERT_TRUE(fresh.play(clip("run"), {.start_time = anim.current_clip_time()}));
  ASSERT_TRUE(fresh.update(0.0f));
  for (size_t j = 0; j < anim.palette().size(); ++j)
    EXPECT_EQ(std::memcmp(&anim.palette()[j], &fresh.palette()[j], sizeof(PaletteMatrix)), 0);
}

TEST(BuiltinAnimator, LeanLayerAtItsReferenceChangesNothingAndLeansLater) {
  const Asset& a = builtin();
  Animator plain(a.skeleton, a.clips), leaning(a.skeleton, a.clips);
  for (Animator* x : {&plain, &leaning}) ASSERT_TRUE(x->play(clip("walk")));
  AdditiveLayerDesc d;
  d.clip = clip("lean");
  d.time_source = LayerTimeSource::kParameter;
  d.parameter = 0.0f;  // the first frame: the reference itself
  auto id = leaning.add_layer(d);
  ASSERT_TRUE(id.has_value());
  for (Animator* x : {&plain, &leaning}) ASSERT_TRUE(x->update(0.2f));
  float worst = 0.0f;
  for (size_t j = 0; j < plain.palette().size(); ++j)
    for (int k = 0; k < 12; ++k)
      worst = std::max(worst, std::abs(plain.palette()[j].m[k] - leaning.palette()[j].m[k]));
  EXPECT_LT(worst, 1e-5f);
  ASSERT_TRUE(leaning.update_layer(*id, {.weight = 1.0f, .speed = 1.0f, .parameter = 0.5f}));
  for (Animator* x : {&plain, &leaning}) ASSERT_TRUE(x->update(0.0f));
  worst = 0.0f;
  for (size_t j = 0; j < plain.palette().size(); ++j)
    for (int k = 0; k < 12; ++k)
      worst = std::max(worst, std::abs(plain.palette()[j].m[k] - leaning.palette()[j].m[k]));
  EXPECT_GT(worst, 1e-3f);  // the lean does something half-way through its clip
}

TEST(BuiltinAnimator, UpperBodyMaskFromTheChest) {
  const Asset& a = builtin();
  const Skeleton& s = a.skeleton;
  auto upper = JointMask::subtree(s, s.find_joint("chest"));
  ASSERT_TRUE(upper.has_value());
  const int n = s.num_joints();
  std::vector<Transform> walk(n), wave(n), out(n);
  a.clips[clip("walk")].sample(0.3f, s.rest_pose, walk);
  a.clips[clip("wave")].sample(0.6f, s.rest_pose, wave);
  blend(walk, wave, 1.0f, *upper, out);
  for (const char* in : {"chest", "neck", "head", "hand_l", "forearm_r"})
    EXPECT_EQ(std::memcmp(&out[s.find_joint(in)], &wave[s.find_joint(in)], sizeof(Transform)), 0)
        << in;
  for (const char* outside : {"root", "hips", "spine", "thigh_l", "toe_r"})
    EXPECT_EQ(
        std::memcmp(&out[s.find_joint(outside)], &walk[s.find_joint(outside)], sizeof(Transform)),
        0)
        << outside;
}

TEST(BuiltinAnimator, IkReachesTargetsOnArmsAndLegs) {
  const Asset& a = builtin();
  const Skeleton& s = a.skeleton;
  struct Case {
    const char* root;
    const char* effector;
    IkSolver solver;
    float tolerance;
  };
  const Case cases[] = {
      {"thigh_l", "foot_l", IkSolver::kTwoBone, 1e-4f},
      {"thigh_r", "foot_r", IkSolver::kTwoBone, 1e-4f},
      {"upper_arm_l", "hand_l", IkSolver::kTwoBone, 1e-4f},
      {"shoulder_l", "hand_l", IkSolver::kCcd, 1e-3f},
      {"shoulder_r", "hand_r", IkSolver::kFabrik, 1e-3f},
      {"thigh_l", "toe_l", IkSolver::kFabrik, 1e-3f},
      {"spine", "hand_r", IkSolver::kCcd, 1e-3f},
  };
  for (const Case& c : cases) {
    Animator anim(s, a.clips);
    ASSERT_TRUE(anim.play(clip("walk")));
    ASSERT_TRUE(anim.update(0.3f));
    const int root = s.find_joint(c.root), eff = s.find_joint(c.effector);
    ASSERT_GE(root, 0) << c.root;
    ASSERT_GE(eff, 0) << c.effector;
    const glm::vec3 r = position(anim, root), e = position(anim, eff);
    const float len = glm::length(e - r);
    const glm::vec3 target = e + 0.3f * (r - e) + glm::vec3(0.1f * len, 0.0f, 0.15f * len);
    IkGoalDesc g;
    g.root_joint = c.root;
    g.effector_joint = c.effector;
    g.solver = c.solver;
    g.target = target;
    g.max_iterations = 32;
    g.tolerance = 1e-4f;
    g.has_pole = c.solver == IkSolver::kTwoBone;
    g.pole = r + glm::vec3(0, 0, 1);
    ASSERT_TRUE(anim.set_ik_goal(g).has_value()) << c.root;
    ASSERT_TRUE(anim.update(0.0f));
    EXPECT_LT(glm::length(position(anim, eff) - target), c.tolerance)
        << c.root << ".." << c.effector;
  }
}

}  // namespace animator_builtin_test
}  // namespace anim
