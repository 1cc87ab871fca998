// The compact morph weight codec (animcodec/morph_codec.h): bytes computed by hand for a small
// key and delta, round trips over random weights, and every input the decoder must refuse
// (leaving its output as it was).
#include "animcodec/morph_codec.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

using namespace animcodec;

namespace morph_codec_test {

std::string bytes(std::initializer_list<int> b) {
  std::string s;
  for (int v : b) s.push_back(static_cast<char>(v));
  return s;
}

std::string key_of(const std::vector<uint16_t>& q) {
  std::string out;
  EXPECT_TRUE(encode_morph_key(q, out));
  return out;
}

std::string delta_of(const std::vector<uint16_t>& q, const std::vector<uint16_t>& baseline) {
  std::string out;
  EXPECT_TRUE(encode_morph_delta(q, baseline, out));
  return out;
}

// Decoding `in` against `baseline` fails, and leaves the output as it was.
void expect_refused(const std::string& in, const std::vector<uint16_t>& baseline,
                    const std::string& why) {
  const std::vector<uint16_t> before{7, 8, 9, 10, 11};
  std::vector<uint16_t> out = before;
  const std::string error = decode_morphs(in, baseline, out);
  EXPECT_NE(error.find(why), std::string::npos) << "got \"" << error << "\", wanted " << why;
  EXPECT_EQ(error.rfind("compact morphs: ", 0), 0u) << error;
  EXPECT_EQ(out, before);
}

const std::vector<uint16_t> kThree{0x123, 0xABC, 0x7FF};

TEST(MorphQuantize, StepIsOne1024thFromMinusOne) {
  EXPECT_EQ(quantize_morph_weight(0.0f), 1024);
  EXPECT_EQ(quantize_morph_weight(-1.0f), 0);
  EXPECT_EQ(quantize_morph_weight(1.0f), 2048);
  EXPECT_EQ(quantize_morph_weight(0.25f), 1280);
  EXPECT_EQ(quantize_morph_weight(2.0f + 1023.0f / 1024.0f), 4095);
  EXPECT_EQ(dequantize_morph_weight(0), -1.0f);
  EXPECT_EQ(dequantize_morph_weight(1024), 0.0f);
  EXPECT_EQ(dequantize_morph_weight(4095), 2.0f + 1023.0f / 1024.0f);
}

TEST(MorphQuantize, HalvesRoundAwayFromZero) {
  EXPECT_EQ(quantize_morph_weight(-1.0f + 0.5f / 1024), 1);
  EXPECT_EQ(quantize_morph_weight(-1.0f + 1.5f / 1024), 2);
  EXPECT_EQ(quantize_morph_weight(0.5f / 1024), 1025);
  EXPECT_EQ(quantize_morph_weight(-0.5f / 1024), 1024);
  EXPECT_EQ(quantize_morph_weight(std::nextafter(-0.5f / 1024, -1.0f)), 1023);
  EXPECT_EQ(quantize_morph_weight(2.0f + 1022.5f / 1024), 4095);
}

TEST(MorphQuantize, OutOfRangeClampsAndNaNIsZero) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(quantize_morph_weight(3.0f), 4095);
  EXPECT_EQ(quantize_morph_weight(1e30f), 4095);
  EXPECT_EQ(quantize_morph_weight(inf), 4095);
  EXPECT_EQ(quantize_morph_weight(-1.0f - 0.5f / 1024), 0);
  EXPECT_EQ(quantize_morph_weight(-1e30f), 0);
  EXPECT_EQ(quantize_morph_weight(-inf), 0);
  EXPECT_EQ(quantize_morph_weight(std::numeric_limits<float>::quiet_NaN()), 1024);
  // Tiny weights are 0 whatever the rounding of w + 1.
  EXPECT_EQ(quantize_morph_weight(1e-30f), 1024);
  EXPECT_EQ(quantize_morph_weight(-1e-30f), 1024);
}

TEST(MorphQuantize, EveryStepComesBackToItself) {
  for (int q = 0; q <= kMaxMorphQ; ++q)
    ASSERT_EQ(quantize_morph_weight(dequantize_morph_weight(static_cast<uint16_t>(q))), q);
}

TEST(MorphCodec, KeyOfThreeTargetsIsPackedTwelveBitsLsbFirst) {
  // 0x123 in bits 0..11, 0xABC in 12..23, 0x7FF in 24..35, 4 zero padding bits.
  EXPECT_EQ(key_of(kThree), bytes({0x00, 0x03, 0x23, 0xC1, 0xAB, 0xFF, 0x07}));
  EXPECT_EQ(key_of({0xFFF - 1, 1}), bytes({0x00, 0x02, 0xFE, 0x1F, 0x00}));
}

