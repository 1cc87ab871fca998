// SamplingJob: what validate() refuses (and that run() then writes nothing); a hand-built clip
// whose every value is computed by hand (two timelines, SoA blocks filled partly, step, cubic
// and single-key channels, properties and joints the rest pose supplies) before, between, at
// and after its keys; the cursor, which must never change a result; and the packed timelines
// against Channel::sample, channel by channel, on real assets.
#include "anim/sampling_job.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "anim/clip.h"
#include "anim/loaders/gltf_loader.h"
#include "anim/loaders/md5_loader.h"
#include "job_test_helpers.h"
#include "shared_assets.h"

namespace anim {
namespace sampling_job_test {

using animtest::about;
using animtest::expect_same_rotation;
using animtest::expect_vec3_near;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

template <class V>
int add_channel(std::vector<Channel<V>>& channels, Interpolation mode, std::vector<float> times,
                std::vector<V> values) {
  Channel<V> c;
  c.interpolation = mode;
  c.times = std::move(times);
  c.values = std::move(values);
  channels.push_back(std::move(c));
  return static_cast<int>(channels.size()) - 1;
}

// ---------------------------------------------------------------------------------------------
// The hand-built clip. Eight joints; "A" is the timeline of keys {0, 1, 2} s, "B" that of
// {0.5, 1.5} s.
//
//   joint  translation      rotation (degrees)               scale
//   0      A                A: about x, 0 / 90 / 180         step {0, 1, 1.5}: 1, 2, 0.5
//   1      A                A: about y, 0 / 90 / 180         cubic {1, 3} (x Hermite, y 5, z 7)
//   2      A                A: about z, 0 / -90 / -180       rest
//   3      A                B: about z, 0 / 90               A: (1,1,1) (2,3,4) (.5,.5,.5)
//   4      A                A: about (0,1,1), 0 / 60 / 120   rest
//   5      A                one key at 0.7 s: 30 about y     B: (1,1,1) (2,3,4)
//   6      B: (1,2,3)       A: about (1,-1,0), 0 / 90 / 180, rest
//             (3,2,-1)         the 90 key stored negated
//   7      rest             rest                             rest
//
// So timeline A holds 5 rotations (two blocks of 4, the second with one lane used) and 7
// vectors (T0..T5 and S3: two blocks, the second with 3 lanes used); B one rotation and two
// vectors. Keys of one rotation channel are 90 degrees (or 60) apart about one fixed axis, so
// the slerp between them is the rotation by the linearly interpolated angle.
constexpr int kJoints = 8;

struct RotationSpec {
  glm::vec3 axis;
  double step_degrees;  // per key of timeline A
};
// Rotation channels on timeline A, by joint (the others: see the table).
const RotationSpec kRotationA[kJoints] = {{{1, 0, 0}, 90},  {{0, 1, 0}, 90},
                                          {{0, 0, 1}, -90}, {},
                                          {{0, 1, 1}, 60},  {},
                                          {{1, -1, 0}, 90}, {}};
bool rotation_on_a(int j) {
  return j == 0 || j == 1 || j == 2 || j == 4 || j == 6;
}

// Translation keys of joint j (0..5) on timeline A: three points not on one line.
glm::vec3 translation_key(int j, int k) {
  const glm::vec3 p0(static_cast<float>(j), -static_cast<float>(j), 0.5f * static_cast<float>(j));
  const glm::vec3 v(1.0f, 2.0f * static_cast<float>(j + 1), -1.0f);
  const glm::vec3 w(-2.0f, 0.25f, static_cast<float>(j + 1));
  return k == 0 ? p0 : k == 1 ? p0 + v : p0 + v + w;
}
const glm::vec3 kScale3Keys[3] = {{1, 1, 1}, {2, 3, 4}, {0.5f, 0.5f, 0.5f}};

Clip make_hand_clip() {
  Clip clip;
  clip.name = "hand";
  clip.joints.resize(kJoints);
  auto& vec3 = clip.vec3_channels;
  auto& quat = clip.quat_channels;
  const auto linear = Interpolation::kLinear;
  for (int j = 0; j < kJoints; ++j) {
    if (!rotation_on_a(j)) continue;
    const RotationSpec& r = kRotationA[j];
    glm::quat k1 = about(r.axis, r.step_degrees);
    if (j == 6) k1 = -k1;  // the same rotation: sampling must still take the short way
    clip.joints[j].rotation = add_channel<glm::quat>(
        quat, linear, {0, 1, 2}, {glm::quat(1, 0, 0, 0), k1, about(r.axis, 2 * r.step_degrees)});
  }
  for (int j = 0; j <= 5; ++j)
    clip.joints[j].translation = add_channel<glm::vec3>(
        vec3, linear, {0, 1, 2},
        {translation_key(j, 0), translation_key(j, 1), translation_key(j, 2)});
  clip.joints[3].scale = add_channel<glm::vec3>(vec3, linear, {0, 1, 2},
                                                {kScale3Keys[0], kScale3Keys[1], kScale3Keys[2]});
  clip.joints[3].rotation = add_channel<glm::quat>(quat, linear, {0.5f, 1.5f},
                                                   {glm::quat(1, 0, 0, 0), about({0, 0, 1}, 90)});
  clip.joints[6].translation =
      add_channel<glm::vec3>(vec3, linear, {0.5f, 1.5f}, {{1, 2, 3}, {3, 2, -1}});
  clip.joints[5].scale = add_channel<glm::vec3>(vec3, linear, {0.5f, 1.5f}, {{1, 1, 1}, {2, 3, 4}});
  clip.joints[0].scale = add_channel<glm::vec3>(vec3, Interpolation::kStep, {0, 1, 1.5f},
                                                {{1, 1, 1}, {2, 2, 2}, {0.5f, 0.5f, 0.5f}});
  // The cubic example of clip_sampling_test.cpp in x (values 1 and 3, tangents scaled by the
  // 2 s interval: 4 and -2); y and z constant (equal values, zero tangents).
  clip.joints[1].scale = add_channel<glm::vec3>(
      vec3, Interpolation::kCubicSpline, {1, 3},
      {{100, 0, 0}, {1, 5, 7}, {2, 0, 0}, {-1, 0, 0}, {3, 5, 7}, {100, 0, 0}});
  clip.joints[5].rotation = add_channel<glm::quat>(quat, linear, {0.7f}, {about({0, 1, 0}, 30)});
  const Status s = clip.finalize(kJoints);
  EXPECT_TRUE(s.is_ok()) << s.message();
  return clip;
}

// A rest pose in which every joint and property differs.
std::vector<Transform> make_rest(int n) {
  std::vector<Transform> rest(n);
  for (int j = 0; j < n; ++j) {
    const float f = static_cast<float>(j);
    rest[j].translation = {10 + f, 20 + f, 30 + f};
    rest[j].rotation = about({1, 2, 3}, 7.0 * (j + 1));
    rest[j].scale = {1 + 0.1f * f, 1.5f + 0.1f * f, 2 + 0.1f * f};
  }
  return rest;
}

// Fraction of the way through [t0, t1], clamped to [0, 1].
double fraction(double t, double t0, double t1) {
  return std::clamp((t - t0) / (t1 - t0), 0.0, 1.0);
}

glm::vec3 lerp(const glm::vec3& a, const glm::vec3& b, double u) {
  return glm::vec3(glm::dvec3(a) + (glm::dvec3(b) - glm::dvec3(a)) * u);
}

// Timeline A at time t: key index k and fraction u in [k, k + 1].
void segment_a(double t, int* k, double* u) {
  const double c = std::clamp(t, 0.0, 2.0);
  *k = c >= 1.0 ? 1 : 0;
  *u = c - *k;
}

// The pose the hand-built clip must give at time t (NaN: as time 0), from the table above.
std::vector<Transform> expected_pose(double t, const std::vector<Transform>& rest) {
  if (std::isnan(t)) t = 0.0;
  std::vector<Transform> e = rest;
  int k;
  double u;
  segment_a(t, &k, &u);
  const double keys_a = std::clamp(t, 0.0, 2.0);  // key units elapsed on timeline A
  for (int j = 0; j < kJoints; ++j)
    if (rotation_on_a(j))
      e[j].rotation = about(kRotationA[j].axis, kRotationA[j].step_degrees * keys_a);
  for (int j = 0; j <= 5; ++j)
    e[j].translation = lerp(translation_key(j, k), translation_key(j, k + 1), u);
  e[3].scale = lerp(kScale3Keys[k], kScale3Keys[k + 1], u);
  const double ub = fraction(t, 0.5, 1.5);
  e[3].rotation = about({0, 0, 1}, 90 * ub);
  e[6].translation = lerp({1, 2, 3}, {3, 2, -1}, ub);
  e[5].scale = lerp({1, 1, 1}, {2, 3, 4}, ub);
  e[0].scale = t < 1.0 ? glm::vec3(1) : t < 1.5 ? glm::vec3(2) : glm::vec3(0.5f);
  // Hermite in x with s = (t - 1) / 2, p0 = 1, m0 = 4, p1 = 3, m1 = -2.
  const double s = fraction(t, 1.0, 3.0), s2 = s * s, s3 = s2 * s;
  const double x =
      (2 * s3 - 3 * s2 + 1) * 1 + (s3 - 2 * s2 + s) * 4 + (-2 * s3 + 3 * s2) * 3 + (s3 - s2) * -2;
  e[1].scale = {static_cast<float>(x), 5, 7};
  e[5].rotation = about({0, 1, 0}, 30);
  return e;
}

std::vector<Transform> run_job(const Clip& clip, float t, const std::vector<Transform>& rest,
                               SamplingCursor* cursor = nullptr) {
  std::vector<Transform> out(rest.size());
  animtest::fill_sentinel(std::span<Transform>(out));
  SamplingJob job;
  job.clip = &clip;
  job.time = t;
  job.cursor = cursor;
  job.rest = rest;
  job.output = out;
  EXPECT_TRUE(job.validate());
  EXPECT_TRUE(job.run());
  return out;
}

bool same_pose_bits(const std::vector<Transform>& a, const std::vector<Transform>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(Transform)) == 0;
}

TEST(SamplingJob, HandBuiltClipIsPackedAsDescribed) {
  // Not behaviour, but what the other tests rely on to cover full and partial SoA blocks,
  // two timelines, loose channels and rest properties.
  const Clip clip = make_hand_clip();
  ASSERT_EQ(clip.tracks.timelines.size(), 2u);
  const ClipTimeline& a = clip.tracks.timelines[0];
  const ClipTimeline& b = clip.tracks.timelines[1];
  EXPECT_EQ(a.times, (std::vector<float>{0, 1, 2}));
  EXPECT_EQ(a.rotation_blocks, 2u);
  EXPECT_EQ(a.vector_blocks, 2u);
  EXPECT_FALSE(a.rotations_close);
  EXPECT_EQ(b.times, (std::vector<float>{0.5f, 1.5f}));
  EXPECT_EQ(b.rotation_blocks, 1u);
  EXPECT_EQ(b.vector_blocks, 1u);
  EXPECT_EQ(clip.tracks.loose.size(), 3u);  // step, cubic, single key
  // S2, S4, S6 and joint 7's three properties.
  EXPECT_EQ(clip.tracks.rest_translations.joints, (std::vector<int32_t>{7}));
  EXPECT_EQ(clip.tracks.rest_rotations.joints, (std::vector<int32_t>{7}));
  EXPECT_EQ(clip.tracks.rest_scales.joints, (std::vector<int32_t>{2, 4, 6, 7}));
  EXPECT_FLOAT_EQ(clip.duration, 3.0f);
}

TEST(SamplingJob, HandBuiltClipMatchesHandComputedValues) {
  const Clip clip = make_hand_clip();
  const std::vector<Transform> rest = make_rest(kJoints);
  for (float t : {-1.0f, 0.0f, 0.125f, 0.25f, 0.5f, 0.6f, 0.7f, 0.75f, 1.0f, 1.25f, 1.4f, 1.5f,
                  1.75f, 1.9f, 2.0f, 2.5f, 3.0f, 4.0f}) {
    const std::vector<Transform> got = run_job(clip, t, rest);
    const std::vector<Transform> want = expected_pose(t, rest);
    for (int j = 0; j < kJoints; ++j) {
      SCOPED_TRACE(testing::Message() << "t " << t << " joint " << j);
      expect_vec3_near(got[j].translation, want[j].translation, 1e-6f);
      expect_same_rotation(got[j].rotation, want[j].rotation, 1e-6f);
      expect_vec3_near(got[j].scale, want[j].scale, 1e-6f);
    }
    // What the rest pose supplies is copied, bit for bit.
    for (int j : {2, 4, 6, 7}) EXPECT_TRUE(animtest::same_bits(got[j].scale, rest[j].scale));
    EXPECT_TRUE(animtest::same_bits(got[7], rest[7]));
  }
}

TEST(SamplingJob, KeyTimesAndTimesOutsideTheKeysGiveKeyValuesExactly) {
  const Clip clip = make_hand_clip();
  const std::vector<Transform> rest = make_rest(kJoints);
  // Vectors lerp as a * (1 - u) + b * u: exactly a key's value at u = 0 and u = 1.
  for (int k = 0; k < 3; ++k) {
    const std::vector<Transform> at_key = run_job(clip, static_cast<float>(k), rest);
    for (int j = 0; j <= 5; ++j) EXPECT_EQ(at_key[j].translation, translation_key(j, k)) << j;
    EXPECT_EQ(at_key[3].scale, kScale3Keys[k]);
  }
  const std::vector<Transform> before = run_job(clip, -5.0f, rest);
  const std::vector<Transform> after = run_job(clip, 50.0f, rest);
  for (int j = 0; j <= 5; ++j) {
    EXPECT_EQ(before[j].translation, translation_key(j, 0));
    EXPECT_EQ(after[j].translation, translation_key(j, 2));
  }
  EXPECT_EQ(before[6].translation, glm::vec3(1, 2, 3));  // timeline B: its own first key
  EXPECT_EQ(after[6].translation, glm::vec3(3, 2, -1));
  EXPECT_EQ(run_job(clip, 0.5f, rest)[6].translation, glm::vec3(1, 2, 3));
  EXPECT_EQ(run_job(clip, 1.5f, rest)[6].translation, glm::vec3(3, 2, -1));
  EXPECT_EQ(before[1].scale, glm::vec3(1, 5, 7));  // cubic: its first value
  EXPECT_EQ(after[1].scale, glm::vec3(3, 5, 7));
  expect_same_rotation(after[0].rotation, about({1, 0, 0}, 180), 1e-7f);
  expect_same_rotation(before[2].rotation, glm::quat(1, 0, 0, 0), 1e-7f);
  // The stepped scale switches exactly at its key times.
  EXPECT_EQ(run_job(clip, std::nextafter(1.0f, 0.0f), rest)[0].scale, glm::vec3(1));
  EXPECT_EQ(run_job(clip, 1.0f, rest)[0].scale, glm::vec3(2));
  EXPECT_EQ(run_job(clip, 1.5f, rest)[0].scale, glm::vec3(0.5f));
}

// Before the first key and after the last, a rotation is the stored key itself, bit for bit,
// even when the last key lies on the other side of the sphere from the one before it (an
// interpolation at u = 1 along the shortest arc would give its negation).
TEST(SamplingJob, HeldEndsAreTheStoredKeysBitForBit) {
  Clip clip;
  clip.name = "ends";
  clip.joints.resize(kJoints);
  const std::vector<glm::quat> keys = {glm::quat(1, 0, 0, 0), glm::quat(-0.8f, 0.6f, 0, 0)};
  for (int j = 0; j < kJoints; ++j)
    clip.joints[j].rotation =
        add_channel(clip.quat_channels, Interpolation::kLinear, {0.0f, 1.0f}, keys);
  ASSERT_TRUE(clip.finalize(kJoints).is_ok());
  const std::vector<Transform> rest = make_rest(kJoints);
  for (float t : {1.0f, 2.0f, 1e9f}) {
    const std::vector<Transform> after = run_job(clip, t, rest);
    for (int j = 0; j < kJoints; ++j)
      EXPECT_TRUE(animtest::same_bits(after[j].rotation, clip.quat_channels[0].values[1]))
          << "t " << t << " joint " << j;
  }
  for (float t : {0.0f, -3.0f}) {
    const std::vector<Transform> before = run_job(clip, t, rest);
    for (int j = 0; j < kJoints; ++j)
      EXPECT_TRUE(animtest::same_bits(before[j].rotation, clip.quat_channels[0].values[0]))
          << "t " << t << " joint " << j;
  }
}

TEST(SamplingJob, NaNTimeSamplesTheFirstKeys) {
  const Clip clip = make_hand_clip();
  const std::vector<Transform> rest = make_rest(kJoints);
  const std::vector<Transform> at_zero = run_job(clip, 0.0f, rest);
  EXPECT_TRUE(same_pose_bits(run_job(clip, kNaN, rest), at_zero));
  EXPECT_TRUE(same_pose_bits(run_job(clip, -kInf, rest), at_zero));
  EXPECT_TRUE(same_pose_bits(run_job(clip, kInf, rest), run_job(clip, 3.0f, rest)));
  SamplingCursor cursor;
  run_job(clip, 1.2f, rest, &cursor);  // a cursor parked mid-clip changes nothing
  EXPECT_TRUE(same_pose_bits(run_job(clip, kNaN, rest, &cursor), at_zero));
  // And at_zero is the first key of every channel (checked against the table).
  const std::vector<Transform> want = expected_pose(0.0, rest);
  for (int j = 0; j < kJoints; ++j) {
    EXPECT_EQ(at_zero[j].translation, want[j].translation) << j;
    expect_same_rotation(at_zero[j].rotation, want[j].rotation, 1e-7f);
    EXPECT_EQ(at_zero[j].scale, want[j].scale) << j;
  }
}

// Rotation keys 2 degrees apart: every key pair takes the nlerp rule (timeline marked close).
TEST(SamplingJob, CloseRotationKeysInterpolateToo) {
  Clip clip;
  clip.name = "close";
  clip.joints.resize(5);
  const glm::vec3 axes[5] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 0}, {0, 1, -1}};
  for (int j = 0; j < 5; ++j) {
    const glm::vec3 axis = axes[j];
    std::vector<glm::quat> keys;
    for (int k = 0; k < 4; ++k) keys.push_back(about(axis, (j + 1) * 0.5 * k));
    clip.joints[j].rotation =
        add_channel<glm::quat>(clip.quat_channels, Interpolation::kLinear, {0, 1, 2, 3}, keys);
  }
  ASSERT_TRUE(clip.finalize(5).is_ok());
  ASSERT_EQ(clip.tracks.timelines.size(), 1u);
  ASSERT_TRUE(clip.tracks.timelines[0].rotations_close);
  const std::vector<Transform> rest = make_rest(5);
  for (float t : {0.0f, 0.3f, 1.0f, 1.5f, 2.75f, 3.0f}) {
    const std::vector<Transform> got = run_job(clip, t, rest);
    for (int j = 0; j < 5; ++j) {
      expect_same_rotation(got[j].rotation, about(axes[j], (j + 1) * 0.5 * t), 1e-6f);
      EXPECT_TRUE(animtest::same_bits(got[j].translation, rest[j].translation));
    }
  }
}

