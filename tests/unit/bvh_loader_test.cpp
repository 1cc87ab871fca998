// The BVH loader on small hand-written files: skeleton and End Site names, channel orders
// (rotation order changes the pose; position channels may sit anywhere), frame timing,
// the scale option, lenient spellings, and every kind of bad file with its message and line.
// Expected positions are worked out by hand in the comments.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "anim/loaders/bvh_loader.h"
#include "anim/palette.h"
#include "anim/skeleton.h"
#include "process_tmp_dir.h"

namespace anim {
namespace bvh_loader_test {

// World (model) position of every joint of `asset` at clip time `t`.
std::vector<glm::vec3> positions_at(const Asset& asset, float t) {
  const Skeleton& s = asset.skeleton;
  std::vector<Transform> locals(s.num_joints());
  asset.clips.at(0).sample(t, s.rest_pose, locals);
  std::vector<glm::mat4> model(s.num_joints());
  local_to_model(s, locals, model);
  std::vector<glm::vec3> out;
  for (const glm::mat4& m : model) out.emplace_back(m[3]);
  return out;
}

void expect_near(const glm::vec3& a, const glm::vec3& b, float eps = 1e-5f) {
  EXPECT_NEAR(a.x, b.x, eps);
  EXPECT_NEAR(a.y, b.y, eps);
  EXPECT_NEAR(a.z, b.z, eps);
}

Expected<Asset> load(const std::string& text, const BvhOptions& options = {}) {
  return load_bvh_from_memory(text, "test.bvh", options);
}

// One joint turning with the given rotation channels, and an End Site 1 unit up its Y axis.
std::string one_joint(const std::string& channels, const std::string& values) {
  return "HIERARCHY\nROOT A\n{\n OFFSET 0 0 0\n CHANNELS 3 " + channels +
         "\n End Site\n {\n  OFFSET 0 1 0\n }\n}\nMOTION\nFrames: 1\nFrame Time: 0.1\n" + values +
         "\n";
}

// Two joints under a moving root, the standard layout (CMU-like channel orders).
const char* kArm = R"(HIERARCHY
ROOT Hips
{
	OFFSET 0 0 0
	CHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation
	JOINT Spine
	{
		OFFSET 0 2 0
		CHANNELS 3 Zrotation Yrotation Xrotation
		End Site
		{
			OFFSET 0 1 0
		}
	}
}
MOTION
Frames: 3
Frame Time: 0.5
1 2 3 90 0 0 0 0 0
1 2 3 90 0 0 0 0 0
3 2 3 90 0 0 -90 0 0
)";

TEST(BvhLoader, SkeletonRestPoseAndEndSiteNames) {
  auto a = load(kArm);
  ASSERT_TRUE(a) << a.error().message();
  const Skeleton& s = a->skeleton;
  ASSERT_EQ(s.num_joints(), 3);
  EXPECT_EQ(s.names, (std::vector<std::string>{"Hips", "Spine", "Spine_End"}));
  EXPECT_EQ(s.parents, (std::vector<int16_t>{-1, 0, 1}));
  expect_near(s.rest_pose[1].translation, {0, 2, 0});
  expect_near(s.rest_pose[2].translation, {0, 1, 0});
  EXPECT_EQ(s.rest_pose[1].rotation, glm::quat(1, 0, 0, 0));
  EXPECT_TRUE(s.validate().is_ok());
  EXPECT_TRUE(a->mesh.positions.empty());
  EXPECT_EQ(a->name, "");  // from memory: the caller names the asset
  EXPECT_EQ(a->source, "test.bvh");
  ASSERT_EQ(a->clips.size(), 1u);
  EXPECT_EQ(a->clips[0].name, "test");
  // The rest palette is the identity: model x inverse bind.
  std::vector<glm::mat4> model(3);
  local_to_model(s, s.rest_pose, model);
  for (int j = 0; j < 3; ++j) {
    const glm::mat4 p = model[j] * s.inverse_bind[j];
    for (int c = 0; c < 4; ++c)
      for (int r = 0; r < 4; ++r) EXPECT_NEAR(p[c][r], c == r ? 1.0f : 0.0f, 1e-6f);
  }
}

TEST(BvhLoader, FramesPlaceJointsAsWorkedOutByHand) {
  auto a = load(kArm);
  ASSERT_TRUE(a) << a.error().message();
  EXPECT_FLOAT_EQ(a->clips[0].duration, 1.0f);
  // Frame 0: hips at (1, 2, 3) turned 90 degrees about Z (x -> y, y -> -x). Spine's offset
  // (0, 2, 0) becomes (-2, 0, 0): spine at (-1, 2, 3); the End Site's (0, 1, 0) becomes
  // (-1, 0, 0): at (-2, 2, 3).
  auto p = positions_at(*a, 0.0f);
  expect_near(p[0], {1, 2, 3});
  expect_near(p[1], {-1, 2, 3});
  expect_near(p[2], {-2, 2, 3});
  // Frame 2 (t = 1 s): hips at (3, 2, 3), same turn; spine turns -90 about Z, undoing the
  // hips' turn for the End Site: its offset stays (0, 1, 0).
  p = positions_at(*a, 1.0f);
  expect_near(p[0], {3, 2, 3});
  expect_near(p[1], {1, 2, 3});
  expect_near(p[2], {1, 3, 3});
  // Half-way between frames 1 and 2: positions lerp (x 1 -> 3), rotations slerp (-45 deg).
  p = positions_at(*a, 0.75f);
  expect_near(p[0], {2, 2, 3});
  const float h = std::sqrt(0.5f);
  // Spine's model rotation is Rz(90) * Rz(-45) = Rz(45): (0, 1, 0) -> (-h, h, 0).
  expect_near(p[2], p[1] + glm::vec3(-h, h, 0));
}

TEST(BvhLoader, RotationOrderIsTheChannelOrder) {
  // ZXY with Z = 90, X = 90: R = Rz(90) * Rx(90). Rx(90) takes (0, 1, 0) to (0, 0, 1), which
  // Rz(90) leaves alone.
  auto zxy = load(one_joint("Zrotation Xrotation Yrotation", "90 90 0"));
  ASSERT_TRUE(zxy) << zxy.error().message();
  expect_near(positions_at(*zxy, 0)[1], {0, 0, 1});
  // XYZ with X = 90, Z = 90: R = Rx(90) * Rz(90). Rz(90) takes (0, 1, 0) to (-1, 0, 0), which
  // Rx(90) leaves alone.
  auto xyz = load(one_joint("Xrotation Yrotation Zrotation", "90 0 90"));
  ASSERT_TRUE(xyz) << xyz.error().message();
  expect_near(positions_at(*xyz, 0)[1], {-1, 0, 0});
  // YXZ with Y = 90, X = 90: R = Ry(90) * Rx(90): (0, 1, 0) -> (0, 0, 1) -> (1, 0, 0)
  // (Ry(90): z -> x).
  auto yxz = load(one_joint("Yrotation Xrotation Zrotation", "90 90 0"));
  ASSERT_TRUE(yxz) << yxz.error().message();
  expect_near(positions_at(*yxz, 0)[1], {1, 0, 0});
  // Negative and large angles: X = -90 takes (0, 1, 0) to (0, 0, -1); 720 + 90 is 90.
  auto neg = load(one_joint("Xrotation Yrotation Zrotation", "-90 0 0"));
  ASSERT_TRUE(neg) << neg.error().message();
  expect_near(positions_at(*neg, 0)[1], {0, 0, -1});
  auto turns = load(one_joint("Xrotation Yrotation Zrotation", "810 0 0"));
  ASSERT_TRUE(turns) << turns.error().message();
  expect_near(positions_at(*turns, 0)[1], {0, 0, 1});
}

TEST(BvhLoader, PositionChannelsAddToOffsetInAnyOrderAndCount) {
  // Root OFFSET (1, 0, 0) plus Xposition 5 and Zposition -2 (no Yposition), listed among the
  // rotations; the joint has 5 channels. Child "B" has 6 channels, "C" none at all.
  const std::string text = R"(HIERARCHY
ROOT A
{
  OFFSET 1 0 0
  CHANNELS 5 Zrotation Xposition Xrotation Zposition Yrotation
  JOINT B
  {
    OFFSET 0 1 0
    CHANNELS 6 Yrotation Yposition Xrotation Xposition Zrotation Zposition
    JOINT C
    {
      OFFSET 0 0 1
      CHANNELS 0
    }
  }
}
MOTION
Frames: 1
Frame Time: 0.033333
0 5 0 -2 0 0 10 0 0 0 0
)";
  auto a = load(text);
  ASSERT_TRUE(a) << a.error().message();
  ASSERT_EQ(a->skeleton.num_joints(), 3);  // C has no End Site
  const auto p = positions_at(*a, 0);
  expect_near(p[0], {6, 0, -2});
  // B: offset (0, 1, 0) + Yposition 10 = (0, 11, 0).
  expect_near(p[1], {6, 11, -2});
  expect_near(p[2], {6, 11, -1});
}

