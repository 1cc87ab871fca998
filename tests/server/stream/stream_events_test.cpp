// Animation events on subscriptions, from hand-built snapshots: only the subscription's
// characters (ids, all, region by the tick's root), only weights at its minimum or above,
// every tick's events gathered until a frame is encoded (rate divisor, a frame dropped before
// encoding) and sent on part 0 with names, payloads and sources resolved; the character's
// own overflow and the pending bounds reported as events_dropped.
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "stream/stream_encoder.h"

namespace animd {
namespace stream_events_test {

using anim::v1::ServerMessage;
using anim::v1::StreamFrame;

// Characters 1..3 of asset "a" (clips "walk", "wave") at x = 10 * id; the table has walk:
// step_l (0.25, "left"), step_r (0.75); wave: hello (0.5).
struct EventSnapshots {
  std::shared_ptr<anim::Asset> asset = std::make_shared<anim::Asset>();
  std::shared_ptr<anim::ClipEventTable> table = std::make_shared<anim::ClipEventTable>();
  EventSnapshots() {
    asset->name = "a";
    asset->clips.resize(2);
    asset->clips[0].name = "walk";
    asset->clips[1].name = "wave";
    table->clips = {{{"step_l", 0.25f, "left"}, {"step_r", 0.75f, ""}}, {{"hello", 0.5f, "hi"}}};
  }
  // events[i]: the fired events of character i + 1.
  Snapshot make(uint64_t tick, const std::vector<std::vector<anim::FiredEvent>>& events,
                const std::vector<uint64_t>& overflowed = {}) const {
    Snapshot s;
    s.tick = tick;
    s.has_palettes = true;  // of 0 joints: the float frames carry the characters
    for (uint32_t id = 1; id <= 3; ++id) {
      SnapshotCharacter c;
      c.id = id;
      c.asset = Snapshot::hold(s.assets, AssetPtr(asset));
      c.root.translation = glm::vec3(10.0f * float(id), 0.0f, 0.0f);
      const auto& mine = id - 1 < events.size() ? events[id - 1] : std::vector<anim::FiredEvent>{};
      c.events_begin = static_cast<uint32_t>(s.events.size());
      c.events_count = static_cast<uint32_t>(mine.size());
      c.events_overflowed = id - 1 < overflowed.size() ? overflowed[id - 1] : 0;
      if (!mine.empty() || c.events_overflowed)
        c.event_table =
            Snapshot::hold(s.event_tables, std::shared_ptr<const anim::ClipEventTable>(table));
      s.events.insert(s.events.end(), mine.begin(), mine.end());
      s.characters.push_back(c);
    }
    return s;
  }
};

anim::FiredEvent walk(uint16_t event, float weight = 1.0f) {
  return {0, event, weight, anim::EventSource::kBase, false, 0};
}
anim::FiredEvent wave_layer(float weight, uint32_t layer) {
  return {1, 0, weight, anim::EventSource::kLayer, true, layer};
}

std::vector<StreamFrame> encode(StreamSubscription& sub, const Snapshot& snap,
                                size_t max_part_bytes = 1 << 20) {
  EncodedFrame out;
  encode_stream_frame(sub, snap, 0, 0, max_part_bytes, out);
  std::vector<StreamFrame> frames;
  for (const auto& m : out.messages) {
    ServerMessage msg;
    EXPECT_TRUE(msg.ParseFromArray(m->data() + 4, static_cast<int>(m->size() - 4)));
    frames.push_back(msg.frame());
  }
  return frames;
}

std::vector<std::string> names(const StreamFrame& f) {
  std::vector<std::string> out;
  for (const auto& e : f.events())
    out.push_back(std::to_string(e.character_id()) + ":" + e.name() + "@" +
                  std::to_string(e.tick()));
  return out;
}
using Names = std::vector<std::string>;

StreamSubscription with_events(float min_weight = 0.0f) {
  StreamSubscription s;
  s.id = 3;
  s.events = true;
  s.event_min_weight = min_weight;
  return s;
}

TEST(StreamEvents, OnlyTheSubscriptionsCharactersAndWeightsAtItsMinimum) {
  EventSnapshots e;
  const Snapshot snap = e.make(7, {{walk(0), walk(1, 0.3f)}, {wave_layer(0.5f, 4)}, {walk(1)}});
  StreamSubscription ids = with_events(0.4f);
  ids.ids = {2, 3};
  EXPECT_EQ(collect_events(ids, snap), 0u);
  const auto frames = encode(ids, snap);
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(names(frames[0]), (Names{"2:hello@7", "3:step_r@7"}));
  const auto& hello = frames[0].events(0);
  EXPECT_EQ(hello.clip(), "wave");
  EXPECT_EQ(hello.payload(), "hi");
  EXPECT_EQ(hello.time(), 0.5f);
  EXPECT_EQ(hello.weight(), 0.5f);
  EXPECT_EQ(hello.source(), anim::v1::EVENT_SOURCE_LAYER);
  EXPECT_EQ(hello.layer_id(), 4u);
  EXPECT_TRUE(hello.reverse());
  EXPECT_EQ(frames[0].events_dropped(), 0u);

  StreamSubscription all = with_events();
  all.all = true;
  collect_events(all, snap);
  EXPECT_EQ(names(encode(all, snap)[0]),
            (Names{"1:step_l@7", "1:step_r@7", "2:hello@7", "3:step_r@7"}));
  // A region: the characters whose root is in it at that tick (x = 10 and 20 here).
  StreamSubscription near = with_events();
  near.region = StreamRegion{};
  near.region->shape = StreamRegion::Shape::kSphere;
  near.region->center = glm::vec3(15, 0, 0);
  near.region->radius = 6.0f;
  collect_events(near, snap);
  EXPECT_EQ(names(encode(near, snap)[0]), (Names{"1:step_l@7", "1:step_r@7", "2:hello@7"}));
  // Without events asked for, frames carry none.
  StreamSubscription plain;
  plain.all = true;
  EXPECT_EQ(encode(plain, snap)[0].events_size(), 0);
}

TEST(StreamEvents, EventsOfTicksWithoutAFrameWaitForTheNextFrame) {
  EventSnapshots e;
  StreamSubscription sub = with_events();
  sub.all = true;
  // Ticks 10 and 11 have no frame (a rate divisor, or the queue was full): their events wait.
  collect_events(sub, e.make(10, {{walk(0)}}));
  collect_events(sub, e.make(11, {{}, {wave_layer(1.0f, 1)}}));
  const Snapshot now = e.make(12, {{walk(1)}});
  collect_events(sub, now);
  const auto frames = encode(sub, now);
  EXPECT_EQ(names(frames[0]), (Names{"1:step_l@10", "2:hello@11", "1:step_r@12"}));
  // Sent once: the next frame starts empty.
  const Snapshot next = e.make(13, {});
  collect_events(sub, next);
  EXPECT_EQ(encode(sub, next)[0].events_size(), 0);
}

TEST(StreamEvents, PartZeroCarriesTheEvents) {
  EventSnapshots e;
  StreamSubscription sub = with_events();
  sub.all = true;
  const Snapshot snap = e.make(5, {{walk(0)}, {walk(1)}, {walk(0)}});
  collect_events(sub, snap);
  const auto frames = encode(sub, snap, 100);  // one character a part
  ASSERT_EQ(frames.size(), 3u);
  EXPECT_EQ(frames[0].events_size(), 3);
  EXPECT_EQ(frames[1].events_size(), 0);
  EXPECT_EQ(frames[2].events_size(), 0);
}

TEST(StreamEvents, OverflowsAndFullPendingEventsAreReportedAsDropped) {
  EventSnapshots e;
  StreamSubscription sub = with_events();
  sub.ids = {1};
  // Character 1 crossed 5 more than it could keep; character 2's are not this
  // subscription's.
  collect_events(sub, e.make(1, {{walk(0)}, {}}, {5, 9}));
  // More than the pending bound: the excess is dropped and counted.
  std::vector<anim::FiredEvent> many(anim::kMaxFiredEvents, walk(0));
  uint64_t lost = 0;
  for (uint64_t t = 2; t < 2 + kMaxPendingEvents / many.size() + 2; ++t)
    lost += collect_events(sub, e.make(t, {many}));
  EXPECT_GT(lost, 0u);
  const auto frames = encode(sub, e.make(40, {}));
  EXPECT_EQ(static_cast<size_t>(frames[0].events_size()), kMaxPendingEvents);
  EXPECT_EQ(frames[0].events_dropped(), 5u + lost);
  EXPECT_EQ(encode(sub, e.make(41, {}))[0].events_dropped(), 0u);  // reported once
}

// A montage's lifecycle (EventSource::kMontage): named by its kind, not by the table (which a
// character with no clip events does not have), weight 1 whatever the minimum.
TEST(StreamEvents, MontageLifecycleEventsAreNamedByTheirKindWithOrWithoutATable) {
  EventSnapshots e;
  const anim::FiredEvent started{1,     static_cast<uint16_t>(anim::MontageEvent::kStarted),
                                 1.0f,  anim::EventSource::kMontage,
                                 false, 2};
  const anim::FiredEvent interrupted{0,     static_cast<uint16_t>(anim::MontageEvent::kInterrupted),
                                     1.0f,  anim::EventSource::kMontage,
                                     false, 2};
  Snapshot snap = e.make(9, {{interrupted, started}, {walk(0), started}});
  snap.characters[0].event_table = nullptr;  // no clip events on character 1's asset
  StreamSubscription sub = with_events(1.0f);
  sub.all = true;
  EXPECT_EQ(collect_events(sub, snap), 0u);
  const auto frames = encode(sub, snap);
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(names(frames[0]), (Names{"1:montage_interrupted@9", "1:montage_started@9", "2:step_l@9",
                                     "2:montage_started@9"}));
  const auto& m = frames[0].events(1);
  EXPECT_EQ(m.source(), anim::v1::EVENT_SOURCE_MONTAGE);
  EXPECT_EQ(m.clip(), "wave");
  EXPECT_EQ(m.layer_id(), 2u);
  EXPECT_EQ(m.weight(), 1.0f);
  EXPECT_TRUE(m.payload().empty());
  EXPECT_EQ(m.time(), 0.0f);
  EXPECT_EQ(frames[0].events(0).clip(), "walk");
}

}  // namespace stream_events_test
}  // namespace animd
