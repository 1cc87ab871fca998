#pragma once
// The compact stream tests' shared pieces (compact_stream_test.cpp, encode_stage_test.cpp): a
// client that decodes what it is sent and checks it against the snapshot, a World holding the
// built-in character with a compact subscription counted, and the encode stage's entries.
#include <gtest/gtest.h>
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
#include "anim/loaders/builtin_character.h"
#include "moving_asset.h"
#include "snapshot/compact_layout.h"
#include "stream/encode_stage.h"
#include "stream/stream_encoder.h"
#include "world/world.h"

namespace animd::compact_test {

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
        const auto* q = snap.quant->joints.data() + c->quant_offset;
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
  static constexpr uint64_t kWatchingSession = 99;  // the all-characters compact watcher's
  CompactStreamTest() {
    config_.tick_rate = 60.0;
    // As a session does for its compact subscriptions: the World quantizes only then.
    metrics_.compact_subscriptions = 1;
    world_ = std::make_unique<World>(config_, metrics_, catalog_, pool_);
    EXPECT_TRUE(world_->add_asset(std::make_shared<anim::Asset>(anim::make_builtin_character())));
    // The World quantizes the characters a compact subscription may encode: all of them here
    // (each test's subscriptions pick among them).
    EXPECT_TRUE(world_->execute(Subscribe{{}, true, 1, std::nullopt, true},
                                Caller{kWatchingSession, 0}, 0, 0.0));
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

// The snapshot's encoded entries (shared kinds and the two `against` slots), as a bit set.
inline std::vector<bool> ready_entries(const Snapshot& snap) {
  std::vector<bool> ready;
  for (size_t c = 0; c < snap.characters.size(); ++c) {
    if (!snap.in_quant(c)) continue;
    for (const auto& state : snap.compact_of(c).state) ready.push_back(state.load() == 2);
    for (const auto& slot : snap.compact_of(c).against) ready.push_back(slot.state.load() == 2);
  }
  return ready;
}

// Prepares `snap` as the stage does (`held`: the frames it prepared before, newest first),
// then encodes it for `sub`: the subscriber finds every entry it sends ready (it encodes
// nothing itself), and the client decodes it.
inline void prepare_then_send(StreamSubscription& sub, const SnapshotPtr& snap,
                              const QuantRef held[2], Receiver& receiver) {
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

}  // namespace animd::compact_test