// Rotations that move too far between keys for nlerp take the first lanes of their part
// (coarse joints, then detail joints), those that do most often first, so that the other blocks
// interpolate by nlerp alone; every joint still samples its own channel.
TEST(SamplingJob, WideRotationsShareTheFirstLanesOfTheirPart) {
  constexpr int kN = 12;
  Clip clip;
  clip.name = "mixed";
  clip.joints.resize(kN);
  // How many of its 3 key intervals each joint moves too far for nlerp in: joint 3 all three,
  // joint 10 two, joint 7 one, the others none.
  const auto wide_intervals = [](int j) { return j == 3 ? 3 : j == 10 ? 2 : j == 7 ? 1 : 0; };
  for (int j = 0; j < kN; ++j) {
    const glm::vec3 axis = glm::normalize(glm::vec3(1.0f, 0.1f * j, 0.5f));
    std::vector<glm::quat> keys;
    double degrees = 0.0;
    for (int k = 0; k < 4; ++k) {
      keys.push_back(about(axis, degrees));
      degrees += k < wide_intervals(j) ? 40.0 : 1.0;
    }
    clip.joints[j].rotation =
        add_channel<glm::quat>(clip.quat_channels, Interpolation::kLinear, {0, 1, 2, 3}, keys);
  }
  ASSERT_TRUE(clip.finalize(kN).is_ok());
  ASSERT_EQ(clip.tracks.timelines.size(), 1u);
  auto joints_in_lanes = [](const ClipTimeline& t) {
    std::vector<int> joints;
    for (int32_t target : t.rotation_targets)
      if (target >= 0) joints.push_back(target / 10);
    return joints;
  };
  EXPECT_FALSE(clip.tracks.timelines[0].rotations_close);
  EXPECT_EQ(joints_in_lanes(clip.tracks.timelines[0]),
            (std::vector<int>{3, 10, 7, 0, 1, 2, 4, 5, 6, 8, 9, 11}));
  const std::vector<uint8_t> detail = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1};
  const ClipTracks with_detail = ClipTracks::build(clip, detail);
  EXPECT_EQ(joints_in_lanes(with_detail.timelines[0]),
            (std::vector<int>{3, 7, 0, 1, 2, 4, 5, 6, 10, 8, 9, 11}));
  EXPECT_EQ(with_detail.timelines[0].coarse_rotation_blocks, 2u);
  const std::vector<Transform> rest = make_rest(kN);
  for (float t : {0.0f, 0.4f, 1.5f, 2.9f}) {
    const std::vector<Transform> got = run_job(clip, t, rest);
    for (int j = 0; j < kN; ++j)
      expect_same_rotation(got[j].rotation, clip.quat_channels[j].sample(t), 1e-6f);
  }
}

