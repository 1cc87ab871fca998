// libanimclient's CompactDecoder on compact_morphs: a key frame then deltas (with and without
// compact_morphs, first and second order, a rate divisor), a lost frame, bad morph bytes and
// an asset without targets. Every frame it delivers for a character with targets carries the
// weights, and a morph delta is discarded exactly when its pose delta is.
#include "compact_decoder.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "animcodec/morph_codec.h"
#include "compact_morph_stream.h"

namespace compact_morphs_test {

using anim::v1::CharacterFrame;
using anim::v1::StreamFrame;
using animclient::detail::CompactDecoder;
using animcodec::FrameKind;
using animtest::morph_delta;
using animtest::morph_key;

class CompactMorphs : public ::testing::Test {
 protected:
  CompactMorphs() { decoder.add_skeleton("face", animtest::two_joint_skeleton()); }

  // Subscription 1's frame at `tick` with character 7 (and 8 when `other` is set), as a pose
  // of `kind` whose delta refers to the frames `skipped` ticks back, and `morphs`.
  StreamFrame frame(uint64_t tick, FrameKind kind, const std::string& morphs, uint32_t skipped = 0,
                    std::optional<std::string> other = std::nullopt) {
    StreamFrame f;
    f.set_subscription_id(1);
    f.set_tick(tick);
    auto add = [&](uint32_t id, const std::string& m) {
      CharacterFrame* c = f.add_characters();
      c->set_character_id(id);
      if (kind == FrameKind::kKey) c->set_asset("face");
      c->set_compact(sender.frame(kind));
      c->set_compact_morphs(m);
      c->set_baseline_ticks_skipped(skipped);
    };
    add(7, morphs);
    if (other) add(8, *other);
    decoder.decode(f);
    return f;
  }

  // The weights delivered for character `id`, or nullopt when it was left out.
  static std::optional<std::vector<float>> weights(const StreamFrame& f, uint32_t id = 7) {
    for (const CharacterFrame& c : f.characters()) {
      if (c.character_id() != id) continue;
      EXPECT_TRUE(c.compact().empty());
      EXPECT_TRUE(c.compact_morphs().empty());
      EXPECT_EQ(c.palette_size(), 24);
      return std::vector<float>(c.morph_weights().begin(), c.morph_weights().end());
    }
    return std::nullopt;
  }