TEST(BvhLoader, ConstantChannelsAreStoredOnceOrNotAtAll) {
  auto a = load(kArm);
  ASSERT_TRUE(a) << a.error().message();
  const Clip& c = a->clips[0];
  // Hips rotation is 90 deg about Z in every frame: one key. Hips translation changes.
  ASSERT_GE(c.joints[0].rotation, 0);
  EXPECT_EQ(c.quat_channels[c.joints[0].rotation].num_keys(), 1);
  ASSERT_GE(c.joints[0].translation, 0);
  EXPECT_EQ(c.vec3_channels[c.joints[0].translation].num_keys(), 3);
  EXPECT_EQ(c.joints[2].rotation, -1);  // End Site: no channels
  // A joint that never moves from rest has no channel.
  auto still = load(one_joint("Zrotation Xrotation Yrotation", "0 0 0"));
  ASSERT_TRUE(still) << still.error().message();
  EXPECT_EQ(still->clips[0].joints[0].rotation, -1);
}

TEST(BvhLoader, ScaleGoesIntoTheRootTransform) {
  BvhOptions o;
  o.scale = 0.01f;
  o.clip_name = "walk";
  auto a = load(kArm, o);
  ASSERT_TRUE(a) << a.error().message();
  EXPECT_EQ(a->clips[0].name, "walk");
  // The clip keeps the file's numbers; model positions are scaled.
  expect_near(a->skeleton.rest_pose[1].translation, {0, 2, 0});
  const auto p = positions_at(*a, 0.0f);
  expect_near(p[2], {-0.02f, 0.02f, 0.03f}, 1e-7f);
  // The rest palette is still the identity.
  std::vector<glm::mat4> model(3);
  local_to_model(a->skeleton, a->skeleton.rest_pose, model);
  const glm::mat4 m = model[2] * a->skeleton.inverse_bind[2];
  EXPECT_NEAR(m[3][1], 0.0f, 1e-6f);
  EXPECT_NEAR(m[1][1], 1.0f, 1e-6f);
  o.scale = 0.0f;
  EXPECT_EQ(load(kArm, o).error().code(), StatusCode::kInvalidArgument);
  o.scale = NAN;
  EXPECT_FALSE(load(kArm, o));
}