// ---------------------------------------------------------------------------------------------
// validate()

struct RefusalCase {
  const char* what;
  SamplingJob job;
};

TEST(SamplingJob, ValidateRefusesAndRunWritesNothing) {
  const Clip clip = make_hand_clip();
  const std::vector<Transform> rest = make_rest(kJoints);
  // One buffer for every output below: the refused runs must leave all of it as it was.
  std::vector<Transform> buffer(2 * kJoints + 1);
  const std::span<Transform> all(buffer);
  const std::span<const Transform> all_const(buffer);
  auto job = [&](std::span<const Transform> r, std::span<Transform> o, const Clip* c = nullptr) {
    SamplingJob j;
    j.clip = c;
    j.time = 0.75f;
    j.rest = r;
    j.output = o;
    return j;
  };
  const std::span<const Transform> rest_span(rest);
  const std::vector<RefusalCase> cases = {
      {"no clip", job(rest_span, all.first(kJoints))},
      {"rest one short", job(rest_span.first(kJoints - 1), all.first(kJoints), &clip)},
      {"output one short", job(rest_span, all.first(kJoints - 1), &clip)},
      {"output one long", job(rest_span, all.first(kJoints + 1), &clip)},
      {"empty output", job(rest_span, {}, &clip)},
      {"output is rest", job(all_const.first(kJoints), all.first(kJoints), &clip)},
      {"output starts inside rest", job(all_const.first(kJoints), all.subspan(1, kJoints), &clip)},
      {"rest starts inside output", job(all_const.subspan(1, kJoints), all.first(kJoints), &clip)},
      {"last joints overlap",
       job(all_const.subspan(kJoints - 1, kJoints), all.first(kJoints), &clip)},
  };
  std::vector<Transform> long_rest(kJoints + 1);
  for (const RefusalCase& c : cases) {
    SCOPED_TRACE(c.what);
    animtest::fill_sentinel(all);
    SamplingCursor cursor;
    SamplingJob j = c.job;
    j.cursor = &cursor;
    EXPECT_FALSE(j.validate());
    EXPECT_FALSE(j.run());
    EXPECT_TRUE(animtest::all_sentinel(all_const));
    EXPECT_EQ(cursor.clip, nullptr);  // the cursor is not touched either
  }
  {
    SCOPED_TRACE("rest one long");
    animtest::fill_sentinel(all);
    const SamplingJob j = job(long_rest, all.first(kJoints), &clip);
    EXPECT_FALSE(j.validate());
    EXPECT_FALSE(j.run());
    EXPECT_TRUE(animtest::all_sentinel(all_const));
  }
  // Adjacent but not overlapping is fine, in either order.
  std::copy(rest.begin(), rest.end(), buffer.begin());
  EXPECT_TRUE(job(all_const.first(kJoints), all.subspan(kJoints, kJoints), &clip).run());
  std::copy(rest.begin(), rest.end(), buffer.begin() + kJoints);
  EXPECT_TRUE(job(all_const.subspan(kJoints, kJoints), all.first(kJoints), &clip).run());
  EXPECT_TRUE(same_pose_bits(std::vector<Transform>(buffer.begin(), buffer.begin() + kJoints),
                             run_job(clip, 0.75f, rest)));
}

