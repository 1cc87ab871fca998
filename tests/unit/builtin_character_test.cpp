// The built-in character: rig names and hierarchy, rest pose, mesh invariants, seamless
// loops, the additive "lean" clip and the "jump" played once.
#include "anim/loaders/builtin_character.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "anim/clip_time.h"
#include "anim/palette.h"

namespace anim {
namespace builtin_character_test {

const Asset& character() {
  static const Asset asset = make_builtin_character();
  return asset;
}

std::vector<Transform> sample_pose(const Asset& a, const Clip& clip, float t) {
  std::vector<Transform> pose(a.skeleton.num_joints());
  clip.sample(t, a.skeleton.rest_pose, pose);
  return pose;
}

std::vector<glm::mat4> model_of(const Asset& a, const std::vector<Transform>& pose) {
  std::vector<glm::mat4> model(a.skeleton.num_joints());
  local_to_model(a.skeleton, pose, model);
  return model;
}

glm::vec3 joint_position(const Asset& a, const std::vector<Transform>& pose, const char* name) {
  return glm::vec3(model_of(a, pose)[a.skeleton.find_joint(name)][3]);
}

// The angle of the rotation from a to b. 4 atan(|a - b| / |a + b|) (b on a's side) rather
// than 2 acos(|dot|), which turns a 1-ulp difference of unit quaternions into 1e-3 rad.
float rotation_angle(const glm::quat& a, const glm::quat& b_in) {
  const glm::quat b = glm::dot(a, b_in) < 0.0f ? -b_in : b_in;
  return 4.0f * std::atan2(glm::length(a - b), glm::length(a + b));
}

// Largest per-joint difference between two poses: rotation angle (radians) and translation
// distance (metres), whichever is larger.
float pose_distance(const std::vector<Transform>& a, const std::vector<Transform>& b) {
  float worst = 0.0f;
  for (size_t j = 0; j < a.size(); ++j) {
    worst = std::max(worst, rotation_angle(a[j].rotation, b[j].rotation));
    worst = std::max(worst, glm::length(a[j].translation - b[j].translation));
    worst = std::max(worst, glm::length(a[j].scale - b[j].scale));
  }
  return worst;
}

const char* const kJointNames[] = {
    "root",       "hips",        "spine",     "chest",  "neck",       "head",
    "shoulder_l", "upper_arm_l", "forearm_l", "hand_l", "shoulder_r", "upper_arm_r",
    "forearm_r",  "hand_r",      "thigh_l",   "shin_l", "foot_l",     "toe_l",
    "thigh_r",    "shin_r",      "foot_r",    "toe_r"};

TEST(BuiltinCharacter, HasTheDocumentedRig) {
  const Asset& a = character();
  EXPECT_EQ(a.name, "builtin");
  EXPECT_EQ(a.source, "builtin");
  EXPECT_TRUE(a.warnings.empty());
  const Skeleton& s = a.skeleton;
  ASSERT_EQ(s.num_joints(), 22);
  EXPECT_TRUE(s.validate().is_ok()) << s.validate().message();
  for (const char* name : kJointNames) EXPECT_GE(s.find_joint(name), 0) << name;

  auto parent_name = [&](const char* name) -> std::string {
    const int p = s.parents[s.find_joint(name)];
    return p < 0 ? "" : s.names[p];
  };
  EXPECT_EQ(parent_name("root"), "");
  EXPECT_EQ(parent_name("hips"), "root");
  EXPECT_EQ(parent_name("spine"), "hips");
  EXPECT_EQ(parent_name("chest"), "spine");
  EXPECT_EQ(parent_name("neck"), "chest");
  EXPECT_EQ(parent_name("head"), "neck");
  for (const char* sfx : {"_l", "_r"}) {
    auto n = [&](const char* base) { return std::string(base) + sfx; };
    EXPECT_EQ(parent_name(n("shoulder").c_str()), "chest");
    EXPECT_EQ(parent_name(n("upper_arm").c_str()), n("shoulder"));
    EXPECT_EQ(parent_name(n("forearm").c_str()), n("upper_arm"));
    EXPECT_EQ(parent_name(n("hand").c_str()), n("forearm"));
    EXPECT_EQ(parent_name(n("thigh").c_str()), "hips");
    EXPECT_EQ(parent_name(n("shin").c_str()), n("thigh"));
    EXPECT_EQ(parent_name(n("foot").c_str()), n("shin"));
    EXPECT_EQ(parent_name(n("toe").c_str()), n("foot"));
  }
}

TEST(BuiltinCharacter, RestPoseStandsUprightFacingPlusZ) {
  const Asset& a = character();
  const std::vector<Transform>& rest = a.skeleton.rest_pose;
  EXPECT_NEAR(glm::length(joint_position(a, rest, "root")), 0.0f, 1e-6f);
  const glm::vec3 hips = joint_position(a, rest, "hips");
  const glm::vec3 head = joint_position(a, rest, "head");
  EXPECT_GT(hips.y, 0.8f);
  EXPECT_LT(hips.y, 1.1f);
  EXPECT_GT(head.y, 1.45f);
  EXPECT_LT(head.y, 1.75f);
  // Left is +X (facing +Z, Y up), toes point forward, ankles near the ground.
  EXPECT_GT(joint_position(a, rest, "hand_l").x, 0.2f);
  EXPECT_LT(joint_position(a, rest, "hand_r").x, -0.2f);
  EXPECT_GT(joint_position(a, rest, "toe_l").z, joint_position(a, rest, "foot_l").z + 0.05f);
  EXPECT_LT(joint_position(a, rest, "foot_l").y, 0.15f);
  // A-pose: hands below the shoulders and further out than the elbows.
  const glm::vec3 hand = joint_position(a, rest, "hand_l");
  const glm::vec3 elbow = joint_position(a, rest, "forearm_l");
  const glm::vec3 shoulder = joint_position(a, rest, "upper_arm_l");
  EXPECT_LT(hand.y, elbow.y);
  EXPECT_LT(elbow.y, shoulder.y);
  EXPECT_GT(hand.x, elbow.x);
  EXPECT_GT(elbow.x, shoulder.x);
}

TEST(BuiltinCharacter, RestPalettesAreIdentity) {
  const Asset& a = character();
  const std::vector<glm::mat4> model = model_of(a, a.skeleton.rest_pose);
  std::vector<PaletteMatrix> palette(a.skeleton.num_joints());
  build_palette(a.skeleton, model, palette);
  for (int j = 0; j < a.skeleton.num_joints(); ++j)
    for (int k = 0; k < 12; ++k)
      EXPECT_NEAR(palette[j].m[k], (k == 0 || k == 5 || k == 10) ? 1.0f : 0.0f, 1e-5f)
          << a.skeleton.names[j] << " element " << k;
}

TEST(BuiltinCharacter, MeshKeepsTheSkinnedMeshInvariants) {
  const SkinnedMesh& m = character().mesh;
  const int n = m.num_vertices();
  ASSERT_GT(n, 0);
  EXPECT_EQ(m.normals.size(), static_cast<size_t>(n));
  EXPECT_EQ(m.uvs.size(), static_cast<size_t>(n));
  EXPECT_EQ(m.joints.size(), static_cast<size_t>(n));
  EXPECT_EQ(m.weights.size(), static_cast<size_t>(n));
  for (int v = 0; v < n; ++v) {
    const glm::vec4 w = m.weights[v];
    for (int k = 0; k < 4; ++k) {
      EXPECT_GE(w[k], 0.0f) << "vertex " << v;
      EXPECT_LT(m.joints[v][k], 22) << "vertex " << v;
    }
    EXPECT_NEAR(w.x + w.y + w.z + w.w, 1.0f, 1e-5f) << "vertex " << v;
    EXPECT_NEAR(glm::length(m.normals[v]), 1.0f, 1e-4f) << "vertex " << v;
    ASSERT_TRUE(std::isfinite(m.positions[v].x + m.positions[v].y + m.positions[v].z));
  }
  ASSERT_EQ(m.indices.size() % 3, 0u);
  EXPECT_GE(m.indices.size() / 3, 500u);
  EXPECT_LE(m.indices.size() / 3, 5000u);
  for (uint32_t i : m.indices) ASSERT_LT(i, static_cast<uint32_t>(n));
  // Submeshes tile the index array in order, each a whole number of triangles.
  uint32_t next = 0;
  for (const Submesh& s : m.submeshes) {
    EXPECT_EQ(s.first_index, next);
    EXPECT_EQ(s.index_count % 3, 0u);
    EXPECT_FALSE(s.material.empty());
    next += s.index_count;
  }
  EXPECT_EQ(next, m.indices.size());
}

TEST(BuiltinCharacter, MeshIsPersonSizedWithFeetOnTheGround) {
  const SkinnedMesh& m = character().mesh;
  glm::vec3 lo(1e9f), hi(-1e9f);
  for (const glm::vec3& p : m.positions) {
    lo = glm::min(lo, p);
    hi = glm::max(hi, p);
  }
  EXPECT_GT(hi.y, 1.7f);
  EXPECT_LT(hi.y, 1.9f);
  EXPECT_NEAR(lo.y, 0.0f, 0.01f);
  // Narrower than tall, symmetric about x = 0.
  EXPECT_LT(hi.x - lo.x, 1.0f);
  EXPECT_NEAR(hi.x, -lo.x, 1e-4f);
}

TEST(BuiltinCharacter, TrianglesFaceOutward) {
  // For a closed surface made of outward-wound triangles, the signed volume is positive and
  // each triangle's geometric normal agrees with its vertex normals on average.
  const SkinnedMesh& m = character().mesh;
  double volume = 0.0;
  int disagree = 0;
  for (size_t i = 0; i < m.indices.size(); i += 3) {
    const glm::vec3 a = m.positions[m.indices[i]], b = m.positions[m.indices[i + 1]],
                    c = m.positions[m.indices[i + 2]];
    volume += glm::dot(a, glm::cross(b, c)) / 6.0;
    const glm::vec3 face = glm::cross(b - a, c - a);
    const glm::vec3 vn =
        m.normals[m.indices[i]] + m.normals[m.indices[i + 1]] + m.normals[m.indices[i + 2]];
    if (glm::dot(face, vn) < 0.0f) ++disagree;
  }
  EXPECT_GT(volume, 0.03);  // a person is roughly 0.05-0.1 m^3; overlapping parts add up
  EXPECT_EQ(disagree, 0);
}

TEST(BuiltinCharacter, HasTheDocumentedClips) {
  const Asset& a = character();
  struct Expect {
    const char* name;
    float duration;
  };
  for (Expect e : {Expect{"idle", 3.0f}, Expect{"walk", 1.0f}, Expect{"run", 0.7f},
                   Expect{"wave", 2.0f}, Expect{"lean", 2.0f}, Expect{"jump", 1.2f}}) {
    const int i = a.find_clip(e.name);
    ASSERT_GE(i, 0) << e.name;
    EXPECT_FLOAT_EQ(a.clips[i].duration, e.duration) << e.name;
    EXPECT_EQ(a.clips[i].joints.size(), 22u);
  }
  EXPECT_EQ(a.clips.size(), 6u);
  // Clips added later come after the older ones, whose indices stay the same.
  EXPECT_EQ(a.find_clip("lean"), 4);
  EXPECT_EQ(a.find_clip("jump"), 5);
  // No root motion: the root joint is never animated.
  const int root = a.skeleton.find_joint("root");
  for (const Clip& c : a.clips) {
    EXPECT_EQ(c.joints[root].translation, -1) << c.name;
    EXPECT_EQ(c.joints[root].rotation, -1) << c.name;
    EXPECT_EQ(c.joints[root].scale, -1) << c.name;
  }
}

TEST(BuiltinCharacter, EveryClipLoopsWithoutAJump) {
  const Asset& a = character();
  for (const Clip& clip : a.clips) {
    SCOPED_TRACE(clip.name);
    const std::vector<Transform> start = sample_pose(a, clip, 0.0f);
    const std::vector<Transform> end = sample_pose(a, clip, clip.duration - 1e-4f);
    EXPECT_LT(pose_distance(start, end), 1e-3f);

    // Walk around the loop in steps not aligned with the keys; the step across the wrap
    // must be no larger than the largest step elsewhere.
    constexpr int kSteps = 97;
    const float dt = clip.duration / kSteps;
    std::vector<std::vector<Transform>> poses;
    for (int k = 0; k < kSteps; ++k)
      poses.push_back(
          sample_pose(a, clip, wrap_clip_time(0.013f + k * dt, clip.duration, WrapMode::kLoop)));
    float largest = 0.0f, across = 0.0f;
    for (int k = 0; k < kSteps; ++k) {
      const float step = pose_distance(poses[k], poses[(k + 1) % kSteps]);
      const float t0 = 0.013f + k * dt;
      const bool wraps = t0 < clip.duration && t0 + dt >= clip.duration;
      if (wraps)
        across = step;
      else
        largest = std::max(largest, step);
    }
    EXPECT_GT(largest, 0.0f);  // the clip moves
    EXPECT_LE(across, largest + 1e-4f);
  }
}

TEST(BuiltinCharacter, PalettesAreFiniteForEveryClipAtManyTimes) {
  const Asset& a = character();
  std::vector<PaletteMatrix> palette(a.skeleton.num_joints());
  for (const Clip& clip : a.clips) {
    for (float t = -1.0f; t < 2.0f * clip.duration + 1.0f; t += 0.0371f) {
      const float ct = wrap_clip_time(t, clip.duration, WrapMode::kLoop);
      const std::vector<glm::mat4> model = model_of(a, sample_pose(a, clip, ct));
      build_palette(a.skeleton, model, palette);
      for (const PaletteMatrix& p : palette)
        for (float v : p.m) ASSERT_TRUE(std::isfinite(v)) << clip.name << " at " << t;
    }
  }
}

TEST(BuiltinCharacter, WalkSwingsTheLegsAndArmsInOpposition) {
  const Asset& a = character();
  const Clip& walk = a.clips[a.find_clip("walk")];
  // A quarter cycle in, the left leg is forward and the right back, and the right arm is
  // forward; half a cycle later it is the other way round.
  for (int half = 0; half < 2; ++half) {
    const float t = walk.duration * (0.25f + 0.5f * half);
    const std::vector<Transform> pose = sample_pose(a, walk, t);
    const float sign = half == 0 ? 1.0f : -1.0f;
    const float feet = joint_position(a, pose, "foot_l").z - joint_position(a, pose, "foot_r").z;
    const float hands = joint_position(a, pose, "hand_r").z - joint_position(a, pose, "hand_l").z;
    EXPECT_GT(sign * feet, 0.2f) << "t = " << t;
    EXPECT_GT(sign * hands, 0.1f) << "t = " << t;
  }
  // The hips bob: their height varies by a few centimetres over the cycle.
  float lo = 10.0f, hi = -10.0f;
  for (float t = 0.0f; t < walk.duration; t += 0.01f) {
    const float y = joint_position(a, sample_pose(a, walk, t), "hips").y;
    lo = std::min(lo, y);
    hi = std::max(hi, y);
  }
  EXPECT_GT(hi - lo, 0.01f);
  EXPECT_LT(hi - lo, 0.1f);
}

// Lowest point of the mesh skinned with the clip's pose at time t.
float lowest_skinned_vertex(const Asset& a, const Clip& clip, float t) {
  const std::vector<glm::mat4> model = model_of(a, sample_pose(a, clip, t));
  float lowest = INFINITY;
  for (int v = 0; v < a.mesh.num_vertices(); ++v) {
    glm::vec4 p(0.0f);
    for (int k = 0; k < 4; ++k) {
      const int j = a.mesh.joints[v][k];
      p += a.mesh.weights[v][k] *
           (model[j] * a.skeleton.inverse_bind[j] * glm::vec4(a.mesh.positions[v], 1.0f));
    }
    lowest = std::min(lowest, p.y);
  }
  return lowest;
}

TEST(BuiltinCharacter, FeetStayOnTheGround) {
  const Asset& a = character();
  for (const Clip& clip : a.clips) {
    float lowest = INFINITY, highest = -INFINITY;
    for (int k = 0; k < 35; ++k) {
      const float y = lowest_skinned_vertex(a, clip, clip.duration * static_cast<float>(k) / 35);
      lowest = std::min(lowest, y);
      highest = std::max(highest, y);
    }
    // Never sinks more than a centimetre into the ground.
    EXPECT_GT(lowest, -0.01f) << clip.name;
    // Only the run and the jump have a flight phase; everything else keeps a foot on the
    // ground.
    if (clip.name == "run" || clip.name == "jump")
      EXPECT_GT(highest, 0.03f) << clip.name;
    else
      EXPECT_LT(highest, 0.01f) << clip.name;
  }
}

TEST(BuiltinCharacter, WaveHoldsTheRightHandAboveTheHead) {
  const Asset& a = character();
  const Clip& wave = a.clips[a.find_clip("wave")];
  float lo_x = 10.0f, hi_x = -10.0f;
  for (float t = 0.0f; t < wave.duration; t += 0.02f) {
    const std::vector<Transform> pose = sample_pose(a, wave, t);
    const glm::vec3 hand = joint_position(a, pose, "hand_r");
    EXPECT_GT(hand.y, joint_position(a, pose, "head").y) << "t = " << t;
    lo_x = std::min(lo_x, hand.x);
    hi_x = std::max(hi_x, hand.x);
    // The left hand stays down.
    EXPECT_LT(joint_position(a, pose, "hand_l").y, 1.0f);
  }
  EXPECT_GT(hi_x - lo_x, 0.1f);  // the hand waves side to side
}

TEST(BuiltinCharacter, LeanStartsAtRestAndMovesSpineAndChest) {
  const Asset& a = character();
  const Clip& lean = a.clips[a.find_clip("lean")];
  const std::vector<Transform> first = sample_pose(a, lean, 0.0f);
  int animated = 0;
  for (int j = 0; j < a.skeleton.num_joints(); ++j) {
    const JointChannels& c = lean.joints[j];
    if (c.rotation < 0 && c.translation < 0 && c.scale < 0) continue;
    ++animated;
    const Transform& rest = a.skeleton.rest_pose[j];
    EXPECT_LT(rotation_angle(first[j].rotation, rest.rotation), 1e-5f) << a.skeleton.names[j];
    EXPECT_LT(glm::length(first[j].translation - rest.translation), 1e-6f);
  }
  EXPECT_GE(animated, 2);
  const int spine = a.skeleton.find_joint("spine"), chest = a.skeleton.find_joint("chest");
  EXPECT_GE(lean.joints[spine].rotation, 0);
  EXPECT_GE(lean.joints[chest].rotation, 0);
  // A quarter in, the torso leans sideways by several degrees; half way, it leans back.
  const std::vector<Transform> side = sample_pose(a, lean, 0.25f * lean.duration);
  const std::vector<Transform> back = sample_pose(a, lean, 0.5f * lean.duration);
  EXPECT_GT(rotation_angle(side[spine].rotation, first[spine].rotation), glm::radians(5.0f));
  const glm::vec3 head_rest = joint_position(a, first, "head");
  EXPECT_GT(std::abs(joint_position(a, side, "head").x - head_rest.x), 0.05f);
  EXPECT_LT(joint_position(a, back, "head").z, head_rest.z - 0.03f);
}

TEST(BuiltinCharacter, JumpCrouchesLeavesTheGroundAndLandsInTheIdlePose) {
  const Asset& a = character();
  const int i = a.find_clip("jump");
  ASSERT_GE(i, 0);
  const Clip& jump = a.clips[i];
  EXPECT_FLOAT_EQ(jump.duration, 1.2f);
  // Played once, it starts and ends in idle's first pose, so it blends in and out of idle.
  const std::vector<Transform> idle = sample_pose(a, a.clips[a.find_clip("idle")], 0.0f);
  EXPECT_LT(pose_distance(sample_pose(a, jump, 0.0f), idle), 1e-3f);
  EXPECT_LT(pose_distance(sample_pose(a, jump, jump.duration), idle), 1e-3f);

  const float hips_start = joint_position(a, sample_pose(a, jump, 0.0f), "hips").y;
  // The crouch before take-off lowers the hips well below standing height.
  const std::vector<Transform> crouch = sample_pose(a, jump, 0.3f * jump.duration);
  EXPECT_LT(joint_position(a, crouch, "hips").y, hips_start - 0.15f);
  EXPECT_LT(lowest_skinned_vertex(a, jump, 0.3f * jump.duration), 0.01f);  // feet down
  // Mid-air: the hips above standing height, both feet and the whole mesh off the ground.
  const float mid_air = 0.57f * jump.duration;
  const std::vector<Transform> air = sample_pose(a, jump, mid_air);
  EXPECT_GT(joint_position(a, air, "hips").y, hips_start + 0.1f);
  for (const char* foot : {"foot_l", "foot_r", "toe_l", "toe_r"})
    EXPECT_GT(joint_position(a, air, foot).y,
              joint_position(a, a.skeleton.rest_pose, foot).y + 0.1f)
        << foot;
  EXPECT_GT(lowest_skinned_vertex(a, jump, mid_air), 0.1f);
  // Arms swing up for the take-off.
  EXPECT_GT(joint_position(a, air, "hand_l").y, joint_position(a, air, "head").y);
  EXPECT_GT(joint_position(a, air, "hand_r").y, joint_position(a, air, "head").y);

  // Every pose over the clip (including past either end) is finite.
  for (float t = -0.1f; t <= jump.duration + 0.1f; t += 0.01f) {
    const std::vector<Transform> pose = sample_pose(a, jump, t);
    for (const Transform& x : pose)
      for (int k = 0; k < 4; ++k) {
        ASSERT_TRUE(std::isfinite(x.rotation[k])) << "t = " << t;
        if (k < 3) {
          ASSERT_TRUE(std::isfinite(x.translation[k] + x.scale[k])) << "t = " << t;
        }
      }
    for (const glm::mat4& m : model_of(a, pose))
      for (int c = 0; c < 4; ++c)
        for (int r = 0; r < 4; ++r) ASSERT_TRUE(std::isfinite(m[c][r])) << "t = " << t;
  }
}

TEST(BuiltinCharacter, EveryCallReturnsTheSameAsset) {
  const Asset& a = character();
  const Asset b = make_builtin_character();
  ASSERT_EQ(a.mesh.positions.size(), b.mesh.positions.size());
  EXPECT_EQ(0, std::memcmp(a.mesh.positions.data(), b.mesh.positions.data(),
                           a.mesh.positions.size() * sizeof(glm::vec3)));
  EXPECT_EQ(a.mesh.indices, b.mesh.indices);
  ASSERT_EQ(a.clips.size(), b.clips.size());
  for (size_t i = 0; i < a.clips.size(); ++i) {
    ASSERT_EQ(a.clips[i].quat_channels.size(), b.clips[i].quat_channels.size());
    for (size_t c = 0; c < a.clips[i].quat_channels.size(); ++c) {
      const auto& x = a.clips[i].quat_channels[c].values;
      const auto& y = b.clips[i].quat_channels[c].values;
      ASSERT_EQ(x.size(), y.size());
      EXPECT_EQ(0, std::memcmp(x.data(), y.data(), x.size() * sizeof(glm::quat)));
    }
  }
}

}  // namespace builtin_character_test
}  // namespace anim