  CompactDecoder decoder;
  animtest::StillSender sender;
};

const std::vector<float> kSmile{0.0f, 0.5f, 1.0f};
const std::vector<float> kWink{0.25f, 0.5f, -0.5f};
const std::vector<float> kFrown{1.0f, 2.5f, -1.0f};

TEST_F(CompactMorphs, KeyThenDeltasCarryTheWeightsOnEveryFrame) {
  EXPECT_EQ(weights(frame(10, FrameKind::kKey, morph_key(kSmile))), kSmile);
  EXPECT_EQ(weights(frame(11, FrameKind::kDelta1, morph_delta(kWink, kSmile))), kWink);
  // A DELTA2's morph delta refers to the newest frame (tick 11), not the older one.
  EXPECT_EQ(weights(frame(12, FrameKind::kDelta2, morph_delta(kFrown, kWink))), kFrown);
  // Unchanged: empty compact_morphs, the newest frame's weights.
  EXPECT_EQ(weights(frame(13, FrameKind::kDelta2, "")), kFrown);
  // A rate divisor: the newest frame held is 2 ticks back.
  EXPECT_EQ(weights(frame(16, FrameKind::kDelta1, morph_delta(kSmile, kFrown), 2)), kSmile);
  EXPECT_EQ(decoder.errors(), 0u) << decoder.last_error();
}

TEST_F(CompactMorphs, ALostFrameDiscardsTheMorphDeltaWithThePoseUntilTheNextKey) {
  ASSERT_EQ(weights(frame(10, FrameKind::kKey, morph_key(kSmile))), kSmile);
  // Tick 11 (kWink) was lost; tick 12's delta refers to it.
  EXPECT_EQ(weights(frame(12, FrameKind::kDelta1, morph_delta(kFrown, kWink))), std::nullopt);
  EXPECT_EQ(weights(frame(13, FrameKind::kDelta1, "")), std::nullopt);
  EXPECT_EQ(decoder.errors(), 2u);
  EXPECT_EQ(weights(frame(14, FrameKind::kKey, morph_key(kFrown))), kFrown);
  EXPECT_EQ(weights(frame(15, FrameKind::kDelta1, "")), kFrown);
  EXPECT_EQ(weights(frame(16, FrameKind::kDelta1, morph_delta(kWink, kFrown))), kWink);
  EXPECT_EQ(decoder.errors(), 2u);
}

TEST_F(CompactMorphs, BadMorphBytesLeaveTheCharacterOutUntilItsNextKey) {
  const StreamFrame first = frame(10, FrameKind::kKey, morph_key(kSmile), 0, morph_key(kWink));
  ASSERT_EQ(weights(first), kSmile);
  ASSERT_EQ(weights(first, 8), kWink);
  // Character 7's delta is for 2 targets against 3; character 8 is decoded as usual.
  std::string wrong_count;
  ASSERT_TRUE(animcodec::encode_morph_delta(std::vector<uint16_t>{1, 2},
                                            std::vector<uint16_t>{1, 3}, wrong_count));
  const StreamFrame f = frame(11, FrameKind::kDelta1, wrong_count, 0, std::string());
  EXPECT_EQ(weights(f), std::nullopt);
  EXPECT_EQ(weights(f, 8), kWink);
  EXPECT_EQ(decoder.errors(), 1u);
  EXPECT_NE(decoder.last_error().find("compact morphs: "), std::string::npos)
      << decoder.last_error();
  // Its held frames are gone: the next delta is refused too, until its key frame.
  EXPECT_EQ(weights(frame(12, FrameKind::kDelta1, "")), std::nullopt);
  EXPECT_EQ(weights(frame(13, FrameKind::kKey, morph_key(kWink))), kWink);
}

TEST_F(CompactMorphs, AMorphDeltaOnAKeyFrameIsRefused) {
  ASSERT_EQ(weights(frame(10, FrameKind::kKey, morph_key(kSmile))), kSmile);
  EXPECT_EQ(weights(frame(11, FrameKind::kKey, morph_delta(kWink, kSmile))), std::nullopt);
  EXPECT_EQ(decoder.errors(), 1u);
}

TEST_F(CompactMorphs, AnAssetWithoutTargetsHasNoWeights) {
  EXPECT_EQ(weights(frame(10, FrameKind::kKey, "")), std::vector<float>{});
  EXPECT_EQ(weights(frame(11, FrameKind::kDelta1, "")), std::vector<float>{});
  EXPECT_EQ(weights(frame(12, FrameKind::kDelta2, "")), std::vector<float>{});
  // A key frame without weights after one with them: the asset has none now.
  EXPECT_EQ(weights(frame(13, FrameKind::kKey, morph_key(kSmile))), kSmile);
  EXPECT_EQ(weights(frame(14, FrameKind::kKey, "")), std::vector<float>{});
  EXPECT_EQ(weights(frame(15, FrameKind::kDelta1, "")), std::vector<float>{});
  EXPECT_EQ(decoder.errors(), 0u) << decoder.last_error();
}

TEST_F(CompactMorphs, WeightsAreTheDequantizedSteps) {
  const std::vector<float> odd{0.3f, -0.9999f, 7.0f, std::nanf("")};
  const auto f = weights(frame(10, FrameKind::kKey, morph_key(odd)));
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(*f, (std::vector<float>{307.0f / 1024, -1.0f, 4095.0f / 1024 - 1, 0.0f}));
}

}  // namespace compact_morphs_test