TEST(SamplingJob, EmptyClipIsValid) {
  Clip clip;
  ASSERT_TRUE(clip.finalize(0).is_ok());
  SamplingJob job;
  job.clip = &clip;
  EXPECT_TRUE(job.validate());
  EXPECT_TRUE(job.run());
}

// ---------------------------------------------------------------------------------------------
// The cursor: a cache, so results with one are bit-identical to results without.

// A second clip for the same skeleton: every joint rotates about x through 10 keys, and
// joint 0 translates.
Clip make_long_clip(int num_keys) {
  Clip clip;
  clip.name = "long";
  clip.joints.resize(kJoints);
  std::vector<float> times;
  std::vector<glm::quat> rotations;
  std::vector<glm::vec3> translations;
  for (int k = 0; k < num_keys; ++k) {
    times.push_back(0.25f * static_cast<float>(k));
    rotations.push_back(about({1, 0, 0}, 20.0 * k));
    translations.push_back({static_cast<float>(k % 3), 0, 0});
  }
  for (int j = 0; j < kJoints; ++j)
    clip.joints[j].rotation =
        add_channel(clip.quat_channels, Interpolation::kLinear, times, rotations);
  clip.joints[0].translation =
      add_channel(clip.vec3_channels, Interpolation::kLinear, times, translations);
  EXPECT_TRUE(clip.finalize(kJoints).is_ok());
  return clip;
}

