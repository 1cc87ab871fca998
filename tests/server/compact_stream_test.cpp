// ENCODING_COMPACT in the daemon, from World::update's snapshots through encode_stream_frame
// to bytes a client decodes with animcodec: the kinds chosen (key first, then deltas; a key
// after a lost frame and on region entry; deltas naming the ticks between under a rate
// divisor, across ticks skipped before encoding and on an outer zone's turns), the decoded
// poses equal the snapshot's quantized ones bit for bit, the asset name only on key frames,
// subscribers in the same state share one encoding of each character, a root that root
// motion moves and turns every tick decodes to the streamed root, and the encode stage
// (encode_stage.h) prepares exactly the entries an in-step subscriber then sends.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "anim/builtin_character.h"
#include "compact_layout.h"
#include "encode_stage.h"
#include "moving_asset.h"
#include "stream_encoder.h"
#include "world.h"

namespace animd {
namespace {

using animcodec::FrameKind;

constexpr float kDt = 1.0f / 60.0f;

// A client's view: the frames held per character, and the kind of each frame it decoded.
struct Receiver {
  struct Held {
    std::vector<animcodec::QJoint> frames[2];
    animcodec::QRoot roots[2];
    uint64_t ticks[2] = {0, 0};
    int count = 0;
  };
  std::shared_ptr<const animcodec::Layout> layout;
  std::map<uint32_t, Held> held;
  std::map<uint32_t, std::vector<FrameKind>> kinds;
  std::map<uint32_t, std::vector<std::string>> assets;
  std::map<uint32_t, std::vector<std::pair<uint64_t, uint64_t>>> skips;  // per frame
  std::map<uint32_t, std::vector<size_t>> sizes;                         // compact bytes

  // Decodes every character of the frame's messages; checks them against the snapshot.
  void receive(const EncodedFrame& encoded, const Snapshot& snap) {
    for (const auto& m : encoded.messages) {
      anim::v1::ServerMessage msg;
      ASSERT_TRUE(msg.ParseFromArray(m->data() + 4, static_cast<int>(m->size() - 4)));
      ASSERT_TRUE(msg.has_frame());
      for (const auto& cf : msg.frame().characters()) {
        ASSERT_TRUE(cf.palette().empty());
        const auto* bytes = reinterpret_cast<const uint8_t*>(cf.compact().data());
        const std::span<const uint8_t> data(bytes, cf.compact().size());
        animcodec::FrameHeader h;
        ASSERT_EQ(animcodec::read_header(data, h), "");
        Held& s = held[cf.character_id()];
        animcodec::Baseline b;
        // The frames the delta names: the newest held `skip1` ticks before the previous
        // tick, the older `skip2` ticks before that.
        const uint64_t skip1 = cf.baseline_ticks_skipped(), skip2 = cf.baseline2_ticks_skipped();
        if (h.kind != FrameKind::kKey) {
          ASSERT_GE(s.count, 1);
          ASSERT_EQ(s.ticks[0], snap.tick - 1 - skip1);
          b.prev1 = s.frames[0], b.root1 = &s.roots[0];
        } else {
          EXPECT_EQ(skip1, 0u);
        }
        if (h.kind == FrameKind::kDelta2) {
          ASSERT_GE(s.count, 2);
          ASSERT_EQ(s.ticks[1], s.ticks[0] - 1 - skip2);
          b.prev2 = s.frames[1], b.root2 = &s.roots[1];
        } else {
          EXPECT_EQ(skip2, 0u);
        }
        skips[cf.character_id()].push_back({skip1, skip2});
        sizes[cf.character_id()].push_back(cf.compact().size());
        std::vector<animcodec::QJoint> pose(layout->num_joints());
        animcodec::QRoot root;
        ASSERT_EQ(animcodec::decode_frame(*layout, data, b, pose, root), "");
        const SnapshotCharacter* c = snap.find(cf.character_id());
        ASSERT_NE(c, nullptr);
        const auto* q = snap.quant->joints.data() + c->palette_offset;
        EXPECT_TRUE(std::equal(pose.begin(), pose.end(), q)) << "tick " << snap.tick;
        EXPECT_TRUE(root == snap.quant->roots[c - snap.characters.data()]);
        if (h.kind == FrameKind::kKey) s.count = 0;
        s.frames[1] = std::move(s.frames[0]);
        s.frames[0] = std::move(pose);
        s.roots[1] = s.roots[0];
        s.roots[0] = root;
        s.ticks[1] = s.ticks[0];
        s.ticks[0] = snap.tick;
        s.count = std::min(s.count + 1, 2);
        kinds[cf.character_id()].push_back(h.kind);
        assets[cf.character_id()].push_back(cf.asset());
      }
    }
  }
};

class CompactStreamTest : public ::testing::Test {
 protected:
  CompactStreamTest() {
    config_.tick_rate = 60.0;
    // As a session does for its compact subscriptions: the World quantizes only then.
    metrics_.compact_subscriptions = 1;
    world_ = std::make_unique<World>(config_, metrics_, catalog_, pool_);
    EXPECT_TRUE(world_->add_asset(std::make_shared<anim::Asset>(anim::make_builtin_character())));
    receiver_.layout = compact_layout(catalog_.get()->at("builtin"));
  }

