// ENCODING_COMPACT in the daemon, from World::update's snapshots through encode_stream_frame
// to bytes a client decodes with animcodec: the kinds chosen (key first, then deltas; a key
// after a lost frame and on region entry; deltas naming the ticks between under a rate
// divisor, across ticks skipped before encoding and on an outer zone's turns), the decoded
// poses equal the snapshot's quantized ones bit for bit, the asset name only on key frames,
// subscribers in the same state share one encoding of each character, a root that root
// motion moves and turns every tick decodes to the streamed root, and the encode stage
// motion moves and turns every tick decodes to the streamed root (the encode stage and the
// World's deferred quantizing: encode_stage_test.cpp).
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "compact_stream_fixture.h"

namespace animd::compact_test {
namespace compact_stream_test {

TEST_F(CompactStreamTest, KeyThenDeltasAndTheAssetOnlyOnKeyFrames) {
  const uint32_t a = spawn(0.0f), b = spawn(2.0f);
  StreamSubscription sub = compact_all();
  for (int i = 0; i < 6; ++i) {
    const SnapshotPtr snap = tick();
    EncodedFrame out;
    encode_stream_frame(sub, *snap, 0, 0, 1 << 20, out);
    receiver_.receive(out, *snap);
  }
  for (uint32_t id : {a, b}) {
    const auto& k = receiver_.kinds[id];
    ASSERT_EQ(k.size(), 6u);
    EXPECT_EQ(k[0], FrameKind::kKey);
    EXPECT_EQ(k[1], FrameKind::kDelta1);
    for (size_t i = 2; i < k.size(); ++i) EXPECT_EQ(k[i], FrameKind::kDelta2);
    EXPECT_EQ(receiver_.assets[id][0], "builtin");
    for (size_t i = 1; i < k.size(); ++i) EXPECT_EQ(receiver_.assets[id][i], "");
  }
}

TEST_F(CompactStreamTest, RootsMovedByRootMotionDecodeToTheStreamedRoot) {
  ASSERT_TRUE(world_->add_asset(moving_asset()));
  receiver_.layout = compact_layout(catalog_.get()->at("strider"));
  SpawnCharacter r;
  r.asset = "strider";
  r.clip = "turn";
  auto s = world_->execute(r, Caller{1, 0}, tick_, 0.0);
  ASSERT_TRUE(s);
  const uint32_t id = std::get<Spawned>(*s).character_id;
  ASSERT_TRUE(world_->execute(SetRootMotion{id, anim::RootMotionMode::kExtract, "", false},
                              Caller{1, 0}, tick_, 0.0));
  StreamSubscription sub = compact_all();
  // Five seconds: a circle and a quarter of about 1 m radius; the root's quaternion changes
  // its largest component on the way (the codec's escape for rotations).
  float travelled = 0.0f;
  glm::vec3 last(0.0f);
  for (int i = 0; i < 300; ++i) {
    const SnapshotPtr snap = tick();
    EncodedFrame out;
    encode_stream_frame(sub, *snap, 0, 0, 1 << 20, out);
    receiver_.receive(out, *snap);
    const SnapshotCharacter& c = *snap->find(id);
    const animcodec::Trs got = animcodec::dequantize_root(receiver_.held[id].roots[0]);
    // Steps of 2^-14 (translation) and 2^-15 (rotation components), pulled toward the
    // prediction by at most 0.75 of a step.
    EXPECT_LT(glm::length(got.t - c.root.translation), 1e-4f) << "tick " << snap->tick;
    const glm::quat d = glm::conjugate(got.r) * c.root.rotation;
    const float angle = 2.0f * std::atan2(glm::length(glm::vec3(d.x, d.y, d.z)), std::abs(d.w));
    EXPECT_LT(angle, 2e-4f) << "tick " << snap->tick;
    travelled += glm::length(c.root.translation - last);
    last = c.root.translation;
  }
  EXPECT_GT(travelled, 7.0f);  // it did move: 1.5 per second along the arc
  const auto& k = receiver_.kinds[id];
  EXPECT_EQ(std::count(k.begin(), k.end(), FrameKind::kKey), 1);
}

TEST_F(CompactStreamTest, LostFrameForcesKeyFrames) {
  const uint32_t a = spawn(0.0f);
  StreamSubscription sub = compact_all();
  for (int i = 0; i < 7; ++i) {
    const SnapshotPtr snap = tick();
    if (i == 3) {
      // This tick's frame is encoded but never arrives (the write queue dropped it): the
      // session reports the loss, and the next frame starts over.
      EncodedFrame lost;
      encode_stream_frame(sub, *snap, 0, 0, 1 << 20, lost);
      sub.baselines_lost();
      continue;
    }
    EncodedFrame out;
    encode_stream_frame(sub, *snap, i == 4 ? 1 : 0, 0, 1 << 20, out);
    receiver_.receive(out, *snap);
  }
  const std::vector<FrameKind> expected{FrameKind::kKey, FrameKind::kDelta1, FrameKind::kDelta2,
                                        FrameKind::kKey, FrameKind::kDelta1, FrameKind::kDelta2};
  EXPECT_EQ(receiver_.kinds[a], expected);
}

TEST_F(CompactStreamTest, RateDivisorAboveOneSendsDeltasAgainstTheFramesSent) {
  const uint32_t a = spawn(0.0f);
  StreamSubscription sub = compact_all();
  sub.divisor = 2;
  for (int i = 0; i < 10; ++i) {
    const SnapshotPtr snap = tick();
    if (snap->tick % 2 != 0) continue;  // as the session skips the ticks between
    EncodedFrame out;
    encode_stream_frame(sub, *snap, 0, 0, 1 << 20, out);
    receiver_.receive(out, *snap);
  }
  const std::vector<FrameKind> expected{FrameKind::kKey, FrameKind::kDelta1, FrameKind::kDelta2,
                                        FrameKind::kDelta2, FrameKind::kDelta2};
  EXPECT_EQ(receiver_.kinds[a], expected);
  // Each delta names the tick skipped before it (and DELTA2 the one between its baselines).
  const std::vector<std::pair<uint64_t, uint64_t>> skips{{0, 0}, {1, 0}, {1, 1}, {1, 1}, {1, 1}};
  EXPECT_EQ(receiver_.skips[a], skips);
  // What it is for: a delta is a fraction of a key frame.
  const auto& sizes = receiver_.sizes[a];
  for (size_t i = 2; i < sizes.size(); ++i) EXPECT_LT(2 * sizes[i], sizes[0]) << i;
  EXPECT_LE(sub.kept.size(), 2u);  // the frames the deltas refer to, no more
}

TEST_F(CompactStreamTest, FramesOlderThanTheKeptAgeAreLetGoAndKeyFramesFollow) {
  const uint32_t a = spawn(0.0f);
  StreamSubscription sub = compact_all();
  sub.divisor = 10;  // frames 10 ticks apart, beyond kMaxKeptAge
  static_assert(StreamSubscription::kMaxKeptAge < 10);
  for (int i = 0; i < 30; ++i) {
    const SnapshotPtr snap = tick();
    sub.let_go_before(snap->tick);  // as the session does for every snapshot it sees
    if (snap->tick % 10 != 0) {
      // No frame of a tick more than kMaxKeptAge old stays held, encoded or not.
      for (const QuantRef& q : sub.kept)
        EXPECT_LE(snap->tick - q->tick, StreamSubscription::kMaxKeptAge);
      continue;
    }
    EncodedFrame out;
    encode_stream_frame(sub, *snap, 0, 0, 1 << 20, out);
    receiver_.receive(out, *snap);
  }
  EXPECT_EQ(receiver_.kinds[a], std::vector<FrameKind>(3, FrameKind::kKey));
}

TEST_F(CompactStreamTest, TicksSkippedBeforeEncodingKeepDeltas) {
  const uint32_t a = spawn(0.0f);
  StreamSubscription sub = compact_all();
  for (int i = 0; i < 7; ++i) {
    const SnapshotPtr snap = tick();
    // Tick 4 is never encoded for this subscription (the session was behind, or its queue
    // full): nothing the client holds changes, and the next frame refers to tick 3.
    if (snap->tick == 4) continue;
    EncodedFrame out;
    encode_stream_frame(sub, *snap, snap->tick == 5 ? 1 : 0, 0, 1 << 20, out);
    receiver_.receive(out, *snap);
  }
  // Tick 5: its own DELTA2 against ticks 3 and 2; tick 6: its own DELTA2 against ticks 5
  // and 3 (one skipped between them); then the shared DELTA2s again.
  const std::vector<FrameKind> expected({FrameKind::kKey, FrameKind::kDelta1, FrameKind::kDelta2,
                                         FrameKind::kDelta2, FrameKind::kDelta2,
                                         FrameKind::kDelta2});
  EXPECT_EQ(receiver_.kinds[a], expected);
  const std::vector<std::pair<uint64_t, uint64_t>> skips{{0, 0}, {0, 0}, {0, 0},
                                                         {1, 0}, {0, 1}, {0, 0}};
  EXPECT_EQ(receiver_.skips[a], skips);
}

TEST_F(CompactStreamTest, OuterZoneMembersGetDeltasOnTheirTurns) {
  const uint32_t inner = spawn(0.0f), outer = spawn(3.0f);
  StreamSubscription sub = compact_all();
  sub.all = false;
  StreamRegion region;
  region.center = glm::vec3(0.0f);
  region.radius = 1.0f;
  region.outer_margin = 5.0f;
  region.outer_divisor = 3;
  sub.region = region;
  for (int i = 0; i < 10; ++i) {
    const SnapshotPtr snap = tick();
    EncodedFrame out;
    encode_stream_frame(sub, *snap, 0, 0, 1 << 20, out);
    receiver_.receive(out, *snap);
    EXPECT_LE(sub.kept.size(), StreamSubscription::kMaxKeptFrames);
  }
  // The outer member goes out on frames 0, 3, 6 and 9: a key frame, then deltas 3 ticks apart.
  const std::vector<FrameKind> outer_kinds{FrameKind::kKey, FrameKind::kDelta1, FrameKind::kDelta2,
                                           FrameKind::kDelta2};
  EXPECT_EQ(receiver_.kinds[outer], outer_kinds);
  const std::vector<std::pair<uint64_t, uint64_t>> outer_skips{{0, 0}, {2, 0}, {2, 2}, {2, 2}};
  EXPECT_EQ(receiver_.skips[outer], outer_skips);
  const auto& k = receiver_.kinds[inner];
  ASSERT_EQ(k.size(), 10u);
  EXPECT_EQ(k[0], FrameKind::kKey);
  for (size_t i = 2; i < k.size(); ++i) EXPECT_EQ(k[i], FrameKind::kDelta2) << i;
}

TEST_F(CompactStreamTest, RegionEntryIsAKeyFrame) {
  const uint32_t a = spawn(0.0f);
  StreamSubscription sub = compact_all();
  sub.all = false;
  StreamRegion region;
  region.center = glm::vec3(0.0f);
  region.radius = 1.0f;
  sub.region = region;
  for (int i = 0; i < 8; ++i) {
    if (i == 3) move(a, 10.0f);  // leaves
    if (i == 5) move(a, 0.5f);   // comes back
    const SnapshotPtr snap = tick();
    EncodedFrame out;
    encode_stream_frame(sub, *snap, 0, 0, 1 << 20, out);
    receiver_.receive(out, *snap);
  }
  const std::vector<FrameKind> expected{FrameKind::kKey, FrameKind::kDelta1, FrameKind::kDelta2,
                                        FrameKind::kKey, FrameKind::kDelta1, FrameKind::kDelta2};
  EXPECT_EQ(receiver_.kinds[a], expected);
}

TEST_F(CompactStreamTest, OnlyWhatACompactSubscriptionMayEncodeIsQuantized) {
  const uint32_t near = spawn(0.0f), far = spawn(50.0f), named = spawn(100.0f);
  // Instead of the fixture's all-characters watcher: a region around the origin, and one
  // character by id.
  ASSERT_TRUE(world_->execute(Unsubscribe{0}, Caller{kWatchingSession, 0}, tick_, 0.0));
  StreamRegion region;
  region.center = glm::vec3(0.0f);
  region.radius = 2.0f;
  region.outer_margin = 5.0f;
  ASSERT_TRUE(world_->execute(Subscribe{{}, false, 2, region, true}, Caller{1, 0}, tick_, 0.0));
  ASSERT_TRUE(
      world_->execute(Subscribe{{named}, false, 3, std::nullopt, true}, Caller{1, 0}, tick_, 0.0));
  const SnapshotPtr first = tick();
  ASSERT_TRUE(first->quant);
  ASSERT_EQ(first->characters.size(), 3u);  // by id: near, far, named
  EXPECT_TRUE(first->in_quant(0));
  EXPECT_FALSE(first->in_quant(1));
  EXPECT_TRUE(first->in_quant(2));
  const size_t joints = first->characters[0].num_joints;
  EXPECT_EQ(first->quant->joints.size(), 2 * joints);  // room for the two quantized only
  std::span<const animcodec::QJoint> pose;
  const animcodec::QRoot* root = nullptr;
  EXPECT_TRUE(first->quant->find(near, joints, pose, root));
  EXPECT_FALSE(first->quant->find(far, joints, pose, root));
  EXPECT_TRUE(first->quant->find(named, joints, pose, root));

  // A region subscription around `far` the World has not seen yet (as when a camera moved
  // since the tick started): nothing of it this tick, a key frame once the World sees it.
  StreamSubscription sub = compact_all();
  sub.all = false;
  region.center = glm::vec3(50.0f, 0.0f, 0.0f);
  sub.region = region;
  QuantRef held[2];
  prepare_then_send(sub, first, held, receiver_);
  EXPECT_TRUE(receiver_.kinds[far].empty());
  ASSERT_TRUE(world_->execute(UpdateSubscription{2, region}, Caller{1, 0}, tick_, 0.0));
  held[0] = first->quant;
  const SnapshotPtr second = tick();
  EXPECT_FALSE(second->in_quant(0));
  EXPECT_TRUE(second->in_quant(1));
  prepare_then_send(sub, second, held, receiver_);
  held[1] = held[0], held[0] = second->quant;
  prepare_then_send(sub, tick(), held, receiver_);
  EXPECT_EQ(receiver_.kinds[far], (std::vector<FrameKind>{FrameKind::kKey, FrameKind::kDelta1}));
  EXPECT_TRUE(receiver_.kinds[near].empty());
}

// Who is quantized follows the compact subscriptions' regions and flags from the next tick:
// a region moved, a region or all-characters subscription added or removed. A float region
// subscription quantizes nothing.
TEST_F(CompactStreamTest, QuantizedCharactersFollowTheCompactRegionsFromTheNextTick) {
  const uint32_t near = spawn(0.0f), far = spawn(50.0f);
  ASSERT_TRUE(world_->execute(Unsubscribe{0}, Caller{kWatchingSession, 0}, tick_, 0.0));
  StreamRegion region;
  region.radius = 2.0f;
  auto quantized = [&](const SnapshotPtr& snap) {
    std::vector<uint32_t> ids;
    for (size_t c = 0; c < snap->characters.size(); ++c)
      if (snap->in_quant(c)) ids.push_back(snap->characters[c].id);
    return ids;
  };
  const Caller caller{1, 0};
  ASSERT_TRUE(world_->execute(Subscribe{{}, false, 2, region, false}, caller, tick_, 0.0));
  EXPECT_TRUE(quantized(tick()).empty()) << "a float region subscription";
  ASSERT_TRUE(world_->execute(Subscribe{{}, false, 3, region, true}, caller, tick_, 0.0));
  EXPECT_EQ(quantized(tick()), std::vector<uint32_t>{near});
  region.center = glm::vec3(50.0f, 0.0f, 0.0f);
  ASSERT_TRUE(world_->execute(UpdateSubscription{3, region}, caller, tick_, 0.0));
  EXPECT_EQ(quantized(tick()), std::vector<uint32_t>{far});
  EXPECT_EQ(quantized(tick()), std::vector<uint32_t>{far}) << "a tick without a change";
  ASSERT_TRUE(world_->execute(Unsubscribe{3}, caller, tick_, 0.0));
  EXPECT_TRUE(quantized(tick()).empty());
  ASSERT_TRUE(world_->execute(Subscribe{{}, true, 4, std::nullopt, true}, caller, tick_, 0.0));
  EXPECT_EQ(quantized(tick()), (std::vector<uint32_t>{near, far}));
  ASSERT_TRUE(world_->execute(Unsubscribe{4}, caller, tick_, 0.0));
  EXPECT_TRUE(quantized(tick()).empty());
}

// Encodes `snap` for both subscriptions: one message each, the characters' bytes (the frame's
// tail) the same.
void expect_same_frames(StreamSubscription& one, StreamSubscription& two, const Snapshot& snap) {
  EncodedFrame a, b;
  encode_stream_frame(one, snap, 0, 0, 1 << 20, a);
  encode_stream_frame(two, snap, 0, 0, 1 << 20, b);
  ASSERT_EQ(a.messages.size(), 1u);
  ASSERT_EQ(b.messages.size(), 1u);
  const std::string_view x = *a.messages[0], y = *b.messages[0];
  EXPECT_EQ(x.substr(x.size() - 40), y.substr(y.size() - 40));
}

TEST_F(CompactStreamTest, SubscribersInTheSameStateShareOneEncoding) {
  spawn(0.0f);
  spawn(1.0f);
  StreamSubscription one = compact_all(), two = compact_all();
  two.id = 2;
  for (int i = 0; i < 4; ++i) {
    const SnapshotPtr snap = tick();
    // Same characters, same bytes after the header; the snapshot encoded each once.
    expect_same_frames(one, two, *snap);
    for (size_t c = 0; c < snap->characters.size(); ++c)
      for (const FrameKind k : {FrameKind::kKey, FrameKind::kDelta1, FrameKind::kDelta2})
        if (snap->has_baseline(c, k)) {
          EXPECT_EQ(snap->compact_entry(c, k).data(), snap->compact_entry(c, k).data());
        }
  }
}

TEST_F(CompactStreamTest, SubscribersAtTheSameDivisorShareTheirOwnDeltas) {
  spawn(0.0f);
  spawn(1.0f);
  StreamSubscription one = compact_all(), two = compact_all();
  two.id = 2;
  one.divisor = two.divisor = 2;
  for (int i = 0; i < 8; ++i) {
    const SnapshotPtr snap = tick();
    if (snap->tick % 2 != 0) continue;
    expect_same_frames(one, two, *snap);
    if (snap->tick < 4) continue;  // the key frames
    // Deltas 2 ticks apart: one encoding of each character, in one of its two slots.
    for (size_t c = 0; c < snap->characters.size(); ++c) {
      int ready = 0;
      for (const auto& slot : snap->compact_of(c).against) ready += slot.state.load() == 2;
      EXPECT_EQ(ready, 1) << "tick " << snap->tick << " character " << c;
    }
  }
}

TEST_F(CompactStreamTest, NoQuantizingWithoutCompactSubscriptions) {
  spawn(0.0f);
  metrics_.compact_subscriptions = 0;
  const SnapshotPtr off = tick();
  EXPECT_FALSE(off->quant);
  metrics_.compact_subscriptions = 1;
  const SnapshotPtr on = tick();
  ASSERT_TRUE(on->quant);
  EXPECT_FALSE(on->has_baseline(0, FrameKind::kDelta1));  // nothing quantized the tick before
  EXPECT_TRUE(tick()->has_baseline(0, FrameKind::kDelta1));
}

TEST_F(CompactStreamTest, PartsSplitCompactFramesByTheirSize) {
  for (int i = 0; i < 12; ++i) spawn(static_cast<float>(i));
  StreamSubscription sub = compact_all();
  for (int i = 0; i < 3; ++i) {
    const SnapshotPtr snap = tick();
    EncodedFrame out;
    encode_stream_frame(sub, *snap, 0, 0, 400, out);
    EXPECT_GT(out.messages.size(), 1u);
    receiver_.receive(out, *snap);
  }
  EXPECT_EQ(receiver_.kinds.size(), 12u);
  for (const auto& [id, k] : receiver_.kinds) EXPECT_EQ(k.back(), FrameKind::kDelta2) << id;
}

}  // namespace compact_stream_test
}  // namespace animd::compact_test
