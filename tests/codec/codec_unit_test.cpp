// The compact encoding's building blocks: bit codes, quantization by hand, key and delta round
// trips, and hostile bytes.
#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "anim/animator.h"
#include "anim/loaders/builtin_character.h"
#include "animcodec/bit_stream.h"
#include "animcodec/compact.h"
#include "codec_harness.h"

using namespace animcodec;

namespace codec_unit_test {

std::vector<uint8_t> write_bits(auto fn) {
  std::vector<uint8_t> buf(64);
  BitWriter w(buf.data(), buf.size());
  fn(w);
  buf.resize(w.finish());
  return buf;
}

// A 3-joint chain, 1 m bones along +Y, with fixed precision.
Layout chain_layout() {
  std::vector<JointPrecision> p(3, JointPrecision{10, 10, 8});
  std::vector<Trs> rest(3);
  rest[1].t = {0.0f, 1.0f, 0.0f};
  rest[2].t = {0.0f, 1.0f, 0.0f};
  return layout_from_precision(p, rest, 0xC0FFEEu);
}

TEST(CodecBits, ExpGolombBitsByHand) {
  // ueg(0, 0) = "1"; ueg(1, 0) = "0 1 0" (LSB first: 0b010); seg(1, 0) = zigzag 2 -> "0 1 1".
  EXPECT_EQ(write_bits([](BitWriter& w) { w.ueg(0, 0); }), std::vector<uint8_t>{0x01});
  EXPECT_EQ(write_bits([](BitWriter& w) { w.ueg(1, 0); }), std::vector<uint8_t>{0x02});
  EXPECT_EQ(write_bits([](BitWriter& w) { w.seg(-1, 0); }), std::vector<uint8_t>{0x02});
  EXPECT_EQ(write_bits([](BitWriter& w) { w.seg(1, 0); }), std::vector<uint8_t>{0x06});
  // ueg(5, 2): w = 9 = 0b1001, 4 bits, 1 zero: "0" "1" then 001 -> bits 0,1,1,0,0 = 0x06.
  EXPECT_EQ(write_bits([](BitWriter& w) { w.ueg(5, 2); }), std::vector<uint8_t>{0x06});
  // A fixed field then a bit: 0b101 in 3 bits, then 1 -> 0b1101.
  EXPECT_EQ(write_bits([](BitWriter& w) {
              w.put(5, 3);
              w.bit(true);
            }),
            std::vector<uint8_t>{0x0D});
  EXPECT_EQ(BitWriter::ueg_bits(5, 2), 5);
}

TEST(CodecBits, ReaderRoundTripAndOverrun) {
  std::vector<uint8_t> buf(256);
  BitWriter w(buf.data(), buf.size());
  const int64_t values[] = {0, 1, -1, 1000, -123456789, int64_t{1} << 40};
  for (int64_t v : values) w.seg(v, 3);
  w.put(0xABCDEF12345ull, 44);
  buf.resize(w.finish());
  BitReader r(buf.data(), buf.size());
  for (int64_t v : values) EXPECT_EQ(r.seg(3), v);
  EXPECT_EQ(r.get(44), 0xABCDEF12345ull);
  EXPECT_TRUE(r.at_clean_end());
  EXPECT_FALSE(r.failed());
  r.get(16);
  EXPECT_TRUE(r.failed());
  // A writer without room says so.
  uint8_t small[2];
  BitWriter tiny(small, sizeof small);
  tiny.put(0xFFFFFF, 24);
  EXPECT_EQ(tiny.finish(), 0u);
  // An all-zero prefix longer than the limit fails instead of looping or overflowing.
  std::vector<uint8_t> zeros(16, 0);
  BitReader z(zeros.data(), zeros.size());
  z.ueg(0);
  EXPECT_TRUE(z.failed());
}

TEST(CodecBits, ExactSizeBuffersGetTheSameBytes) {
  // The writer stores 8 bytes at a time while there is room and a byte at a time near the
  // end: a buffer of exactly the stream's size, and every smaller one, must see the same
  // bytes or a refusal. Fields of every width, long codes (split writes) included.
  auto write = [](BitWriter& w) {
    for (int i = 0; i < 40; ++i) {
      w.put(static_cast<uint64_t>(i) * 0x9E3779B97F4A7C15ull, 1 + (i * 7) % 64);
      w.seg((i % 2 ? -1 : 1) * (int64_t{1} << (i % 45)), i % 9);
      w.bit(i % 3 == 0);
    }
  };
  std::vector<uint8_t> big(1024, 0xAA);
  BitWriter reference(big.data(), big.size());
  write(reference);
  big.resize(reference.finish());
  ASSERT_GT(big.size(), 16u);
  for (size_t size : {big.size(), big.size() - 1, big.size() - 7, size_t{8}, size_t{3}}) {
    std::vector<uint8_t> buf(size, 0x55);
    BitWriter w(buf.data(), buf.size());
    write(w);
    const size_t written = w.finish();
    if (size < big.size()) {
      EXPECT_EQ(written, 0u) << size;
      EXPECT_TRUE(w.overflowed());
    } else {
      EXPECT_EQ(buf, big);
    }
  }
}

TEST(CodecQuantize, RotationsByHand) {
  std::array<int16_t, 3> r;
  uint8_t largest;
  quantize_rotation_exact(0, 0, 0, 1, 15, r, largest);
  EXPECT_EQ(largest, 3);
  EXPECT_EQ(r, (std::array<int16_t, 3>{0, 0, 0}));
  // 90 degrees about Y: y = w = 0.7071...; the first of the tied largest (y) is dropped and
  // w = 0.70710678 * 2^15 = 23170.47 -> 23170.
  const double h = std::sqrt(0.5);
  quantize_rotation_exact(0, h, 0, h, 15, r, largest);
  EXPECT_EQ(largest, 1);
  EXPECT_EQ(r, (std::array<int16_t, 3>{0, 0, 23170}));
  // Largest component negative: the quaternion is negated. (0, 0, -0.8, 0.6) at 10 bits:
  // drop z, w = -0.6 * 1024 = -614.4 -> -614.
  quantize_rotation_exact(0, 0, -0.8, 0.6, 10, r, largest);
  EXPECT_EQ(largest, 2);
  EXPECT_EQ(r, (std::array<int16_t, 3>{0, 0, -614}));
  // The float path agrees on these.
  quantize_rotation(glm::quat(0.6f, 0.0f, 0.0f, -0.8f), 10, r, largest);
  EXPECT_EQ(largest, 2);
  EXPECT_EQ(r, (std::array<int16_t, 3>{0, 0, -614}));
  // Back: (0, 0, -0.8, 0.6) and its negation are the same rotation.
  const glm::quat q = dequantize_rotation({0, 0, -614}, 2, 10);
  EXPECT_FLOAT_EQ(q.x, 0.0f);
  EXPECT_NEAR(q.z, 0.8f, 1e-3f);  // sqrt(1 - (614/1024)^2) = 0.8003, normalized
  EXPECT_NEAR(q.w, -0.6f, 1e-3f);
}

TEST(CodecQuantize, TranslationRelativeToRestByHand) {
  const Layout l = chain_layout();
  // Joint 1 rests at (0, 1, 0); step 2^-10. (0.5, 1.001, 0) -> (512, round(1.024) = 1, 0).
  const QJoint q = quantize_joint(l, 1, {0.5f, 1.001f, 0.0f}, glm::quat(1, 0, 0, 0), {1, 1, 1});
  EXPECT_EQ(q.t, (std::array<int32_t, 3>{512, 1, 0}));
  EXPECT_EQ(q.s, (std::array<int32_t, 3>{0, 0, 0}));
  // Scale 1.5 at step 2^-8 -> 128.
  const QJoint s = quantize_joint(l, 2, {0, 1, 0}, glm::quat(1, 0, 0, 0), {1.5f, 1.0f, 1.0f});
  EXPECT_EQ(s.s, (std::array<int32_t, 3>{128, 0, 0}));
  const Trs back = dequantize_joint(l, 1, q);
  EXPECT_FLOAT_EQ(back.t.x, 0.5f);
  EXPECT_FLOAT_EQ(back.t.y, 1.0f + 1.0f / 1024.0f);
  // Root: 2^-14 steps. 1.5 m -> 24576.
  const QRoot root = quantize_root({1.5f, 0.0f, -2.0f}, glm::quat(1, 0, 0, 0), {1, 1, 1});
  EXPECT_EQ(root.t, (std::array<int64_t, 3>{24576, 0, -32768}));
}

TEST(CodecLayout, PrecisionFollowsProportionsNotUnits) {
  // The same chain in metres and in centimetres gets the same rotation bits, and translation
  // steps 100x apart in local units (2^-e: exponents ~6.6 apart).
  std::vector<int> parents{-1, 0, 1};
  std::vector<Trs> m(3), cm(3);
  m[1].t = m[2].t = {0.0f, 0.9f, 0.0f};
  cm[1].t = cm[2].t = {0.0f, 90.0f, 0.0f};
  const Layout a = make_layout(parents, m, glm::mat4(1.0f));
  const Layout b = make_layout(parents, cm, glm::mat4(1.0f));
  for (int j = 0; j < 3; ++j) {
    EXPECT_EQ(a.precision[j].rotation_bits, b.precision[j].rotation_bits);
    const int d = a.precision[j].translation_exp - b.precision[j].translation_exp;
    EXPECT_GE(d, 6);
    EXPECT_LE(d, 7);
  }
  // The root (reach 1.8 + margin) needs more bits than the leaf (margin only).
  EXPECT_GT(a.precision[0].rotation_bits, a.precision[2].rotation_bits);
  // A cm rig under a 0.01 root transform is the metre rig: same steps in model space.
  const Layout c = make_layout(parents, cm, glm::scale(glm::mat4(1.0f), glm::vec3(0.01f)));
  for (int j = 0; j < 3; ++j) {
    EXPECT_EQ(a.precision[j].rotation_bits, c.precision[j].rotation_bits);
    EXPECT_EQ(b.precision[j].translation_exp, c.precision[j].translation_exp);
  }
  EXPECT_NE(a.id, b.id);
}

std::vector<QJoint> wavy_pose(const Layout& l, int frame) {
  std::vector<QJoint> pose(l.num_joints());
  for (size_t j = 0; j < pose.size(); ++j) {
    const float t = frame / 60.0f;
    const glm::quat r =
        glm::angleAxis(0.8f * std::sin(2.0f * t + j), glm::normalize(glm::vec3(1, j, 2)));
    const glm::vec3 tr = l.rest[j].t + glm::vec3(j == 0 ? 0.1f * std::sin(3 * t) : 0.0f, 0, 0);
    const glm::vec3 sc(1.0f + (j == 2 && frame > 30 ? 0.25f * std::sin(t) : 0.0f));
    pose[j] = quantize_joint(l, j, tr, r, sc);
  }
  return pose;
}

TEST(CodecFrames, KeyAndDeltaRoundTrips) {
  Skeleton s;
  s.layout = chain_layout();
  codectest::Stream stream(s);
  for (int f = 0; f < 240; ++f) {
    const QRoot root =
        quantize_root({0.02f * f, 0, 0}, glm::angleAxis(0.01f * f, glm::vec3(0, 1, 0)), {1, 1, 1});
    stream.push(wavy_pose(s.layout, f), root, f == 100);
  }
  EXPECT_EQ(stream.key_frames, 2u);
}

TEST(CodecFrames, LargestComponentChangesAreEscaped) {
  Skeleton s;
  s.layout = chain_layout();
  codectest::Stream stream(s);
  // A full turn about X in 40 steps: the largest component goes w -> x -> w.
  for (int f = 0; f < 80; ++f) {
    std::vector<QJoint> pose(3);
    for (size_t j = 0; j < 3; ++j)
      pose[j] =
          quantize_joint(s.layout, j, s.layout.rest[j].t,
                         glm::angleAxis(f * 6.2831853f / 40.0f, glm::vec3(1, 0, 0)), {1, 1, 1});
    stream.push(pose, QRoot{});
  }
  EXPECT_EQ(stream.key_frames, 1u);
}

TEST(CodecFrames, UnchangedPoseCostsAFewBytes) {
  Skeleton s;
  s.layout = chain_layout();
  codectest::Stream stream(s);
  const auto pose = wavy_pose(s.layout, 7);
  stream.push(pose, QRoot{});
  stream.push(pose, QRoot{});
  EXPECT_LE(stream.push(pose, QRoot{}), 4u);
}

TEST(CodecHostile, ClearErrorsForBadFrames) {
  Skeleton s;
  s.layout = chain_layout();
  const Layout& l = s.layout;
  const auto pose = wavy_pose(l, 3);
  std::vector<uint8_t> key(max_frame_bytes(3));
  key.resize(encode_frame(l, FrameKind::kKey, pose, QRoot{}, {}, key));
  ASSERT_GT(key.size(), 0u);
  std::vector<QJoint> out(3);
  QRoot root;
  EXPECT_EQ(decode_frame(l, key, {}, out, root), "");

  auto error_of = [&](std::vector<uint8_t> bytes, const Baseline& b = {}) {
    return decode_frame(l, bytes, b, out, root);
  };
  EXPECT_EQ(error_of({}), "compact frame: empty");
  EXPECT_EQ(error_of({0x03}), "compact frame: unknown frame kind 3");
  // A delta without a frame held.
  EXPECT_NE(error_of({0x02}).find("without a key frame held"), std::string::npos);
  // Another skeleton's key frame.
  Layout other = l;
  other.id = 1;
  EXPECT_EQ(decode_frame(other, key, {}, out, root),
            "compact frame: key frame for another skeleton");
  // Every truncation errs, and so do trailing bytes.
  for (size_t n = 1; n < key.size(); ++n)
    EXPECT_NE(error_of(std::vector<uint8_t>(key.begin(), key.begin() + n)), "") << n;
  auto longer = key;
  longer.push_back(0x01);
  EXPECT_EQ(error_of(longer), "compact frame: truncated or trailing bytes");
  // A rotation component beyond 1/sqrt(2): joint 0's first component field set to all ones.
  {
    std::vector<uint8_t> bad(64);
    BitWriter w(bad.data(), bad.size());
    w.put(0, 2);
    w.put(l.id, 32);
    w.put(3, 16);
    for (int i = 0; i < 3; ++i) w.seg(0, 16);
    w.put(3, 2);
    for (int i = 0; i < 3; ++i) w.put(1u << 15, 16);
    w.bit(false);  // unit scale
    w.bit(false);  // joint 0 not at rest
    w.put(3, 2);
    w.put(0x7FF, 11);  // 1023 at 10 bits: beyond the limit of 725
    w.put(1 << 10, 11);
    w.put(1 << 10, 11);
    bad.resize(w.finish());
    EXPECT_EQ(error_of(bad), "compact frame: joint 0 rotation out of range");
  }
}

TEST(CodecHostile, RandomBytesNeverCrashOrYieldNaN) {
  Skeleton s;
  s.layout = chain_layout();
  const Layout& l = s.layout;
  std::vector<QJoint> prev1 = wavy_pose(l, 1), prev2 = wavy_pose(l, 0);
  QRoot r1, r2;
  Baseline b{prev1, &r1, prev2, &r2};
  std::mt19937 rng(7);
  std::vector<uint8_t> frame(max_frame_bytes(3));
  frame.resize(encode_frame(l, FrameKind::kDelta2, wavy_pose(l, 2), QRoot{}, b, frame));
  std::vector<QJoint> out(3);
  QRoot root;
  int accepted = 0;
  for (int i = 0; i < 20000; ++i) {
    std::vector<uint8_t> bytes = frame;
    if (i % 2) {
      bytes[rng() % bytes.size()] ^= static_cast<uint8_t>(1u << (rng() % 8));
    } else {
      bytes.resize(rng() % 40);
      for (auto& c : bytes) c = static_cast<uint8_t>(rng());
    }
    if (decode_frame(l, bytes, b, out, root) != "") continue;
    ++accepted;
    for (size_t j = 0; j < 3; ++j) {
      const Trs t = dequantize_joint(l, j, out[j]);
      ASSERT_TRUE(std::isfinite(t.r.w) && std::isfinite(t.r.x) && std::isfinite(t.t.x));
      ASSERT_NEAR(glm::length(t.r), 1.0f, 1e-3f);
    }
  }
  EXPECT_GT(accepted, 0);  // some bit flips land in residuals and stay valid
}

TEST(CodecDrift, TenMinutesOfDeltasEqualTheKeyFrameOfTheLastTick) {
  // 10 minutes at 60 Hz of the built-in character walking, as one delta chain: the receiver's
  // pose stays exactly the sender's quantized pose (checked every frame by the harness), so
  // the last palette equals the one a fresh key frame of that tick gives.
  const anim::Asset asset = anim::make_builtin_character();
  const Skeleton s = codectest::codec_skeleton(asset);
  anim::Animator animator(asset.skeleton, asset.clips);
  ASSERT_TRUE(animator.play(asset.find_clip("walk")).is_ok());
  codectest::Stream stream(s);
  std::vector<QJoint> pose;
  for (int f = 0; f < 36000; ++f) {
    ASSERT_TRUE(animator.update(1.0f / 60.0f).is_ok());
    codectest::quantize_pose(s.layout, animator.local_pose().locals, pose);
    stream.push(pose, quantize_root({0.02f * f, 0, 0}, glm::quat(1, 0, 0, 0), {1, 1, 1}));
    if (::testing::Test::HasFailure()) break;
  }
  EXPECT_EQ(stream.key_frames, 1u);
  codectest::Stream fresh(s);
  fresh.push(pose, stream.sent_root[0]);
  EXPECT_TRUE(fresh.recv[0] == stream.recv[0]);
}

}  // namespace codec_unit_test