void expect_cursor_changes_nothing(const Clip& clip, const std::vector<float>& times,
                                   const std::vector<Transform>& rest, SamplingCursor& cursor) {
  for (size_t i = 0; i < times.size(); ++i) {
    const std::vector<Transform> with = run_job(clip, times[i], rest, &cursor);
    ASSERT_TRUE(same_pose_bits(with, run_job(clip, times[i], rest)))
        << clip.name << ": sample " << i << " at t " << times[i];
    ASSERT_EQ(cursor.clip, &clip);
  }
}

TEST(SamplingJob, CursorGivesBitIdenticalResultsForwardBackwardAndLooping) {
  const Clip clip = make_hand_clip();
  const std::vector<Transform> rest = make_rest(kJoints);
  std::vector<float> forward, jumps, loops;
  for (int i = -6; i <= 200; ++i) forward.push_back(static_cast<float>(i) / 60.0f);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> anywhere(-0.5f, 3.5f);
  for (int i = 0; i < 300; ++i)
    jumps.push_back(i % 5 == 0 ? std::round(anywhere(rng)) : anywhere(rng));
  for (int i = 0; i < 400; ++i) loops.push_back(std::fmod(0.037f * static_cast<float>(i), 3.0f));
  SamplingCursor cursor;
  expect_cursor_changes_nothing(clip, forward, rest, cursor);
  expect_cursor_changes_nothing(clip, jumps, rest, cursor);
  expect_cursor_changes_nothing(clip, loops, rest, cursor);
  std::vector<float> backward(forward.rbegin(), forward.rend());
  expect_cursor_changes_nothing(clip, backward, rest, cursor);
}

