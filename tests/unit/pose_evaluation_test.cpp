// evaluate_pose: the inputs and setup an Animator's update() evaluated give the same pose
// again, bit for bit, from another scratch and without sampling cursors, under random
// sequences of every command (the contract the daemon's pose history relies on). And the
// setup is immutable: commands replace it, never change it.
#include <cstring>
#include <random>

#include <gtest/gtest.h>

#include "anim/pose_evaluation.h"

#include "anim_test_rig.h"

namespace anim {
namespace pose_evaluation_test {

// The Animator's last update evaluated again, with fresh scratch and no cursors.
struct Replay {
  std::vector<Transform> locals;
  std::vector<glm::mat4> model;
};
Replay replay(const Animator& a) {
  const int n = a.skeleton().num_joints();
  PoseInputs in = a.evaluated_inputs();
  // Copies without the Animator's cursors (caches only: they must not matter).
  in.base.cursor = nullptr;
  std::vector<FadeInput> fades(in.fades.begin(), in.fades.end());
  for (auto& f : fades) f.source.cursor = nullptr;
  std::vector<LayerInput> layers(in.layers.begin(), in.layers.end());
  for (auto& l : layers) l.cursor = nullptr;
  in.fades = fades;
  in.layers = layers;
  Replay out{std::vector<Transform>(n), std::vector<glm::mat4>(n)};
  PoseScratch scratch;  // sized by the evaluation
  evaluate_pose(a.skeleton(), a.clips(), in, a.evaluated_setup().get(), scratch,
                {out.locals, out.model});
  return out;
}

bool same_model(std::span<const glm::mat4> a, std::span<const glm::mat4> b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size_bytes()) == 0;
}

class PoseEvaluationTest : public ::testing::Test {
 protected:
  PoseEvaluationTest() {
    const int n = s_.num_joints();
    clips_.push_back(animtest::make_swing_clip("walk", n, 1.0f, 0.8f, {1, 0, 0}, 1.0f));
    clips_.push_back(animtest::make_swing_clip("run", n, 0.6f, -1.2f, {0, 0, 1}, 2.0f));
    clips_.push_back(animtest::make_swing_clip("idle", n, 2.0f, 0.3f, {0, 1, 0}));
    clips_.push_back(animtest::make_swing_clip("lean", n, 1.5f, 0.5f, {1, 0, 1}));
  }
  Skeleton s_ = animtest::make_rig();
  std::vector<Clip> clips_;
};

TEST_F(PoseEvaluationTest, BeforeAnyUpdateTheInputsGiveTheRestPose) {
  Animator a(s_, clips_);
  ASSERT_TRUE(a.set_root_transform({{1, 2, 3}, {1, 0, 0, 0}, {1, 1, 1}}));
  EXPECT_EQ(a.evaluated_inputs().base.clip, -1);
  EXPECT_EQ(a.evaluated_setup(), nullptr);
  const Replay r = replay(a);
  EXPECT_TRUE(same_model(r.model, a.model_matrices()));
}

TEST_F(PoseEvaluationTest, RandomCommandSequencesReplayBitForBit) {
  std::mt19937 rng(12345);
  auto uniform = [&](float lo, float hi) {
    return std::uniform_real_distribution<float>(lo, hi)(rng);
  };
  auto pick = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); };
  const IkSolver solvers[] = {IkSolver::kCcd, IkSolver::kFabrik, IkSolver::kTwoBone};
  int checked = 0, with_layers = 0, with_goals = 0, with_fades = 0, with_root_motion = 0;
  for (int run = 0; run < 6; ++run) {
    Animator a(s_, clips_);
    ASSERT_TRUE(a.play(pick(4)));
    std::vector<int> layers, goals;
    for (int step = 0; step < 250; ++step) {
      switch (pick(12)) {
        case 0:
          ASSERT_TRUE(a.crossfade(pick(4), uniform(0.05f, 0.8f),
                                  {.loop = pick(2) == 0,
                                   .speed = uniform(-1.5f, 2.0f),
                                   .sync_normalized_time = pick(2) == 0}));
          break;
        case 1:
          ASSERT_TRUE(a.set_speed(uniform(-2.0f, 2.0f)));
          break;
        case 2:
          if (layers.size() < 4) {
            AdditiveLayerDesc d;
            d.clip = pick(4);
            d.blend = pick(2) ? LayerBlend::kAdditive : LayerBlend::kOverride;
            d.weight = uniform(0.0f, 1.0f);
            d.time_source = static_cast<LayerTimeSource>(pick(3));
            d.speed = uniform(-1.0f, 2.0f);
            d.parameter = uniform(0.0f, 1.0f);
            if (pick(2)) d.mask = *JointMask::subtree(s_, s_.find_joint("chest"), 0.7f);
            auto id = a.add_layer(d);
            ASSERT_TRUE(id.has_value());
            layers.push_back(*id);
          }
          break;
        case 3:
          if (!layers.empty()) {
            const auto before = a.setup();
            ASSERT_TRUE(
                a.update_layer(layers[pick(static_cast<int>(layers.size()))],
                               {uniform(0.0f, 1.0f), uniform(-1.0f, 1.0f), uniform(0.0f, 1.0f)}));
            EXPECT_EQ(a.setup(), before);  // weights and clocks are inputs, not setup
          }
          break;
        case 4:
          if (!layers.empty()) {
            const int k = pick(static_cast<int>(layers.size()));
            ASSERT_TRUE(a.remove_layer(layers[k]));
            layers.erase(layers.begin() + k);
          }
          break;
        case 5:
          if (goals.size() < 3) {
            const IkSolver solver = solvers[pick(3)];
            IkGoalDesc g = solver == IkSolver::kTwoBone
                               ? animtest::goal("thigh", "foot", solver, {0.1f, -0.6f, 0.2f})
                               : animtest::goal("upper_arm", "hand", solver, {0.4f, 0.8f, 0.3f});
            g.space = pick(2) ? IkSpace::kWorld : IkSpace::kModel;
            g.weight = uniform(0.0f, 1.0f);
            g.has_pole = solver == IkSolver::kTwoBone && pick(2);
            g.pole = {0, -0.4f, 1};
            if (solver == IkSolver::kFabrik && pick(2)) {
              g.constraints.resize(3);
              g.constraints[0].kind = JointConstraint::Kind::kBallSocket;
              g.constraints[0].cone_angle = 0.8f;
            }
            auto id = a.set_ik_goal(g);
            ASSERT_TRUE(id.has_value()) << id.error().message();
            goals.push_back(*id);
          }
          break;
        case 6:
          if (!goals.empty()) {
            ASSERT_TRUE(a.update_ik_target(goals[pick(static_cast<int>(goals.size()))],
                                           {uniform(-0.5f, 0.5f), uniform(0.0f, 1.0f), 0.3f},
                                           uniform(0.0f, 1.0f)));
          }
          break;
        case 7:
          if (!goals.empty()) {
            const int k = pick(static_cast<int>(goals.size()));
            ASSERT_TRUE(a.clear_ik_goal(goals[k]));
            goals.erase(goals.begin() + k);
          }
          break;
        case 8:
          ASSERT_TRUE(a.set_root_transform({{uniform(-3, 3), 0, uniform(-3, 3)},
                                            animtest::axis_angle(uniform(0, 6), {0, 1, 0}),
                                            {1, 1, 1}}));
          break;
        case 9:
          a.set_ik_iteration_scale(uniform(0.05f, 1.0f));
          break;
        case 10:
          ASSERT_TRUE(a.play(pick(4), {.loop = pick(2) == 0, .speed = uniform(-1.0f, 1.0f)}));
          break;
        case 11: {
          // Root motion from the root or the spine; the record must carry it.
          RootMotionOptions o;
          o.mode = pick(3) == 0 ? RootMotionMode::kOff : RootMotionMode::kExtract;
          o.joint = pick(2) ? -1 : s_.find_joint("spine");
          o.extract_vertical = pick(2) == 0;
          ASSERT_TRUE(a.set_root_motion(o));
          break;
        }
        default:
          break;
      }
      ASSERT_TRUE(a.update(uniform(0.0f, 0.05f)));
      const Replay r = replay(a);
      ASSERT_TRUE(same_model(r.model, a.model_matrices())) << "run " << run << " step " << step;
      ASSERT_EQ(std::memcmp(r.locals.data(), a.local_pose().locals.data(),
                            r.locals.size() * sizeof(Transform)),
                0);
      ++checked;
      with_layers += a.num_layers() > 0;
      with_goals += a.num_ik_goals() > 0;
      with_fades += a.num_active_fades() > 0;
      with_root_motion += a.root_motion().mode == RootMotionMode::kExtract;
    }
  }
  EXPECT_EQ(checked, 1500);
  // The sequences did exercise every feature (the test can fail for each).
  EXPECT_GT(with_layers, 300);
  EXPECT_GT(with_goals, 300);
  EXPECT_GT(with_fades, 300);
  EXPECT_GT(with_root_motion, 300);
}