TEST(BvhLoader, LenientSpellingsAndLayouts) {
  // CRLF, tabs, a byte order mark, lower-case keywords, braces on the keyword's line, a name
  // with a space, "Frames:3" without a blank, "End site", several roots, a '+' sign.
  const std::string text =
      "\xEF\xBB\xBFhierarchy\r\nroot Left Hip {\r\n\toffset 0 0 0\r\n\tchannels 3 XROTATION "
      "yrotation Zrotation\r\n\tEnd site {\r\n\t\tOFFSET 0 +1 0\r\n\t}\r\n}\r\nROOT Other\r\n{\r\n"
      "OFFSET 5 0 0\r\nCHANNELS 0\r\n}\r\nmotion\r\nFrames:2\r\nFrame Time:\t.5\r\n90 0 "
      "0\r\n\r\n0 0 0\r\n\r\n";
  auto a = load(text);
  ASSERT_TRUE(a) << a.error().message();
  EXPECT_EQ(a->skeleton.names, (std::vector<std::string>{"Left Hip", "Left Hip_End", "Other"}));
  EXPECT_EQ(a->skeleton.parents, (std::vector<int16_t>{-1, 0, -1}));
  expect_near(positions_at(*a, 0)[1], {0, 0, 1});
  expect_near(positions_at(*a, 0.5f)[1], {0, 1, 0});
  expect_near(positions_at(*a, 0)[2], {5, 0, 0});
}

TEST(BvhLoader, EndSiteNameAlreadyTakenGetsANumber) {
  const std::string text = R"(HIERARCHY
ROOT A
{
  OFFSET 0 0 0
  CHANNELS 0
  JOINT A_End
  {
    OFFSET 1 0 0
    CHANNELS 0
  }
  End Site
  {
    OFFSET 0 1 0
  }
  End Site
  {
    OFFSET 0 2 0
  }
}
MOTION
Frames: 1
Frame Time: 0
)";
  auto a = load(text);
  ASSERT_TRUE(a) << a.error().message();
  EXPECT_EQ(a->skeleton.names, (std::vector<std::string>{"A", "A_End", "A_End2", "A_End3"}));
  EXPECT_FLOAT_EQ(a->clips[0].duration, 0.0f);
}