TEST(MorphCodec, DeltaHasABitmapThenZigzagVarints) {
  // Targets 1 (+1, zigzag 2) and 2 (-15, zigzag 29) changed: bitmap 0b110.
  EXPECT_EQ(delta_of({0x123, 0xABD, 0x7F0}, kThree), bytes({0x01, 0x03, 0x06, 0x02, 0x1D}));
  // +4095: zigzag 8190 = 0x1FFE, two varint bytes.
  EXPECT_EQ(delta_of({4095}, {0}), bytes({0x01, 0x01, 0x01, 0xFE, 0x3F}));
  // 200 targets: the count takes two varint bytes, the bitmap 25; target 9 fell by 64.
  std::vector<uint16_t> base(200, 1024), now = base;
  now[9] = 960;
  std::string want = bytes({0x01, 0xC8, 0x01});
  std::string bitmap(25, '\0');
  bitmap[1] = 0x02;
  want += bitmap + bytes({0x7F});
  EXPECT_EQ(delta_of(now, base), want);
}

TEST(MorphCodec, UnchangedWeightsEncodeAsNothingAndDecodeAsTheBaseline) {
  std::string out = "x";
  EXPECT_TRUE(encode_morph_delta(kThree, kThree, out));
  EXPECT_EQ(out, "x");
  std::vector<uint16_t> decoded;
  EXPECT_EQ(decode_morphs("", kThree, decoded), "");
  EXPECT_EQ(decoded, kThree);
  // No baseline, no bytes: no weights (a key frame of an asset without targets).
  decoded = {1, 2};
  EXPECT_EQ(decode_morphs("", {}, decoded), "");
  EXPECT_TRUE(decoded.empty());
}

TEST(MorphCodec, EncodersRefuseWhatTheFormatCannotHold) {
  std::string out;
  EXPECT_FALSE(encode_morph_key({}, out));
  EXPECT_FALSE(encode_morph_key(std::vector<uint16_t>(4097, 0), out));
  EXPECT_FALSE(encode_morph_key(std::vector<uint16_t>{4096}, out));
  EXPECT_FALSE(encode_morph_delta(kThree, std::vector<uint16_t>{1, 2}, out));
  EXPECT_FALSE(encode_morph_delta(std::vector<uint16_t>{4096}, std::vector<uint16_t>{0}, out));
  EXPECT_FALSE(encode_morph_delta({}, {}, out));
  EXPECT_TRUE(out.empty());
  EXPECT_TRUE(encode_morph_key(std::vector<uint16_t>(4096, 4095), out));
  EXPECT_EQ(out.size(), max_morph_key_bytes(4096));
}

TEST(MorphCodec, RandomWeightsRoundTripWithinHalfAStep) {
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> weight(-1.0f, 3.0f);
  std::uniform_int_distribution<int> count(1, 80);
  for (int trial = 0; trial < 200; ++trial) {
    const size_t n = trial == 0 ? kMaxMorphTargets : static_cast<size_t>(count(rng));
    std::vector<float> w(n);
    std::vector<uint16_t> q(n);
    for (size_t i = 0; i < n; ++i) q[i] = quantize_morph_weight(w[i] = weight(rng));
    const std::string key = key_of(q);
    EXPECT_EQ(key.size(), max_morph_key_bytes(n) - (n < 128 ? 1 : 0));
    std::vector<uint16_t> held;
    ASSERT_EQ(decode_morphs(key, {}, held), "");
    ASSERT_EQ(held, q);
    for (size_t i = 0; i < n; ++i)
      ASSERT_LE(std::fabs(w[i] - dequantize_morph_weight(held[i])), 1.0f / 2048) << w[i];
    // A few frames of deltas: some targets move a little, some jump, most stay.
    for (int f = 0; f < 5; ++f) {
      std::vector<uint16_t> now = held;
      std::uniform_int_distribution<size_t> target(0, n - 1);
      for (int k = 0; k < 3; ++k) now[target(rng)] = quantize_morph_weight(weight(rng));
      now[target(rng)] = static_cast<uint16_t>(std::min<int>(4095, now[0] + 1));
      const std::string delta = delta_of(now, held);
      EXPECT_LE(delta.size(), max_morph_delta_bytes(n));
      std::vector<uint16_t> decoded;
      ASSERT_EQ(decode_morphs(delta, held, decoded), "");
      ASSERT_EQ(decoded, now);
      EXPECT_EQ(delta.empty(), now == held);
      held = decoded;
    }
  }
}

TEST(MorphCodec, DecodesInPlace) {
  std::vector<uint16_t> held = kThree;
  ASSERT_EQ(decode_morphs(bytes({0x01, 0x03, 0x06, 0x02, 0x1D}), held, held), "");
  EXPECT_EQ(held, (std::vector<uint16_t>{0x123, 0xABD, 0x7F0}));
  ASSERT_EQ(decode_morphs("", held, held), "");
  EXPECT_EQ(held, (std::vector<uint16_t>{0x123, 0xABD, 0x7F0}));
}

