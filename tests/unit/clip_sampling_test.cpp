// Channel and Clip sampling: STEP, LINEAR (lerp, shortest-arc slerp), CUBICSPLINE (glTF
// Hermite), constant channels, times outside the keys, rest pose for unanimated joints, and
// Clip::finalize errors.
#include "anim/clip.h"

#include <cmath>
#include <limits>
#include <numbers>
#include <vector>

#include <gtest/gtest.h>

namespace anim {
namespace clip_sampling_test {

constexpr float kPi = std::numbers::pi_v<float>;

glm::quat about_z(float radians) {
  return glm::angleAxis(radians, glm::vec3(0, 0, 1));
}

void expect_vec3_eq(const glm::vec3& a, const glm::vec3& b, float eps = 1e-6f) {
  EXPECT_NEAR(a.x, b.x, eps);
  EXPECT_NEAR(a.y, b.y, eps);
  EXPECT_NEAR(a.z, b.z, eps);
}

// Same rotation: q and -q are the same rotation.
void expect_same_rotation(const glm::quat& a, const glm::quat& b, float eps = 1e-6f) {
  EXPECT_NEAR(std::abs(glm::dot(a, b)), 1.0f, eps)
      << "got (" << a.w << ", " << a.x << ", " << a.y << ", " << a.z << ")";
}

template <class V>
Channel<V> make_channel(Interpolation mode, std::vector<float> times, std::vector<V> values) {
  Channel<V> c;
  c.interpolation = mode;
  c.times = std::move(times);
  c.values = std::move(values);
  Status s = c.finalize("test channel");
  EXPECT_TRUE(s.is_ok()) << s.message();
  return c;
}

TEST(ChannelSampling, StepHoldsTheKeyAtOrBefore) {
  const auto c = make_channel<glm::vec3>(Interpolation::kStep, {0.0f, 1.0f, 2.0f},
                                         {{0, 0, 0}, {1, 2, 3}, {4, 5, 6}});
  expect_vec3_eq(c.sample(0.0f), {0, 0, 0});
  expect_vec3_eq(c.sample(0.5f), {0, 0, 0});
  expect_vec3_eq(c.sample(std::nextafter(1.0f, 0.0f)), {0, 0, 0});
  expect_vec3_eq(c.sample(1.0f), {1, 2, 3});  // exact at a key time
  expect_vec3_eq(c.sample(1.999f), {1, 2, 3});
  expect_vec3_eq(c.sample(2.0f), {4, 5, 6});
}

TEST(ChannelSampling, LinearVec3Lerps) {
  const auto c = make_channel<glm::vec3>(Interpolation::kLinear, {0.0f, 2.0f, 3.0f},
                                         {{0, 0, 0}, {2, 4, -6}, {2, 4, 0}});
  expect_vec3_eq(c.sample(0.5f), {0.5f, 1.0f, -1.5f});
  expect_vec3_eq(c.sample(2.0f), {2, 4, -6});
  expect_vec3_eq(c.sample(2.25f), {2, 4, -4.5f});
}

TEST(ChannelSampling, LinearQuatSlerpsHalfTheAngle) {
  // 0 -> 90 degrees about Z: the midpoint is 45 degrees, a quarter is 22.5 degrees.
  const auto c = make_channel<glm::quat>(Interpolation::kLinear, {0.0f, 1.0f},
                                         {glm::quat(1, 0, 0, 0), about_z(kPi / 2)});
  const glm::quat mid = c.sample(0.5f);
  EXPECT_NEAR(mid.w, std::cos(kPi / 8), 1e-6f);
  EXPECT_NEAR(mid.z, std::sin(kPi / 8), 1e-6f);
  EXPECT_NEAR(mid.x, 0.0f, 1e-7f);
  EXPECT_NEAR(mid.y, 0.0f, 1e-7f);
  expect_same_rotation(c.sample(0.25f), about_z(kPi / 8));
  EXPECT_NEAR(glm::length(c.sample(0.37f)), 1.0f, 1e-6f);
}

TEST(ChannelSampling, QuaternionSignFlipTakesTheShortWay) {
  // The second key is stored as -q: the same 90 degree rotation. The midpoint must be
  // 45 degrees, not the long way round.
  const glm::quat q = about_z(kPi / 2);
  const auto flipped =
      make_channel<glm::quat>(Interpolation::kLinear, {0.0f, 1.0f}, {glm::quat(1, 0, 0, 0), -q});
  expect_same_rotation(flipped.sample(0.5f), about_z(kPi / 4));
  // A 270 degree key is the same as -90 degrees: the short way passes through -45.
  const auto wide = make_channel<glm::quat>(Interpolation::kLinear, {0.0f, 1.0f},
                                            {glm::quat(1, 0, 0, 0), about_z(1.5f * kPi)});
  expect_same_rotation(wide.sample(0.5f), about_z(-kPi / 4));
}

TEST(ChannelSampling, CubicSplineIsTheGltfHermite) {
  // One dimension in x. Keys at t = 1 and 3 (interval 2 s): values 1 and 3, out-tangent of
  // the first key 2/s, in-tangent of the second -1/s. The tangents are scaled by the
  // interval: m0 = 2 * 2 = 4, m1 = -1 * 2 = -2. With s = (t - 1) / 2:
  //   p(s) = (2s^3 - 3s^2 + 1) * 1 + (s^3 - 2s^2 + s) * 4 + (-2s^3 + 3s^2) * 3 + (s^3 - s^2) * -2
  //   s = 0.5:  0.5 + 0.125 * 4 + 0.5 * 3 + (-0.125) * -2 = 2.75
  //   s = 0.25: 0.84375 + 0.140625 * 4 + 0.15625 * 3 + (-0.046875) * -2 = 1.96875
  // The first key's in-tangent and the last key's out-tangent are never used (100 here).
  const auto c = make_channel<glm::vec3>(
      Interpolation::kCubicSpline, {1.0f, 3.0f},
      {{100, 0, 0}, {1, 0, 0}, {2, 0, 0}, {-1, 0, 0}, {3, 0, 0}, {100, 0, 0}});
  EXPECT_NEAR(c.sample(2.0f).x, 2.75f, 1e-6f);
  EXPECT_NEAR(c.sample(1.5f).x, 1.96875f, 1e-6f);
  EXPECT_FLOAT_EQ(c.sample(1.0f).x, 1.0f);
  EXPECT_FLOAT_EQ(c.sample(3.0f).x, 3.0f);
  EXPECT_FLOAT_EQ(c.sample(0.0f).x, 1.0f);  // before the first key
  EXPECT_FLOAT_EQ(c.sample(9.0f).x, 3.0f);  // after the last key
}

TEST(ChannelSampling, CubicSplineFindsTheRightInterval) {
  // Three keys, zero tangents: halfway through each interval the Hermite gives the mean.
  const auto c = make_channel<glm::vec3>(Interpolation::kCubicSpline, {0.0f, 1.0f, 3.0f},
                                         {{0, 0, 0},
                                          {0, 0, 0},
                                          {0, 0, 0},
                                          {0, 0, 0},
                                          {0, 10, 0},
                                          {0, 0, 0},
                                          {0, 0, 0},
                                          {0, 4, 0},
                                          {0, 0, 0}});
  EXPECT_NEAR(c.sample(0.5f).y, 5.0f, 1e-6f);
  EXPECT_NEAR(c.sample(2.0f).y, 7.0f, 1e-6f);
  EXPECT_FLOAT_EQ(c.sample(1.0f).y, 10.0f);
}

TEST(ChannelSampling, CubicSplineQuaternionIsNormalized) {
  // Zero tangents and equal weights at the midpoint: the normalized mean of the two keys,
  // i.e. 45 degrees between 0 and 90 about Z.
  const glm::quat zero(0, 0, 0, 0);
  const auto c =
      make_channel<glm::quat>(Interpolation::kCubicSpline, {0.0f, 1.0f},
                              {zero, glm::quat(1, 0, 0, 0), zero, zero, about_z(kPi / 2), zero});
  const glm::quat mid = c.sample(0.5f);
  EXPECT_NEAR(glm::length(mid), 1.0f, 1e-6f);
  expect_same_rotation(mid, about_z(kPi / 4));
}

TEST(ChannelSampling, SingleKeyIsConstant) {
  const auto c = make_channel<glm::vec3>(Interpolation::kLinear, {0.5f}, {{7, 8, 9}});
  for (float t : {-1.0f, 0.0f, 0.5f, 2.0f}) expect_vec3_eq(c.sample(t), {7, 8, 9});
  const auto q = make_channel<glm::quat>(Interpolation::kStep, {0.0f}, {glm::quat(2, 0, 0, 0)});
  expect_same_rotation(q.sample(3.0f), glm::quat(1, 0, 0, 0));  // normalized by finalize
}

TEST(ChannelSampling, OutsideTheKeysHoldsTheEnds) {
  const auto c =
      make_channel<glm::vec3>(Interpolation::kLinear, {1.0f, 2.0f}, {{1, 1, 1}, {3, 3, 3}});
  expect_vec3_eq(c.sample(0.0f), {1, 1, 1});
  expect_vec3_eq(c.sample(-5.0f), {1, 1, 1});
  expect_vec3_eq(c.sample(2.0f), {3, 3, 3});
  expect_vec3_eq(c.sample(100.0f), {3, 3, 3});
}

TEST(ChannelSampling, NonFiniteTimesGiveAKeyValueNotNaN) {
  const auto c = make_channel<glm::vec3>(Interpolation::kLinear, {0.0f, 1.0f, 2.0f},
                                         {{1, 1, 1}, {2, 2, 2}, {3, 3, 3}});
  expect_vec3_eq(c.sample(std::numeric_limits<float>::quiet_NaN()), {1, 1, 1});
  expect_vec3_eq(c.sample(-std::numeric_limits<float>::infinity()), {1, 1, 1});
  expect_vec3_eq(c.sample(std::numeric_limits<float>::infinity()), {3, 3, 3});
}

TEST(ChannelFinalize, RejectedQuaternionChannelIsLeftUnchanged) {
  // Key 0 is valid but not unit length; key 1 has zero length. Finalize must fail without
  // normalizing key 0 first.
  QuatChannel c;
  c.times = {0.0f, 1.0f};
  c.values = {glm::quat(2, 0, 0, 0), glm::quat(0, 0, 0, 0)};
  const Status s = c.finalize("rot");
  EXPECT_FALSE(s.is_ok());
  EXPECT_NE(s.message().find("rot"), std::string::npos);
  EXPECT_EQ(c.values[0].w, 2.0f);
}

// A 3-joint clip: joint 1 has translation and rotation channels, joint 2 only scale,
// joint 0 nothing.
Clip make_clip() {
  Clip clip;
  clip.name = "wiggle";
  clip.joints.resize(3);
  clip.vec3_channels.push_back(
      make_channel<glm::vec3>(Interpolation::kLinear, {0.0f, 2.0f}, {{0, 0, 0}, {4, 0, 0}}));
  clip.vec3_channels.push_back(
      make_channel<glm::vec3>(Interpolation::kStep, {0.0f, 0.5f}, {{1, 1, 1}, {2, 2, 2}}));
  clip.quat_channels.push_back(make_channel<glm::quat>(Interpolation::kLinear, {0.25f, 1.25f},
                                                       {glm::quat(1, 0, 0, 0), about_z(kPi / 2)}));
  clip.joints[1].translation = 0;
  clip.joints[1].rotation = 0;
  clip.joints[2].scale = 1;
  return clip;
}

TEST(ClipSampling, UnanimatedJointsAndPropertiesKeepTheRestPose) {
  Clip clip = make_clip();
  ASSERT_TRUE(clip.finalize(3).is_ok());
  EXPECT_FLOAT_EQ(clip.duration, 2.0f);  // the latest key over all channels
  const Transform rest0{{9, 9, 9}, about_z(0.3f), {5, 5, 5}};
  const Transform rest1{{8, 8, 8}, about_z(0.1f), {3, 3, 3}};
  const Transform rest2{{7, 7, 7}, about_z(0.2f), {6, 6, 6}};
  const std::vector<Transform> rest = {rest0, rest1, rest2};
  std::vector<Transform> out(3);
  clip.sample(0.75f, rest, out);
  // Joint 0: all rest.
  expect_vec3_eq(out[0].translation, rest0.translation);
  expect_same_rotation(out[0].rotation, rest0.rotation);
  expect_vec3_eq(out[0].scale, rest0.scale);
  // Joint 1: translation 0.75/2 of the way to 4; rotation halfway (0.75 is the middle of
  // [0.25, 1.25]) to 90 degrees; scale from rest.
  expect_vec3_eq(out[1].translation, {1.5f, 0, 0});
  expect_same_rotation(out[1].rotation, about_z(kPi / 4));
  expect_vec3_eq(out[1].scale, rest1.scale);
  // Joint 2: stepped scale, rest translation and rotation.
  expect_vec3_eq(out[2].translation, rest2.translation);
  expect_same_rotation(out[2].rotation, rest2.rotation);
  expect_vec3_eq(out[2].scale, {2, 2, 2});
  // sample_joint agrees with sample.
  const Transform j1 = clip.sample_joint(1, 0.75f, rest1);
  expect_vec3_eq(j1.translation, out[1].translation);
  expect_same_rotation(j1.rotation, out[1].rotation);
}

void expect_error_naming(const Status& s, const std::string& what) {
  EXPECT_FALSE(s.is_ok());
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find(what), std::string::npos) << s.message();
}

TEST(ClipFinalize, RejectsNaNTime) {
  Clip clip = make_clip();
  clip.vec3_channels[0].times[1] = std::numeric_limits<float>::quiet_NaN();
  expect_error_naming(clip.finalize(3), "clip 'wiggle'");
}

TEST(ClipFinalize, RejectsNaNValue) {
  Clip clip = make_clip();
  clip.vec3_channels[1].values[0].y = std::numeric_limits<float>::quiet_NaN();
  expect_error_naming(clip.finalize(3), "clip 'wiggle'");
  Clip inf = make_clip();
  inf.quat_channels[0].values[1].w = std::numeric_limits<float>::infinity();
  expect_error_naming(inf.finalize(3), "clip 'wiggle'");
}

TEST(ClipFinalize, RejectsDecreasingTimes) {
  Clip clip = make_clip();
  clip.quat_channels[0].times = {1.0f, 0.5f};
  expect_error_naming(clip.finalize(3), "clip 'wiggle'");
  expect_error_naming(clip.finalize(3), "decrease");
}

TEST(ClipFinalize, RejectsValueCountMismatch) {
  Clip clip = make_clip();
  clip.vec3_channels[0].values.push_back({1, 1, 1});
  expect_error_naming(clip.finalize(3), "clip 'wiggle'");
  Clip cubic = make_clip();
  cubic.vec3_channels[0].interpolation = Interpolation::kCubicSpline;  // needs 6 values
  expect_error_naming(cubic.finalize(3), "clip 'wiggle'");
}

TEST(ClipFinalize, RejectsZeroLengthQuaternion) {
  Clip clip = make_clip();
  clip.quat_channels[0].values[0] = glm::quat(0, 0, 0, 0);
  expect_error_naming(clip.finalize(3), "clip 'wiggle'");
  expect_error_naming(clip.finalize(3), "zero-length");
}

TEST(ClipFinalize, RejectsEmptyChannelAndBadJointTable) {
  Clip empty = make_clip();
  empty.vec3_channels[1].times.clear();
  empty.vec3_channels[1].values.clear();
  expect_error_naming(empty.finalize(3), "clip 'wiggle'");
  Clip wrong_count = make_clip();
  expect_error_naming(wrong_count.finalize(4), "clip 'wiggle'");
  Clip bad_index = make_clip();
  bad_index.joints[0].rotation = 1;  // there is only one quaternion channel
  expect_error_naming(bad_index.finalize(3), "clip 'wiggle'");
}

}  // namespace clip_sampling_test
}  // namespace anim