TEST_F(PoseEvaluationTest, CommandsReplaceTheSetupAndLeaveTheOldOneIntact) {
  Animator a(s_, clips_);
  ASSERT_TRUE(a.play(0));
  EXPECT_EQ(a.setup(), nullptr);  // no layer, no goal: no setup
  AdditiveLayerDesc d;
  d.clip = 3;
  auto layer = a.add_layer(d);
  ASSERT_TRUE(layer.has_value());
  const auto one = a.setup();
  ASSERT_NE(one, nullptr);
  ASSERT_EQ(one->layers.size(), 1u);
  ASSERT_TRUE(a.set_ik_goal(animtest::goal("thigh", "foot", IkSolver::kTwoBone, {0, -0.6f, 0.2f}))
                  .has_value());
  const auto two = a.setup();
  EXPECT_NE(two, one);
  EXPECT_EQ(one->layers.size(), 1u);  // the old one is unchanged
  EXPECT_TRUE(one->goals.empty());
  EXPECT_EQ(two->goals.size(), 1u);
  EXPECT_EQ(two->layers[0], one->layers[0]);  // shared, not copied
  // The update evaluates the current setup; until then the last one stays "evaluated".
  ASSERT_TRUE(a.update(0.01f));
  EXPECT_EQ(a.evaluated_setup(), two);
  ASSERT_TRUE(a.remove_layer(*layer));
  EXPECT_EQ(a.evaluated_setup(), two);
  EXPECT_EQ(a.setup()->layers.size(), 0u);
  EXPECT_EQ(a.setup()->goals.size(), 1u);
}

}  // namespace pose_evaluation_test
}  // namespace anim