  uint32_t spawn(float x) {
    SpawnCharacter r;
    r.asset = "builtin";
    r.clip = "walk";
    r.root.translation = glm::vec3(x, 0.0f, 0.0f);
    auto s = world_->execute(r, Caller{1, 0}, tick_, 0.0);
    EXPECT_TRUE(s) << s.error().message();
    return s ? std::get<Spawned>(*s).character_id : 0;
  }
  void move(uint32_t id, float x) {
    SetRootTransform r;
    r.character = id;
    r.root.translation = glm::vec3(x, 0.0f, 0.0f);
    auto s = world_->execute(r, Caller{1, 0}, tick_, 0.0);
    EXPECT_TRUE(s) << s.error().message();
  }
  SnapshotPtr tick() {
    ++tick_;
    return world_->update(kDt, tick_, tick_ * kDt, false);
  }
  static StreamSubscription compact_all() {
    StreamSubscription s;
    s.id = 1;
    s.all = true;
    s.encoding = anim::v1::ENCODING_COMPACT;
    return s;
  }

  Config config_;
  Metrics metrics_;
  AssetCatalog catalog_;
  WorkerPool pool_{2};
  std::unique_ptr<World> world_;
  uint64_t tick_ = 0;
  Receiver receiver_;
};

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
      for (const auto& slot : snap->compact[c].against) ready += slot.state.load() == 2;
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

}  // namespace
}  // namespace animd