TEST(BvhLoader, DeepNestingAtTheJointLimit) {
  // 1023 nested joints and an End Site: 1024 joints, the limit; one more is refused.
  auto nested = [](int depth) {
    std::string t = "HIERARCHY\n";
    for (int i = 0; i < depth; ++i)
      t += std::string(i == 0 ? "ROOT" : "JOINT") + " j" + std::to_string(i) +
           "\n{\nOFFSET 0 1 0\nCHANNELS 1 Zrotation\n";
    t += "End Site\n{\nOFFSET 0 1 0\n}\n";
    for (int i = 0; i < depth; ++i) t += "}\n";
    t += "MOTION\nFrames: 1\nFrame Time: 0.01\n";
    for (int i = 0; i < depth; ++i) t += "1 ";
    return t + "\n";
  };
  auto ok = load(nested(1023));
  ASSERT_TRUE(ok) << ok.error().message();
  EXPECT_EQ(ok->skeleton.num_joints(), 1024);
  auto too_many = load(nested(1024));
  ASSERT_FALSE(too_many);
  EXPECT_EQ(too_many.error().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(too_many.error().message().find("more than 1024 joints"), std::string::npos)
      << too_many.error().message();
}

TEST(BvhLoader, LoadsFromAFileAndNamesItByItsStem) {
  const auto path = animtest::process_tmp_dir() / "arm_walk.bvh";
  std::ofstream(path) << kArm;
  auto a = load_bvh(path.string());
  ASSERT_TRUE(a) << a.error().message();
  EXPECT_EQ(a->name, "arm_walk");
  EXPECT_EQ(a->clips[0].name, "arm_walk");
  EXPECT_EQ(a->source, path.string());
  BvhOptions o;
  o.label = "mocap/arm_walk.bvh";
  auto labelled = load_bvh(path.string(), o);
  ASSERT_TRUE(labelled);
  EXPECT_EQ(labelled->source, "mocap/arm_walk.bvh");
  auto missing = load_bvh((animtest::process_tmp_dir() / "nope.bvh").string(), o);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code(), StatusCode::kNotFound);
  EXPECT_NE(missing.error().message().find("mocap/arm_walk.bvh"), std::string::npos);
}

// ---- Bad files: each gives its code and a message naming the label, the line and the problem.

struct BadCase {
  const char* what;
  std::string text;
  StatusCode code;
  std::string line;     // "test.bvh:<line>:"
  std::string message;  // a part of the message
};

std::string with_motion(const std::string& frames_and_values) {
  return "HIERARCHY\nROOT A\n{\nOFFSET 0 0 0\nCHANNELS 3 Zrotation Xrotation Yrotation\n}\n"
         "MOTION\n" +
         frames_and_values;
}

