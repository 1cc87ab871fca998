// Foot-to-ground IK on the builtin character: a step and a slope standing (hand-computed
// needs and pelvis drop), walking up a slope and over a step (planted soles within 1 cm of the
// ground, no planted foot sliding more than 2 mm, pelvis drop = the lower foot's need), the
// stride curves of the walk, and weight 0 bit-identical to no foot IK.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>

#include <gtest/gtest.h>

#include "anim/animator.h"
#include "anim/loaders/builtin_character.h"

namespace anim {
namespace foot_ik_test {

const Asset& builtin() {
  static const Asset asset = make_builtin_character();
  return asset;
}

int clip_index(const char* name) {
  const auto& clips = builtin().clips;
  for (size_t i = 0; i < clips.size(); ++i)
    if (clips[i].name == name) return static_cast<int>(i);
  return -1;
}

constexpr float kSole = 0.09f;  // the builtin ankles are 9 cm above the ground at rest
const char* const kAnkles[2] = {"foot_l", "foot_r"};

glm::vec3 world_joint(const Animator& a, const char* joint) {
  const glm::mat4 m =
      to_matrix(a.root_transform()) * a.model_matrices()[a.skeleton().find_joint(joint)];
  return glm::vec3(m[3]);
}

TEST(FootIk, StandingOnAStepDropsThePelvisByTheLowerFootsNeed) {
  Animator a(builtin().skeleton, builtin().clips);
  ASSERT_TRUE(a.set_foot_ik({}).is_ok());
  GroundDesc g;
  g.kind = GroundDesc::Kind::kFootSamples;
  g.heights = {0.0f, -0.1f};  // the right foot stands 10 cm lower
  ASSERT_TRUE(a.set_ground(g).is_ok());
  ASSERT_TRUE(a.update(0.0f).is_ok());
  const FootIkState& st = a.foot_ik_state();
  EXPECT_NEAR(st.need[0], 0.0f, 1e-6f);
  EXPECT_NEAR(st.need[1], -0.1f, 1e-6f);
  EXPECT_NEAR(st.pelvis_drop, -0.1f, 1e-6f);
  EXPECT_NEAR(world_joint(a, "hips").y, 0.95f - 0.1f, 1e-5f);
  EXPECT_NEAR(world_joint(a, "foot_l").y, kSole, 1e-4f);
  EXPECT_NEAR(world_joint(a, "foot_r").y, kSole - 0.1f, 1e-4f);
  // The ankles stay over their rest spots; the left knee bends forward (+Z).
  EXPECT_NEAR(world_joint(a, "foot_l").x, 0.1f, 1e-4f);
  EXPECT_NEAR(world_joint(a, "foot_l").z, 0.0f, 1e-4f);
  EXPECT_GT(world_joint(a, "shin_l").z, 0.05f);
}

TEST(FootIk, StandingAcrossASideSlopeTiltsTheSolesAndDropsThePelvis) {
  const float theta = glm::radians(10.0f);  // the ground rises toward +X (the left foot)
  const glm::vec3 n(-std::sin(theta), std::cos(theta), 0.0f);
  Animator a(builtin().skeleton, builtin().clips);
  ASSERT_TRUE(a.set_foot_ik({}).is_ok());
  GroundDesc g;
  g.point = {0.0f, 0.0f, 0.0f};
  g.normal = n;
  ASSERT_TRUE(a.set_ground(g).is_ok());
  ASSERT_TRUE(a.update(0.0f).is_ok());
  // By hand: the sole point lies kSole below the ankle along the normal; it lands on the
  // plane y = x tan(theta), and the ankle is kSole above it along the normal.
  float need[2];
  for (int f = 0; f < 2; ++f) {
    const float x = f == 0 ? 0.1f : -0.1f;
    const float sole_x = x - n.x * kSole;
    need[f] = sole_x * std::tan(theta) + n.y * kSole - kSole;
  }
  const FootIkState& st = a.foot_ik_state();
  EXPECT_NEAR(st.need[0], need[0], 1e-5f);
  EXPECT_NEAR(st.need[1], need[1], 1e-5f);
  EXPECT_LT(need[1], 0.0f);
  EXPECT_NEAR(st.pelvis_drop, need[1], 1e-6f);
  EXPECT_NEAR(world_joint(a, "hips").y, 0.95f + need[1], 1e-5f);
  for (int f = 0; f < 2; ++f) {
    const glm::mat4 m = a.model_matrices()[a.skeleton().find_joint(kAnkles[f])];
    const glm::vec3 sole = glm::vec3(m[3]) - n * kSole;
    EXPECT_NEAR(glm::dot(n, sole), 0.0f, 1e-4f) << kAnkles[f];
    // The sole (the foot's up axis, identity at rest) follows the normal.
    const glm::vec3 up = glm::normalize(glm::vec3(m * glm::vec4(0, 1, 0, 0)));
    EXPECT_GT(glm::dot(up, n), std::cos(glm::radians(0.5f))) << kAnkles[f];
  }
}

TEST(FootIk, TiltIsClampedToMaxTilt) {
  const float theta = glm::radians(40.0f);
  Animator a(builtin().skeleton, builtin().clips);
  FootIkDesc d;
  d.max_tilt = glm::radians(20.0f);
  ASSERT_TRUE(a.set_foot_ik(d).is_ok());
  GroundDesc g;
  g.normal = {-std::sin(theta), std::cos(theta), 0.0f};
  ASSERT_TRUE(a.set_ground(g).is_ok());
  ASSERT_TRUE(a.update(0.0f).is_ok());
  for (const char* ankle : kAnkles) {
    const glm::mat4 m = a.model_matrices()[a.skeleton().find_joint(ankle)];
    const glm::vec3 up = glm::normalize(glm::vec3(m * glm::vec4(0, 1, 0, 0)));
    EXPECT_NEAR(glm::degrees(std::acos(std::clamp(up.y, -1.0f, 1.0f))), 20.0f, 0.1f) << ankle;
  }
}

TEST(FootIk, StrideCurvesOfTheWalkAlternate) {
  Animator a(builtin().skeleton, builtin().clips);
  ASSERT_TRUE(a.set_foot_ik({}).is_ok());
  const FootIkSetup& fs = *a.setup()->feet;
  const StrideCurves& walk = fs.strides[clip_index("walk")];
  const float duration = builtin().clips[clip_index("walk")].duration;
  float planted[2] = {0, 0};
  int both = 0, samples = 200;
  for (int i = 0; i < samples; ++i) {
    const float t = duration * static_cast<float>(i) / static_cast<float>(samples);
    const bool l = walk.planted(0, t), r = walk.planted(1, t);
    planted[0] += l, planted[1] += r;
    both += l && r;
  }
  // Each foot stands for about half of the cycle, and they take turns.
  for (int f = 0; f < 2; ++f) {
    EXPECT_GT(planted[f] / samples, 0.25f) << f;
    EXPECT_LT(planted[f] / samples, 0.75f) << f;
  }
  EXPECT_LT(both, samples / 4);
  // An in-place walk: the ground runs backward (-Z) under the character.
  EXPECT_LT(walk.ground_velocity.y, -0.5f);
  EXPECT_NEAR(walk.ground_velocity.x, 0.0f, 0.05f);
  // The idle stands on both feet all the time.
  const StrideCurves& idle = fs.strides[clip_index("idle")];
  for (int f = 0; f < 2; ++f) EXPECT_TRUE(idle.planted(f, 1.0f));
}

// Walks the builtin character along +Z at the walk's ground speed over `ground` (height and
// normal at a world xz), the game server sending per-foot samples under each foot every
// tick, the root on the ground under it. Checks every tick: planted soles within 1 cm of
// the ground, planted ankles sliding at most 2 mm, the pelvis drop = the lower foot's need.
struct Ground {
  std::function<float(float x, float z)> height;
  std::function<glm::vec3(float x, float z)> normal;
};

void walk_over(const Ground& ground, float max_edge_skip) {
  Animator a(builtin().skeleton, builtin().clips);
  Animator plain(builtin().skeleton, builtin().clips);
  ASSERT_TRUE(a.set_foot_ik({}).is_ok());
  const int walk = clip_index("walk");
  const float speed = -a.setup()->feet->strides[walk].ground_velocity.y;
  for (Animator* x : {&a, &plain}) ASSERT_TRUE(x->play(walk).is_ok());
  const float dt = 1.0f / 60.0f;
  float z = -1.0f;
  glm::vec3 last_ankle[2] = {{0.1f, 0, z}, {-0.1f, 0, z}};
  glm::vec3 plant_start[2];
  bool was_planted[2] = {false, false};
  int planted_checks = 0;
  float worst_gap = 0.0f, worst_slide = 0.0f;
  for (int tick = 0; tick < 180; ++tick) {
    z += speed * dt;
    Transform root;
    root.translation = {0.0f, ground.height(0.0f, z), z};
    ASSERT_TRUE(a.set_root_transform(root).is_ok());
    ASSERT_TRUE(plain.set_root_transform(root).is_ok());
    GroundDesc g;
    g.kind = GroundDesc::Kind::kFootSamples;
    for (int f = 0; f < 2; ++f) {
      g.heights[f] = ground.height(last_ankle[f].x, last_ankle[f].z);
      g.normals[f] = ground.normal(last_ankle[f].x, last_ankle[f].z);
    }
    ASSERT_TRUE(a.set_ground(g).is_ok());
    ASSERT_TRUE(a.update(dt).is_ok());
    ASSERT_TRUE(plain.update(dt).is_ok());
    const FootIkState& st = a.foot_ik_state();
    EXPECT_EQ(st.pelvis_drop, std::min(0.0f, std::min(st.need[0], st.need[1]))) << tick;
    EXPECT_NEAR(world_joint(a, "hips").y - world_joint(plain, "hips").y, st.pelvis_drop, 1e-4f);
    for (int f = 0; f < 2; ++f) {
      const glm::vec3 ankle = world_joint(a, kAnkles[f]);
      last_ankle[f] = ankle;
      if (!st.planted[f]) {
        was_planted[f] = false;
        continue;
      }
      if (!was_planted[f]) plant_start[f] = ankle;
      was_planted[f] = true;
      const float slide = glm::length(ankle - plant_start[f]);
      worst_slide = std::max(worst_slide, slide);
      EXPECT_LE(slide, 0.002f) << kAnkles[f] << " tick " << tick;
      const glm::vec3 n = ground.normal(ankle.x, ankle.z);
      const glm::vec3 sole = ankle - n * kSole;
      if (max_edge_skip > 0.0f && std::abs(sole.z - 0.5f) < max_edge_skip) continue;
      const float gap = sole.y - ground.height(sole.x, sole.z);
      worst_gap = std::max(worst_gap, std::abs(gap * n.y));
      EXPECT_LT(std::abs(gap * n.y), 0.01f) << kAnkles[f] << " tick " << tick;
      ++planted_checks;
    }
  }
  EXPECT_GT(planted_checks, 90);
  testing::Test::RecordProperty("worst_gap_mm", std::to_string(worst_gap * 1000.0f));
  testing::Test::RecordProperty("worst_slide_mm", std::to_string(worst_slide * 1000.0f));
}

TEST(FootIk, WalkingUpASlopeKeepsPlantedFeetOnTheGround) {
  const float theta = glm::radians(8.0f);  // rising toward +Z
  walk_over({[=](float, float z) { return z * std::tan(theta); },
             [=](float, float) { return glm::vec3(0.0f, std::cos(theta), -std::sin(theta)); }},
            0.0f);
}

TEST(FootIk, WalkingOverAStepKeepsPlantedFeetOnTheGround) {
  // 12 cm up at z = 0.5; a foot planted across the edge (10 cm either side) stands on the
  // height it was told, which the test does not second-guess.
  walk_over({[](float, float z) { return z >= 0.5f ? 0.12f : 0.0f; },
             [](float, float) { return glm::vec3(0.0f, 1.0f, 0.0f); }},
            0.1f);
}

TEST(FootIk, ReleasedLocksFadeOut) {
  Animator a(builtin().skeleton, builtin().clips);
  FootIkDesc d;
  d.release_time = 0.1f;
  ASSERT_TRUE(a.set_foot_ik(d).is_ok());
  ASSERT_TRUE(a.set_ground(GroundDesc{}).is_ok());
  ASSERT_TRUE(a.play(clip_index("walk")).is_ok());
  const float dt = 1.0f / 60.0f;
  int releases = 0;
  float before[2] = {0, 0};
  for (int tick = 0; tick < 120; ++tick) {
    ASSERT_TRUE(a.update(dt).is_ok());
    const FootIkState& st = a.foot_ik_state();
    for (int f = 0; f < 2; ++f) {
      if (st.planted[f]) {
        EXPECT_EQ(st.lock_weight[f], 1.0f);
      } else if (before[f] > 0.0f) {
        // Down by dt / release_time per tick, never a jump to 0.
        EXPECT_NEAR(st.lock_weight[f], std::max(0.0f, before[f] - dt / 0.1f), 1e-5f);
        if (before[f] == 1.0f) ++releases;
      }
      before[f] = st.lock_weight[f];
    }
  }
  EXPECT_GE(releases, 3);
}

TEST(FootIk, WeightZeroIsBitIdenticalToNoFootIk) {
  Animator plain(builtin().skeleton, builtin().clips);
  Animator a(builtin().skeleton, builtin().clips);
  FootIkDesc d;
  d.weight = 0.0f;
  ASSERT_TRUE(a.set_foot_ik(d).is_ok());
  GroundDesc g;
  g.normal = {0.2f, 1.0f, 0.1f};
  g.point = {0.0f, 0.3f, 0.0f};
  ASSERT_TRUE(a.set_ground(g).is_ok());
  for (Animator* x : {&plain, &a}) ASSERT_TRUE(x->play(clip_index("walk")).is_ok());
  for (int tick = 0; tick < 60; ++tick) {
    ASSERT_TRUE(plain.update(1.0f / 60.0f).is_ok());
    ASSERT_TRUE(a.update(1.0f / 60.0f).is_ok());
    ASSERT_EQ(std::memcmp(plain.palette().data(), a.palette().data(), plain.palette().size_bytes()),
              0)
        << tick;
  }
  ASSERT_TRUE(a.set_foot_ik_weight(1.0f).is_ok());
  ASSERT_TRUE(a.update(1.0f / 60.0f).is_ok());
  ASSERT_TRUE(plain.update(1.0f / 60.0f).is_ok());
  EXPECT_NE(std::memcmp(plain.palette().data(), a.palette().data(), plain.palette().size_bytes()),
            0);
}

TEST(FootIk, FindsTheLegsOfCommonRigsAndRefusesBadInput) {
  Animator a(builtin().skeleton, builtin().clips);
  ASSERT_TRUE(a.set_foot_ik({}).is_ok());
  const FootIkSetup& fs = *a.setup()->feet;
  EXPECT_EQ(fs.desc.legs[0].hip, "thigh_l");
  EXPECT_EQ(fs.desc.legs[0].knee, "shin_l");
  EXPECT_EQ(fs.desc.legs[1].ankle, "foot_r");
  EXPECT_EQ(fs.desc.pelvis, "hips");
  EXPECT_NEAR(fs.legs[0].sole_offset, kSole, 1e-6f);
  EXPECT_NEAR(fs.legs[1].length, 0.82f, 1e-5f);

  Animator b(builtin().skeleton, builtin().clips);
  const auto refused = [&](const FootIkDesc& d, StatusCode code, const char* words) {
    const Status s = b.set_foot_ik(d);
    EXPECT_EQ(s.code(), code) << s.message();
    EXPECT_NE(s.message().find(words), std::string::npos) << s.message();
    EXPECT_FALSE(b.has_foot_ik());
  };
  FootIkDesc d;
  d.legs[0].ankle = "nope";
  refused(d, StatusCode::kNotFound, "nope");
  d = {};
  d.legs[1].knee = "thigh_r";  // not the ankle's parent
  refused(d, StatusCode::kInvalidArgument, "parent");
  d = {};
  d.legs[1] = d.legs[0] = {"thigh_l", "shin_l", "foot_l", ""};
  refused(d, StatusCode::kInvalidArgument, "share");
  d = {};
  d.pelvis = "head";
  refused(d, StatusCode::kInvalidArgument, "pelvis");
  d = {};
  d.max_tilt = 2.0f;
  refused(d, StatusCode::kInvalidArgument, "max_tilt");
  d = {};
  d.weight = NAN;
  refused(d, StatusCode::kInvalidArgument, "weight");
  d = {};
  d.sole_offsets[0] = INFINITY;
  refused(d, StatusCode::kInvalidArgument, "sole offset");
  d = {};
  d.release_time = -1.0f;
  refused(d, StatusCode::kInvalidArgument, "release_time");
  d = {};
  d.contact_speed = NAN;
  refused(d, StatusCode::kInvalidArgument, "contact_speed");

  GroundDesc g;
  g.normal = {0.0f, -1.0f, 0.0f};
  EXPECT_EQ(b.set_ground(g).code(), StatusCode::kInvalidArgument);
  g.normal = {0.0f, 1.0f, 0.0f};
  g.point = {NAN, 0.0f, 0.0f};
  EXPECT_EQ(b.set_ground(g).code(), StatusCode::kInvalidArgument);
  g = {};
  g.kind = GroundDesc::Kind::kFootSamples;
  g.heights[1] = INFINITY;
  const Status s = b.set_ground(g);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("right foot height"), std::string::npos) << s.message();
  EXPECT_EQ(b.set_foot_ik_weight(0.5f).code(), StatusCode::kNotFound);
  EXPECT_EQ(b.clear_foot_ik().code(), StatusCode::kNotFound);
  EXPECT_TRUE(a.clear_foot_ik().is_ok());
  EXPECT_EQ(a.setup(), nullptr);
}

TEST(FootIk, EvaluatedInputsReproduceThePoseBitForBit) {
  // What the daemon's pose history relies on: the recorded inputs (ground, weights, locks and
  // captures) and the setup give the same model matrices again, with aim IK on as well.
  Animator a(builtin().skeleton, builtin().clips);
  ASSERT_TRUE(a.set_foot_ik({}).is_ok());
  AimIkDesc aim;
  aim.root_joint = "chest";
  aim.end_joint = "head";
  aim.target = {1.0f, 1.5f, 2.0f};
  aim.space = IkSpace::kWorld;
  ASSERT_TRUE(a.set_aim_ik(aim).is_ok());
  ASSERT_TRUE(a.play(clip_index("walk")).is_ok());
  GroundDesc g;
  g.normal = {0.0f, 1.0f, -0.1f};
  ASSERT_TRUE(a.set_ground(g).is_ok());
  PoseScratch scratch;
  std::vector<Transform> locals(builtin().skeleton.num_joints());
  std::vector<glm::mat4> model(locals.size());
  int captures = 0;
  for (int tick = 0; tick < 90; ++tick) {
    Transform root;
    root.translation = {0.0f, 0.0f, 0.018f * static_cast<float>(tick)};
    ASSERT_TRUE(a.set_root_transform(root).is_ok());
    ASSERT_TRUE(a.update(1.0f / 60.0f).is_ok());
    PoseInputs in = a.evaluated_inputs();
    in.base.cursor = nullptr;
    captures += in.feet.locks[0].capture + in.feet.locks[1].capture;
    evaluate_pose(builtin().skeleton, builtin().clips, in, a.evaluated_setup().get(), scratch,
                  {locals, model});
    ASSERT_EQ(
        std::memcmp(model.data(), a.model_matrices().data(), model.size() * sizeof(glm::mat4)), 0)
        << tick;
  }
  EXPECT_GE(captures, 4);
}

}  // namespace foot_ik_test
}  // namespace anim