namespace animd {
namespace {

// The snapshot's encoded entries (shared kinds and the two `against` slots), as a bit set.
std::vector<bool> ready_entries(const Snapshot& snap) {
  std::vector<bool> ready;
  for (size_t c = 0; c < snap.characters.size(); ++c) {
    for (const auto& state : snap.compact[c].state) ready.push_back(state.load() == 2);
    for (const auto& slot : snap.compact[c].against) ready.push_back(slot.state.load() == 2);
  }
  return ready;
}

// Prepares `snap` as the stage does (`held`: the frames it prepared before, newest first),
// then encodes it for `sub`: the subscriber finds every entry it sends ready (it encodes
// nothing itself), and the client decodes it.
void prepare_then_send(StreamSubscription& sub, const SnapshotPtr& snap, const QuantRef held[2],
                       Receiver& receiver) {
  for (size_t c = 0; c < snap->characters.size(); ++c)
    EncodeStage::prepare_character(*snap, c, std::span<const QuantRef, 2>(held, 2));
  const std::vector<bool> prepared = ready_entries(*snap);
  EncodedFrame out;
  encode_stream_frame(sub, *snap, 0, 0, 1 << 20, out);
  EXPECT_EQ(ready_entries(*snap), prepared) << "tick " << snap->tick << ": the subscriber "
                                            << "encoded an entry the stage did not prepare";
  receiver.receive(out, *snap);
}

// Runs `n` ticks (`tick()`) and prepares and sends every `every`-th snapshot (ticks 1,
// 1 + every, ...), as a stage that far behind the tick and a subscriber in step with it.
template <class Tick>
void prepare_and_send_every(StreamSubscription& sub, int n, uint64_t every, Tick tick,
                            Receiver& receiver) {
  QuantRef held[2];
  for (int i = 0; i < n; ++i) {
    const SnapshotPtr snap = tick();
    if ((snap->tick - 1) % every != 0) continue;  // skipped: counted as dropped
    prepare_then_send(sub, snap, held, receiver);
    held[1] = held[0];
    held[0] = snap->quant;
  }
}

TEST_F(CompactStreamTest, TheEncodeStagePreparesWhatAnInStepSubscriberSends) {
  const uint32_t a = spawn(0.0f);
  spawn(1.0f);
  StreamSubscription sub = compact_all();
  prepare_and_send_every(
      sub, 5, 1, [&] { return tick(); }, receiver_);
  const std::vector<FrameKind> expected{FrameKind::kKey, FrameKind::kDelta1, FrameKind::kDelta2,
                                        FrameKind::kDelta2, FrameKind::kDelta2};
  EXPECT_EQ(receiver_.kinds[a], expected);
}

TEST_F(CompactStreamTest, TheEncodeStagePreparesDeltasAcrossTheTicksItSkipped) {
  const uint32_t a = spawn(0.0f);
  StreamSubscription sub = compact_all();
  // A stage behind the tick prepares every other snapshot; subscribers in step encode those,
  // and their deltas name the ticks between.
  prepare_and_send_every(
      sub, 9, 2, [&] { return tick(); }, receiver_);
  const std::vector<FrameKind> expected{FrameKind::kKey, FrameKind::kDelta1, FrameKind::kDelta2,
                                        FrameKind::kDelta2, FrameKind::kDelta2};
  EXPECT_EQ(receiver_.kinds[a], expected);
  const std::vector<std::pair<uint64_t, uint64_t>> skips{{0, 0}, {1, 0}, {1, 1}, {1, 1}, {1, 1}};
  EXPECT_EQ(receiver_.skips[a], skips);
}

TEST_F(CompactStreamTest, TicksTheStageCannotTakeAreNotQuantized) {
  const uint32_t a = spawn(0.0f);
  StreamSubscription sub = compact_all();
  // The stage is busy at the start of ticks 2-7 and 9 (Metrics::stage_busy): the World
  // leaves those unquantized, but never more than kMaxDeferredTicks (3) in a row.
  const std::vector<uint64_t> busy{2, 3, 4, 5, 6, 7, 9};
  std::vector<uint64_t> quantized;
  std::vector<std::pair<uint64_t, uint64_t>> pulls;  // pull_ticks (0: none)
  QuantRef held[2];
  for (int i = 0; i < 12; ++i) {
    metrics_.stage_busy = std::count(busy.begin(), busy.end(), tick_ + 1) > 0;
    const SnapshotPtr snap = tick();
    if (!snap->quant) {
      EXPECT_TRUE(snap->quant_deferred) << snap->tick;
      continue;
    }
    EXPECT_FALSE(snap->quant_deferred);
    quantized.push_back(snap->tick);
    pulls.emplace_back(snap->pull_ticks[0], snap->pull_ticks[1]);
    // Let go of once the workers are done with them.
    EXPECT_FALSE(snap->quant_pull[0] || snap->quant_pull[1]);
    // The shared deltas' baselines stay the ticks just before, when those were quantized.
    EXPECT_EQ(static_cast<bool>(snap->quant_prev[0]),
              snap->pull_ticks[0] != 0 && snap->pull_ticks[0] + 1 == snap->tick);
    // What the stage prepares of it (against the last two it prepared: these) is what a
    // subscriber in step sends, and the client decodes the quantized poses bit for bit.
    prepare_then_send(sub, snap, held, receiver_);
    held[1] = held[0];
    held[0] = snap->quant;
  }
  EXPECT_EQ(quantized, (std::vector<uint64_t>{1, 5, 8, 10, 11, 12}));
  // Each tick is pulled towards the last two quantized, whichever ticks they were.
  const std::vector<std::pair<uint64_t, uint64_t>> expected_pulls{{0, 0}, {1, 0},  {5, 1},
                                                                  {8, 5}, {10, 8}, {11, 10}};
  EXPECT_EQ(pulls, expected_pulls);
  const std::vector<FrameKind> kinds{FrameKind::kKey,    FrameKind::kDelta1, FrameKind::kDelta2,
                                     FrameKind::kDelta2, FrameKind::kDelta2, FrameKind::kDelta2};
  EXPECT_EQ(receiver_.kinds[a], kinds);
  const std::vector<std::pair<uint64_t, uint64_t>> skips{{0, 0}, {3, 0}, {2, 3},
                                                         {1, 2}, {0, 1}, {0, 0}};
  EXPECT_EQ(receiver_.skips[a], skips);
}

TEST_F(CompactStreamTest, CharactersSpawnedAndDespawnedWhileTicksAreDeferredPullFromTheirOwn) {
  const uint32_t a = spawn(0.0f), b = spawn(1.0f), c = spawn(2.0f);
  StreamSubscription sub = compact_all();
  QuantRef held[2];
  auto send = [&](const SnapshotPtr& snap) {
    prepare_then_send(sub, snap, held, receiver_);
    held[1] = held[0];
    held[0] = snap->quant;
  };
  const SnapshotPtr first = tick();  // tick 1: a, b, c
  send(first);
  // Ticks 2-3 deferred; meanwhile b goes and d comes, so c moves from index 2 to 1.
  metrics_.stage_busy = true;
  ASSERT_TRUE(world_->execute(DespawnCharacter{b}, Caller{1, 0}, tick_, 0.0));
  EXPECT_FALSE(tick()->quant);
  const uint32_t d = spawn(3.0f);
  EXPECT_FALSE(tick()->quant);
  metrics_.stage_busy = false;
  const SnapshotPtr next = tick();  // tick 4
  ASSERT_TRUE(next->quant);
  EXPECT_EQ(next->pull_ticks[0], 1u);
  // Each pulls from its own place in tick 1's frame (c was third there); d has none.
  const SnapshotCharacter* in_first = first->find(c);
  const SnapshotCharacter* now = next->find(c);
  ASSERT_TRUE(in_first && now);
  EXPECT_EQ(now->pull_offset[0], in_first->palette_offset);
  EXPECT_EQ(now->pull_index[0], 2u);
  EXPECT_EQ(next->find(a)->pull_index[0], 0u);
  EXPECT_EQ(next->find(d)->pull_offset[0], kNotQuantized);
  send(next);
  EXPECT_EQ(receiver_.kinds[a], (std::vector<FrameKind>{FrameKind::kKey, FrameKind::kDelta1}));
  EXPECT_EQ(receiver_.kinds[c], (std::vector<FrameKind>{FrameKind::kKey, FrameKind::kDelta1}));
  EXPECT_EQ(receiver_.kinds[d], (std::vector<FrameKind>{FrameKind::kKey}));
  EXPECT_EQ(receiver_.skips[c].back(), (std::pair<uint64_t, uint64_t>{2, 0}));
}

TEST_F(CompactStreamTest, DeferringNeedsACompactSubscription) {
  spawn(0.0f);
  metrics_.stage_busy = true;
  metrics_.compact_subscriptions = 0;
  const SnapshotPtr off = tick();
  EXPECT_FALSE(off->quant);
  EXPECT_FALSE(off->quant_deferred);  // the stage lets go of its frames on this one
  // Compact again, the stage still busy: the last quantized tick is too old to wait for
  // (none at all), so this one is quantized, without a pull from before the pause.
  metrics_.compact_subscriptions = 1;
  const SnapshotPtr on = tick();
  ASSERT_TRUE(on->quant);
  EXPECT_EQ(on->pull_ticks[0], 0u);
  EXPECT_EQ(on->characters[0].pull_offset[0], kNotQuantized);
  EXPECT_TRUE(tick()->quant_deferred);
}

TEST_F(CompactStreamTest, EveryTickIsQuantizedWhileACompactSubscriptionIsPaced) {
  spawn(0.0f);
  // A subscription at a rate divisor is due at fixed ticks: a busy stage defers none.
  metrics_.compact_paced_subscriptions = 1;
  metrics_.stage_busy = true;
  for (int i = 0; i < 5; ++i) {
    const SnapshotPtr snap = tick();
    ASSERT_TRUE(snap->quant) << tick_;
    // Every tick quantized: the pull is the two ticks before, the shared deltas' baselines.
    EXPECT_EQ(snap->pull_ticks[0], tick_ > 1 ? tick_ - 1 : 0);
    EXPECT_EQ(snap->pull_ticks[1], tick_ > 2 ? tick_ - 2 : 0);
  }
  metrics_.compact_paced_subscriptions = 0;
  EXPECT_FALSE(tick()->quant);
}

TEST(EncodeStage, WatchedAreTheIdWatchedAndTheRegionsInnerZones) {
  Snapshot snap;
  snap.characters.resize(4);
  snap.characters[0].watched_by_id = true;
  snap.characters[1].root.translation = glm::vec3(0.5f, 0.0f, 0.0f);  // inner zone
  snap.characters[2].root.translation = glm::vec3(1.5f, 0.0f, 0.0f);  // outer zone
  snap.characters[3].root.translation = glm::vec3(9.0f, 0.0f, 0.0f);  // outside
  EXPECT_TRUE(EncodeStage::watched(snap, 0));
  EXPECT_FALSE(EncodeStage::watched(snap, 1));  // no region yet
  StreamRegion region;
  region.radius = 1.0f;
  region.outer_margin = 1.0f;
  region.outer_divisor = 2;
  snap.regions.push_back(region);
  EXPECT_TRUE(EncodeStage::watched(snap, 1));
  // Outer-zone members go out on their turns only: the sessions encode those.
  EXPECT_FALSE(EncodeStage::watched(snap, 2));
  EXPECT_FALSE(EncodeStage::watched(snap, 3));
}

TEST_F(CompactStreamTest, TheEncodeStageThreadsPrepareEachSnapshotOffered) {
  spawn(0.0f);
  spawn(1.0f);
  // An all-characters subscription in the World: every character is watched.
  Subscribe s;
  s.all_characters = true;
  s.subscription_id = 1;
  ASSERT_TRUE(world_->execute(s, Caller{1, 0}, tick_, 0.0));
  std::promise<uint64_t>* waiting = nullptr;
  std::mutex mutex;
  EncodeStage stage(2, false, nullptr, [&](uint64_t tick) {
    std::lock_guard lock(mutex);
    if (waiting) waiting->set_value(tick), waiting = nullptr;
  });
  StreamSubscription sub = compact_all();
  for (int i = 0; i < 4; ++i) {
    const SnapshotPtr snap = tick();
    EXPECT_FALSE(snap->prepared.load());
    std::promise<uint64_t> done;
    std::future<uint64_t> tick_prepared = done.get_future();
    {
      std::lock_guard lock(mutex);
      waiting = &done;
    }
    stage.offer(snap);
    // A bound for a broken stage, not a timing check.
    ASSERT_EQ(tick_prepared.wait_for(std::chrono::seconds(30)), std::future_status::ready);
    EXPECT_EQ(tick_prepared.get(), snap->tick);
    EXPECT_TRUE(snap->prepared.load());
    const std::vector<bool> prepared = ready_entries(*snap);
    EXPECT_EQ(std::count(prepared.begin(), prepared.end(), true), 2);  // one per character
    EncodedFrame out;
    encode_stream_frame(sub, *snap, 0, 0, 1 << 20, out);
    EXPECT_EQ(ready_entries(*snap), prepared) << "tick " << snap->tick;
    receiver_.receive(out, *snap);
  }
  EXPECT_EQ(stage.prepared(), 4u);
}

TEST_F(CompactStreamTest, TheEncodeStageWaitsForTheTickToEnd) {
  spawn(0.0f);
  Subscribe s;
  s.all_characters = true;
  s.subscription_id = 1;
  ASSERT_TRUE(world_->execute(s, Caller{1, 0}, tick_, 0.0));
  std::atomic<bool> tick_running{true}, busy{false};
  std::promise<uint64_t> done;
  std::future<uint64_t> tick_prepared = done.get_future();
  EncodeStage stage(
      2, false, &tick_running, [&](uint64_t tick) { done.set_value(tick); }, &busy);
  const SnapshotPtr snap = tick();
  stage.offer(snap);
  EXPECT_TRUE(busy.load());  // the World defers the next ticks' quantizing
  // While the tick runs nothing is encoded (a stage that did not wait would have long
  // finished one character).
  EXPECT_EQ(tick_prepared.wait_for(std::chrono::milliseconds(200)), std::future_status::timeout);
  EXPECT_FALSE(snap->prepared.load());
  EXPECT_FALSE(ready_entries(*snap)[0]);
  tick_running.store(false);
  tick_running.notify_all();
  ASSERT_EQ(tick_prepared.wait_for(std::chrono::seconds(30)), std::future_status::ready);
  EXPECT_EQ(tick_prepared.get(), snap->tick);
  EXPECT_TRUE(snap->prepared.load());
  EXPECT_TRUE(ready_entries(*snap)[0]);  // its key frame
  EXPECT_FALSE(busy.load());             // set before on_prepared runs

  // A tick the World deferred is no snapshot to prepare, and no sign that compact
  // subscriptions ended: the stage keeps its frames, so the next entry is a delta.
  Snapshot deferred;
  deferred.tick = snap->tick + 1;
  deferred.quant_deferred = true;
  stage.offer(std::make_shared<const Snapshot>(std::move(deferred)));
  EXPECT_FALSE(busy.load());
  ++tick_;  // the deferred tick
  std::promise<uint64_t> done2;
  std::future<uint64_t> next_prepared = done2.get_future();
  done = std::move(done2);  // what on_prepared sets; the stage is idle until the next offer
  const SnapshotPtr next = tick();
  stage.offer(next);
  ASSERT_EQ(next_prepared.wait_for(std::chrono::seconds(30)), std::future_status::ready);
  const std::vector<bool> ready = ready_entries(*next);
  EXPECT_FALSE(ready[0]);  // no key frame: against the frames of `snap`, a tick skipped
  EXPECT_EQ(std::count(ready.begin(), ready.end(), true), 1);
}

TEST_F(CompactStreamTest, TheEncodeStageForgetsAJobsFramesWhenCompactSubscriptionsEnd) {
  spawn(0.0f);
  Subscribe s;
  s.all_characters = true;
  s.subscription_id = 1;
  ASSERT_TRUE(world_->execute(s, Caller{1, 0}, tick_, 0.0));
  std::atomic<bool> tick_running{true};
  std::mutex mutex;
  std::promise<uint64_t>* waiting = nullptr;
  EncodeStage stage(1, false, &tick_running, [&](uint64_t tick) {
    std::lock_guard lock(mutex);
    if (waiting) waiting->set_value(tick), waiting = nullptr;
  });
  auto prepare = [&](const SnapshotPtr& snap) {
    std::promise<uint64_t> done;
    std::future<uint64_t> prepared = done.get_future();
    {
      std::lock_guard lock(mutex);
      waiting = &done;
    }
    stage.offer(snap);
    if (snap->quant) {
      tick_running.store(false);
      tick_running.notify_all();
      ASSERT_EQ(prepared.wait_for(std::chrono::seconds(30)), std::future_status::ready);
    }
  };
  // Tick 1 is in the stage's hands (waiting, or held up by the tick) when the compact
  // subscriptions end.
  const SnapshotPtr first = tick();
  std::promise<uint64_t> first_done;
  std::future<uint64_t> first_prepared = first_done.get_future();
  {
    std::lock_guard lock(mutex);
    waiting = &first_done;
  }
  stage.offer(first);
  Snapshot ended;  // no quantized poses, not deferred: no compact subscription left
  ended.tick = first->tick + 1;
  stage.offer(std::make_shared<const Snapshot>(std::move(ended)));
  tick_running.store(false);
  tick_running.notify_all();
  ASSERT_EQ(first_prepared.wait_for(std::chrono::seconds(30)), std::future_status::ready);
  // Compact again: the next snapshot's entry is a key frame, not a delta against tick 1's
  // frame (which the stage let go of rather than keeping it until then).
  ++tick_;
  tick_running.store(true);
  const SnapshotPtr next = tick();
  prepare(next);
  const std::vector<bool> ready = ready_entries(*next);
  EXPECT_TRUE(ready[0]);
  EXPECT_EQ(std::count(ready.begin(), ready.end(), true), 1);
}

}  // namespace
}  // namespace animd