std::vector<BadCase> bad_cases() {
  using C = StatusCode;
  return {
      {"empty", "", C::kInvalidArgument, "test.bvh:1:", "expected HIERARCHY"},
      {"binary", std::string("\x00\xff\x10garbage", 10), C::kInvalidArgument,
       "test.bvh:1:", "found '\\x00\\xFF\\x10garbage'"},
      {"short frame", with_motion("Frames: 2\nFrame Time: 0.1\n1 2 3\n1 2\n"), C::kInvalidArgument,
       "test.bvh:11:", "frame 1 has 2 values, but the HIERARCHY declares 3"},
      {"long frame", with_motion("Frames: 1\nFrame Time: 0.1\n1 2 3 4\n"), C::kInvalidArgument,
       "test.bvh:10:", "frame 0 has 4 values"},
      {"truncated motion",
       with_motion("Frames: 3\nFrame Time: 0.1\n1.000 2.000 3.000\n1.000 2.000 3.000\n"),
       C::kDataLoss, "test.bvh:11:", "MOTION ends after 2 of the 3 frames"},
      {"more frames than declared", with_motion("Frames: 1\nFrame Time: 0.1\n1 2 3\n4 5 6\n"),
       C::kInvalidArgument, "test.bvh:11:", "after the last of the 1 frames"},
      {"nan", with_motion("Frames: 1\nFrame Time: 0.1\n1 nan 3\n"), C::kInvalidArgument,
       "test.bvh:10:", "frame 0, value 2 (joint 'A' Xrotation) 'nan' is NaN"},
      {"infinity", with_motion("Frames: 1\nFrame Time: 0.1\n1 2 -inf\n"), C::kInvalidArgument,
       "test.bvh:10:", "'-inf' is infinite"},
      {"huge value", with_motion("Frames: 1\nFrame Time: 0.1\n1 2 1e30\n"), C::kInvalidArgument,
       "test.bvh:10:", "is out of range"},
      {"not a number", with_motion("Frames: 1\nFrame Time: 0.1\n1 2 3x\n"), C::kInvalidArgument,
       "test.bvh:10:", "'3x' is not a number"},
      {"absurd frame count", with_motion("Frames: 99999999999\nFrame Time: 0.1\n1 2 3\n"),
       C::kResourceExhausted, "test.bvh:8:", "more than the 16777216 frames"},
      {"frame count larger than the file", with_motion("Frames: 1000000\nFrame Time: 0.1\n1 2 3\n"),
       C::kDataLoss, "test.bvh:8:", "Frames: 1000000 x 3 channels needs 3000000 values, but only"},
      {"zero frames", with_motion("Frames: 0\nFrame Time: 0.1\n"), C::kInvalidArgument,
       "test.bvh:8:", "at least one frame"},
      {"negative frames", with_motion("Frames: -4\nFrame Time: 0.1\n"), C::kInvalidArgument,
       "test.bvh:8:", "at least one frame"},
      {"frame time zero", with_motion("Frames: 2\nFrame Time: 0\n1 2 3\n1 2 3\n"),
       C::kInvalidArgument, "test.bvh:9:", "must be above 0"},
      {"frame time nan", with_motion("Frames: 1\nFrame Time: NaN\n1 2 3\n"), C::kInvalidArgument,
       "test.bvh:9:", "'NaN' is NaN"},
      {"no frame time", with_motion("Frames: 1\n1 2 3\n"), C::kInvalidArgument,
       "test.bvh:9:", "expected 'Frame Time:'"},
      {"no frames line", with_motion(""), C::kDataLoss,
       "test.bvh:7:", "expected 'Frames:' after MOTION, found the end of the file"},
      {"channel count larger than names",
       "HIERARCHY\nROOT A\n{\nOFFSET 0 0 0\nCHANNELS 6 Zrotation Xrotation Yrotation\nJOINT B\n",
       C::kInvalidArgument, "test.bvh:6:", "channel 4 should be Xposition"},
      {"seven channels", "HIERARCHY\nROOT A\n{\nOFFSET 0 0 0\nCHANNELS 7\n", C::kInvalidArgument,
       "test.bvh:5:", "expected a count from 0 to 6, found '7'"},
      {"channel twice",
       "HIERARCHY\nROOT A\n{\nOFFSET 0 0 0\nCHANNELS 3 Zrotation Xrotation zrotation\n",
       C::kInvalidArgument, "test.bvh:5:", "lists Zrotation twice"},
      {"no offset", "HIERARCHY\nROOT A\n{\nCHANNELS 0\n}\n", C::kInvalidArgument,
       "test.bvh:5:", "joint 'A' (line 2) has no OFFSET"},
      {"no channels", "HIERARCHY\nROOT A\n{\nOFFSET 0 0 0\nJOINT B\n", C::kInvalidArgument,
       "test.bvh:5:", "joint 'A' (line 2) has no CHANNELS before its first child"},
      {"short offset", "HIERARCHY\nROOT A\n{\nOFFSET 0 0\n}\n", C::kInvalidArgument,
       "test.bvh:5:", "OFFSET of joint 'A' '}' is not a number"},
      {"unclosed joint", "HIERARCHY\nROOT A\n{\nOFFSET 0 0 0\nCHANNELS 0\n", C::kDataLoss,
       "test.bvh:5:", "the file ends inside joint 'A' (line 2): a '}' is missing"},
      {"no motion", "HIERARCHY\nROOT A\n{\nOFFSET 0 0 0\nCHANNELS 0\n}\n", C::kDataLoss,
       "test.bvh:6:", "the file ends before MOTION"},
      {"no root", "HIERARCHY\nMOTION\nFrames: 1\nFrame Time: 1\n", C::kInvalidArgument,
       "test.bvh:2:", "MOTION before any ROOT"},
      {"nameless joint", "HIERARCHY\nROOT\n{\n", C::kInvalidArgument,
       "test.bvh:2:", "ROOT without a name"},
      {"duplicate name", "HIERARCHY\nROOT A\n{\nOFFSET 0 0 0\nCHANNELS 0\nJOINT A\n{\n",
       C::kInvalidArgument, "test.bvh:6:", "joint name 'A' is used twice (first on line 2)"},
      {"bad utf-8 name", "HIERARCHY\nROOT A\xC3(\n{\n", C::kInvalidArgument,
       "test.bvh:2:", "ROOT name 'A\\xC3(' is not valid UTF-8"},
      {"channels in an end site",
       "HIERARCHY\nROOT A\n{\nOFFSET 0 0 0\nCHANNELS 0\nEnd Site\n{\nCHANNELS 0\n",
       C::kInvalidArgument, "test.bvh:8:", "an End Site has no CHANNELS"},
      {"joint in an end site",
       "HIERARCHY\nROOT A\n{\nOFFSET 0 0 0\nCHANNELS 0\nEnd Site\n{\nOFFSET 0 1 0\nJOINT B\n",
       C::kInvalidArgument, "test.bvh:9:", "the End Site of joint 'A' cannot have children"},
      {"end without site", "HIERARCHY\nROOT A\n{\nOFFSET 0 0 0\nCHANNELS 0\nEnd\n{\n",
       C::kInvalidArgument, "test.bvh:6:", "expected 'End Site'"},
      {"stray word", "HIERARCHY\nROOT A\n{\nOFFSET 0 0 0\nCHANNELS 0\nBONE B\n",
       C::kInvalidArgument, "test.bvh:6:", "expected OFFSET, CHANNELS, JOINT, End Site or '}'"},
  };
}