TEST(SamplingJob, OneCursorSwitchingBetweenClips) {
  const Clip hand = make_hand_clip();
  const Clip long_clip = make_long_clip(10);
  const std::vector<Transform> rest = make_rest(kJoints);
  SamplingCursor cursor;
  for (int i = 0; i < 120; ++i) {
    const float t = 0.02f * static_cast<float>(i);
    expect_cursor_changes_nothing(long_clip, {2.2f - t}, rest, cursor);
    expect_cursor_changes_nothing(hand, {t}, rest, cursor);
  }
  // The long clip's values, by hand: joint j at t is 20 degrees per 0.25 s about x.
  const std::vector<Transform> got = run_job(long_clip, 1.1f, rest, &cursor);
  for (int j = 0; j < kJoints; ++j)
    expect_same_rotation(got[j].rotation, about({1, 0, 0}, 88), 1e-6f);
  // t = 1.1 is 0.4 of the way from key 4 (x = 1) to key 5 (x = 2).
  EXPECT_NEAR(got[0].translation.x, 1.4f, 1e-6f);
}

TEST(SamplingJob, CursorOfAClipFinalizedAgainWithFewerKeys) {
  // The same Clip object (so the cursor's clip pointer still matches) rebuilt with 3 keys
  // after the cursor settled near key 40 of 50: the stale key indices only cost a search.
  Clip clip = make_long_clip(50);
  const std::vector<Transform> rest = make_rest(kJoints);
  SamplingCursor cursor;
  expect_cursor_changes_nothing(clip, {10.0f, 10.05f, 10.1f}, rest, cursor);
  clip = make_long_clip(3);
  expect_cursor_changes_nothing(clip, {0.1f, 0.3f, 0.45f, 0.2f}, rest, cursor);
  expect_same_rotation(run_job(clip, 0.3f, rest, &cursor)[4].rotation, about({1, 0, 0}, 24), 1e-6f);
}