TEST(MorphCodec, AKeyNeedsNoBaselineAndReplacesIt) {
  std::vector<uint16_t> out;
  ASSERT_EQ(decode_morphs(key_of({5, 6}), kThree, out), "");
  EXPECT_EQ(out, (std::vector<uint16_t>{5, 6}));
}

TEST(MorphCodec, DecoderRefusesUnknownKinds) {
  expect_refused(bytes({0x02, 0x01, 0x00, 0x00}), kThree, "unknown kind");
  expect_refused(bytes({0xFF}), kThree, "unknown kind");
}

TEST(MorphCodec, DecoderRefusesCountsOutOfRange) {
  expect_refused(bytes({0x00, 0x00}), {}, "out of range");
  expect_refused(bytes({0x01, 0x00}), kThree, "out of range");
  // 4097 = 0x1001: varint 0x81 0x20, then 6146 bytes of values.
  std::string big = bytes({0x00, 0x81, 0x20}) + std::string(6146, '\0');
  expect_refused(big, {}, "out of range");
  // 4096 is allowed.
  std::vector<uint16_t> out;
  EXPECT_EQ(decode_morphs(bytes({0x00, 0x80, 0x20}) + std::string(6144, '\0'), {}, out), "");
  EXPECT_EQ(out.size(), 4096u);
}

TEST(MorphCodec, DecoderRefusesTruncatedInput) {
  const std::string key = key_of(kThree);
  for (size_t n = 1; n < key.size(); ++n) expect_refused(key.substr(0, n), {}, "truncated");
  const std::string delta = bytes({0x01, 0x03, 0x06, 0x02, 0x1D});
  for (size_t n = 1; n < delta.size(); ++n) expect_refused(delta.substr(0, n), kThree, "truncated");
  // A varint whose last byte is missing.
  expect_refused(bytes({0x01, 0x01, 0x01, 0xFE}), {0}, "truncated");
  expect_refused(bytes({0x00, 0x80}), {}, "truncated");
}

TEST(MorphCodec, DecoderRefusesTrailingBytes) {
  expect_refused(key_of(kThree) + bytes({0x00}), {}, "trailing");
  expect_refused(bytes({0x01, 0x03, 0x06, 0x02, 0x1D, 0x00}), kThree, "trailing");
}

TEST(MorphCodec, DecoderRefusesADeltaOfAnotherCountOrWithoutBaseline) {
  expect_refused(bytes({0x01, 0x02, 0x01, 0x02}), kThree, "targets against 3");
  expect_refused(bytes({0x01, 0x04, 0x01, 0x02}), kThree, "targets against 3");
  expect_refused(bytes({0x01, 0x03, 0x01, 0x02}), {}, "without weights");
}

TEST(MorphCodec, DecoderRefusesAChangedFlagWithoutAChange) {
  expect_refused(bytes({0x01, 0x03, 0x01, 0x00}), kThree, "flagged but unchanged");
}

TEST(MorphCodec, DecoderRefusesResultsOutOfRange) {
  expect_refused(bytes({0x01, 0x01, 0x01, 0x01}), {0}, "out of range");     // 0 - 1
  expect_refused(bytes({0x01, 0x01, 0x01, 0x02}), {4095}, "out of range");  // 4095 + 1
  // The biggest change a 4-byte varint holds.
  expect_refused(bytes({0x01, 0x01, 0x01, 0xFE, 0xFF, 0xFF, 0x7F}), {0}, "out of range");
}

TEST(MorphCodec, DecoderRefusesBitmapBitsBeyondTheCount) {
  expect_refused(bytes({0x01, 0x03, 0x09, 0x02, 0x02}), kThree, "beyond the target count");
  expect_refused(bytes({0x01, 0x03, 0x80, 0x02}), kThree, "beyond the target count");
}

TEST(MorphCodec, DecoderRefusesNonCanonicalBytes) {
  // What the encoder never writes, so that every set of weights has one encoding.
  expect_refused(bytes({0x00, 0x83, 0x00, 0x23, 0xC1, 0xAB, 0xFF, 0x07}), {}, "longer than needed");
  expect_refused(bytes({0x01, 0x03, 0x02, 0x82, 0x00}), kThree, "longer than needed");
  expect_refused(bytes({0x01, 0x03, 0x02, 0x82, 0x80, 0x80, 0x80, 0x00}), kThree, "too long");
  expect_refused(bytes({0x00, 0x03, 0x23, 0xC1, 0xAB, 0xFF, 0x17}), {}, "padding");
  expect_refused(bytes({0x01, 0x03, 0x00}), kThree, "changes nothing");
}

}  // namespace morph_codec_test