TEST(BvhLoader, BadFilesNameTheLineAndTheProblem) {
  for (const BadCase& c : bad_cases()) {
    SCOPED_TRACE(c.what);
    auto a = load(c.text);
    ASSERT_FALSE(a);
    EXPECT_EQ(a.error().code(), c.code) << a.error().message();
    const std::string& m = a.error().message();
    EXPECT_EQ(m.rfind(c.line, 0), 0u) << m;
    EXPECT_NE(m.find(c.message), std::string::npos) << m;
  }
}

TEST(BvhLoader, ClaimedSizesNeverAllocateBeyondTheText) {
  // A frame count that fits the limit but not the text is refused before any allocation;
  // with no channel at all, a large frame count costs nothing.
  auto big = load(with_motion("Frames: 16777216\nFrame Time: 0.01\n"));
  ASSERT_FALSE(big);
  EXPECT_EQ(big.error().code(), StatusCode::kDataLoss);
  auto static_pose = load(
      "HIERARCHY\nROOT A\n{\nOFFSET 0 0 0\nCHANNELS 0\n}\nMOTION\nFrames: 16777216\n"
      "Frame Time: 0.01\n");
  ASSERT_TRUE(static_pose) << static_pose.error().message();
  EXPECT_NEAR(static_pose->clips[0].duration, 167772.15f, 0.02f);
}

TEST(BvhLoader, WhatTheFramesDecodeToIsBoundedBeforeTheyAreRead) {
  // Two joints with one rotation channel each: per frame, 2 values (4 bytes each) and per
  // joint a key time (4) and a quaternion (16) in the channel and again (16) in the sampling
  // track: 2 x (4 + 4 + 16 + 16) = 80 bytes; 100 frames decode to at most 8000 bytes.
  std::string text =
      "HIERARCHY\nROOT A\n{\nOFFSET 0 0 0\nCHANNELS 1 Xrotation\nJOINT B\n{\nOFFSET 0 1 0\n"
      "CHANNELS 1 Zrotation\nEnd Site\n{\nOFFSET 0 1 0\n}\n}\n}\nMOTION\nFrames: 100\n"
      "Frame Time: 0.1\n";
  for (int k = 0; k < 100; ++k) text += std::to_string(k) + " " + std::to_string(-k) + "\n";
  BvhOptions options;
  options.max_clip_bytes = 8000;
  auto fits = load(text, options);
  ASSERT_TRUE(fits) << fits.error().message();
  EXPECT_EQ(fits->clips[0].quat_channels.size(), 2u);
  options.max_clip_bytes = 7999;
  auto over = load(text, options);
  ASSERT_FALSE(over);
  EXPECT_EQ(over.error().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(over.error().message().find("test.bvh:17: Frames: 100 frames of these 3 joints "
                                        "decode to up to 8000 bytes, more than the 7999 this load "
                                        "allows"),
            std::string::npos)
      << over.error().message();
  options.max_clip_bytes = 0;  // no limit
  EXPECT_TRUE(load(text, options));
}

}  // namespace bvh_loader_test
}  // namespace anim