TEST(SamplingJob, CursorForAClipWithMoreTimelinesThanSlots) {
  // 11 joints, each rotating about z from 0 to 90 degrees in three keys starting 0.1 s after
  // the previous joint's: 11 different key-time lists, so 11 timelines, 3 beyond the
  // cursor's slots.
  constexpr int kMany = 11;
  static_assert(kMany > SamplingCursor::kSlots);
  Clip clip;
  clip.name = "many";
  clip.joints.resize(kMany);
  for (int j = 0; j < kMany; ++j) {
    const float s = 0.1f * static_cast<float>(j);
    clip.joints[j].rotation =
        add_channel<glm::quat>(clip.quat_channels, Interpolation::kLinear, {s, s + 0.5f, s + 1.0f},
                               {glm::quat(1, 0, 0, 0), about({0, 0, 1}, 45), about({0, 0, 1}, 90)});
  }
  ASSERT_TRUE(clip.finalize(kMany).is_ok());
  ASSERT_EQ(clip.tracks.timelines.size(), static_cast<size_t>(kMany));
  const std::vector<Transform> rest = make_rest(kMany);
  std::vector<float> times;
  for (int i = -3; i <= 130; ++i) times.push_back(0.017f * static_cast<float>(i));
  for (int i = 0; i < 40; ++i) times.push_back(2.1f - 0.05f * static_cast<float>(i));
  SamplingCursor cursor;
  expect_cursor_changes_nothing(clip, times, rest, cursor);
  for (float t : times) {
    const std::vector<Transform> got = run_job(clip, t, rest, &cursor);
    for (int j = 0; j < kMany; ++j) {
      const double u = fraction(t, 0.1 * j, 0.1 * j + 1.0);
      expect_same_rotation(got[j].rotation, about({0, 0, 1}, 90 * u), 1e-6f);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The packed path against Channel::sample (the loaders' form, interpolated one channel at a
// time by different code) for every channel of real assets.

struct Worst {
  double error = 0.0;
  std::string where;
  void note(double e, const std::string& w) {
    if (e > error) error = e, where = w;
  }
};

void cross_check(const Asset& asset, int* checked) {
  const std::vector<Transform>& rest = asset.skeleton.rest_pose;
  for (const Clip& clip : asset.clips) {
    // Times: every key time, the midpoints between keys, a grid over the clip and past it.
    std::vector<float> times;
    auto add_keys = [&](const auto& channels) {
      for (const auto& c : channels)
        for (size_t k = 0; k < c.times.size(); ++k) {
          times.push_back(c.times[k]);
          if (k + 1 < c.times.size()) times.push_back(0.5f * (c.times[k] + c.times[k + 1]));
        }
    };
    add_keys(clip.vec3_channels);
    add_keys(clip.quat_channels);
    for (int i = -5; i <= 205; ++i) times.push_back(clip.duration * static_cast<float>(i) / 200.0f);
    std::sort(times.begin(), times.end());
    times.erase(std::unique(times.begin(), times.end()), times.end());

    Worst rotation, vector;
    SamplingCursor cursor;
    std::vector<Transform> out(rest.size());
    for (float t : times) {
      SamplingJob job;
      job.clip = &clip;
      job.time = t;
      job.cursor = &cursor;
      job.rest = rest;
      job.output = out;
      ASSERT_TRUE(job.run());
      for (size_t j = 0; j < clip.joints.size(); ++j) {
        const JointChannels& c = clip.joints[j];
        const std::string where =
            clip.name + " joint " + std::to_string(j) + " t " + std::to_string(t);
        if (c.rotation >= 0) {
          rotation.note(
              animtest::rotation_error(out[j].rotation, clip.quat_channels[c.rotation].sample(t)),
              where + " rotation");
        } else {
          EXPECT_TRUE(animtest::same_bits(out[j].rotation, rest[j].rotation)) << where;
        }
        for (auto [channel, got, from_rest, name] :
             {std::tuple{c.translation, out[j].translation, rest[j].translation, "translation"},
              std::tuple{c.scale, out[j].scale, rest[j].scale, "scale"}}) {
          if (channel < 0) {
            EXPECT_TRUE(animtest::same_bits(got, from_rest)) << where << " " << name;
            continue;
          }
          const glm::vec3 want = clip.vec3_channels[channel].sample(t);
          const float size = std::max({1.0f, std::abs(want.x), std::abs(want.y), std::abs(want.z)});
          const glm::vec3 d = glm::abs(got - want);
          vector.note(std::max({d.x, d.y, d.z}) / size, where + " " + name);
        }
      }
      ++*checked;
    }
    EXPECT_LE(rotation.error, 1e-6) << asset.name << ": worst at " << rotation.where;
    EXPECT_LE(vector.error, 1e-6) << asset.name << ": worst (relative) at " << vector.where;
  }
}

TEST(SamplingJob, PackedTimelinesAgreeWithChannelSampleOnRealAssets) {
  ANIMD_REQUIRE_SHARED();
  int checked = 0;
  for (const char* file :
       {"RobotExpressive/RobotExpressive.glb", "Fox/glTF-Binary/Fox.glb",
        "CesiumMan/glTF-Binary/CesiumMan.glb", "RiggedFigure/glTF-Binary/RiggedFigure.glb"}) {
    const Expected<Asset> asset = load_gltf(animtest::shared_path(std::string("assets/") + file));
    ASSERT_TRUE(asset.has_value()) << file << ": " << asset.error().message();
    cross_check(*asset, &checked);
  }
  const Expected<Asset> bob = load_md5(animtest::shared_path("assets/Bob_assimp/Bob.md5mesh"),
                                       {animtest::shared_path("assets/Bob_assimp/Bob.md5anim")});
  ASSERT_TRUE(bob.has_value()) << bob.error().message();
  cross_check(*bob, &checked);
  EXPECT_GT(checked, 5000);  // poses compared
}

}  // namespace sampling_job_test
}  // namespace anim
