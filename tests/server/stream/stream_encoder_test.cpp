// Stream encoding from a hand-built Snapshot: one message under the bound, several parts
// above it (characters in snapshot order, part/parts right, despawned and dropped_since_last
// on part 0 only), and the despawn bookkeeping of all-characters and explicit subscriptions.
#include "stream/stream_encoder.h"

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace animd {
namespace stream_encoder_test {

using anim::v1::ServerMessage;
using anim::v1::StreamFrame;

// A snapshot of characters `ids`, each with `joints` joints of asset "a"; palette entry j of
// character i holds the value i*1000 + j in every float (so parts can be checked).
Snapshot make_snapshot(const std::vector<uint32_t>& ids, uint32_t joints, uint64_t tick = 42) {
  auto asset = std::make_shared<anim::Asset>();
  asset->name = "a";
  Snapshot s;
  s.tick = tick;
  s.server_time = 0.7;
  s.has_palettes = true;
  uint32_t offset = 0;
  for (uint32_t id : ids) {
    SnapshotCharacter c;
    c.id = id;
    c.asset = Snapshot::hold(s.assets, AssetPtr(asset));
    c.root.translation = glm::vec3(float(id), 0.0f, 0.0f);
    c.palette_offset = offset;
    c.num_joints = joints;
    for (uint32_t j = 0; j < joints; ++j) {
      anim::PaletteMatrix m;
      for (float& f : m.m) f = float(id * 1000 + j);
      s.palettes.push_back(m);
    }
    offset += joints;
    s.characters.push_back(c);
  }
  return s;
}

// Parses one length-prefixed message, checking the prefix.
StreamFrame parse_frame(const std::string& bytes) {
  EXPECT_GE(bytes.size(), 4u);
  uint32_t len = 0;
  for (int i = 0; i < 4; ++i) len |= uint32_t(uint8_t(bytes[i])) << (8 * i);
  EXPECT_EQ(len + 4u, bytes.size());
  ServerMessage m;
  EXPECT_TRUE(m.ParseFromArray(bytes.data() + 4, static_cast<int>(bytes.size() - 4)));
  EXPECT_TRUE(m.has_frame());
  return m.frame();
}

std::vector<StreamFrame> encode(StreamSubscription& sub, const Snapshot& snap, uint32_t dropped,
                                size_t max_part_bytes) {
  EncodedFrame out;
  encode_stream_frame(sub, snap, dropped, 123456789, max_part_bytes, out);
  std::vector<StreamFrame> frames;
  size_t total = 0;
  for (const auto& m : out.messages) {
    total += m->size();
    frames.push_back(parse_frame(*m));
  }
  EXPECT_EQ(total, out.bytes);
  return frames;
}

std::vector<uint32_t> ids_of(const std::vector<StreamFrame>& frames) {
  std::vector<uint32_t> ids;
  for (const auto& f : frames)
    for (const auto& c : f.characters()) ids.push_back(c.character_id());
  return ids;
}

StreamSubscription all_sub(uint32_t id = 7) {
  StreamSubscription s;
  s.id = id;
  s.all = true;
  return s;
}

TEST(StreamEncoder, SmallFrameIsOneMessage) {
  const Snapshot snap = make_snapshot({1, 2, 3}, 4);
  auto sub = all_sub();
  const auto frames = encode(sub, snap, 5, 1 << 20);
  ASSERT_EQ(frames.size(), 1u);
  const StreamFrame& f = frames[0];
  EXPECT_EQ(f.subscription_id(), 7u);
  EXPECT_EQ(f.tick(), 42u);
  EXPECT_DOUBLE_EQ(f.server_time(), 0.7);
  EXPECT_EQ(f.server_unix_time_us(), 123456789);
  EXPECT_EQ(f.part(), 0u);
  EXPECT_EQ(f.parts(), 0u);  // a whole frame says nothing about parts
  EXPECT_EQ(f.dropped_since_last(), 5u);
  ASSERT_EQ(f.characters_size(), 3);
  for (int i = 0; i < 3; ++i) {
    const auto& c = f.characters(i);
    EXPECT_EQ(c.character_id(), uint32_t(i + 1));
    EXPECT_EQ(c.asset(), "a");
    EXPECT_FLOAT_EQ(c.root().translation().x(), float(i + 1));
    ASSERT_EQ(c.palette_size(), 4 * 12);
    EXPECT_FLOAT_EQ(c.palette(0), float((i + 1) * 1000));
    EXPECT_FLOAT_EQ(c.palette(47), float((i + 1) * 1000 + 3));
  }
}

// The float entries are written by hand (the palette straight from the snapshot), after the
// frame's own fields. For a frame with no field numbered above `characters` (nothing dropped,
// despawned or left, no events, one part) that is protobuf's canonical order, so the bytes
// must be exactly what protobuf writes: ids that need multi-byte varints, a palette whose
// length needs two bytes and a character of 0 joints. (With those fields the entries come
// before them on the wire: the same message to a parser; the tests below check its contents.)
TEST(StreamEncoder, ASimpleFloatFrameIsByteForByteProtobufs) {
  Snapshot snap = make_snapshot({1, 300, 70000}, 3);
  snap.characters[2].num_joints = 0;
  snap.characters[1].root.rotation = glm::quat(0.5f, 0.5f, -0.5f, 0.5f);
  EncodedFrame out;
  auto sub = all_sub(129);
  encode_stream_frame(sub, snap, 0, 987654321, 1 << 20, out);
  ASSERT_EQ(out.messages.size(), 1u);
  const std::string& bytes = *out.messages[0];
  const StreamFrame f = parse_frame(bytes);  // checks the length prefix
  ASSERT_EQ(f.characters_size(), 3);
  EXPECT_EQ(f.characters(1).palette_size(), 36);
  EXPECT_EQ(f.characters(2).palette_size(), 0);
  EXPECT_FLOAT_EQ(f.characters(1).root().rotation().y(), snap.characters[1].root.rotation.y);
  ServerMessage m;
  *m.mutable_frame() = f;
  EXPECT_EQ(bytes.substr(4), m.SerializeAsString());
}

// A float subscription never gets a frame from a snapshot without palettes (not expected in
// the daemon: it is counted before it starts): no message, and its bookkeeping unchanged.
TEST(StreamEncoder, NoFloatFrameFromASnapshotWithoutPalettes) {
  Snapshot snap = make_snapshot({1, 2}, 3);
  auto sub = all_sub();
  EncodedFrame out;
  encode_stream_frame(sub, snap, 0, 0, 1 << 20, out);
  ASSERT_EQ(out.messages.size(), 1u);
  const auto frames_before = sub.frames;
  const auto ids_before = sub.last_ids;
  Snapshot without = make_snapshot({2}, 3, 43);  // character 1 despawned meanwhile
  without.has_palettes = false;
  without.palettes.clear();
  encode_stream_frame(sub, without, 0, 0, 1 << 20, out);
  EXPECT_TRUE(out.messages.empty());
  EXPECT_EQ(out.bytes, 0u);
  EXPECT_EQ(sub.frames, frames_before);
  EXPECT_EQ(sub.last_ids, ids_before);
  // The next snapshot with palettes reports the despawn.
  const auto frames = encode(sub, make_snapshot({2}, 3, 44), 0, 1 << 20);
  ASSERT_EQ(frames.size(), 1u);
  ASSERT_EQ(frames[0].despawned_size(), 1);
  EXPECT_EQ(frames[0].despawned(0), 1u);
}

TEST(StreamEncoder, LargeFrameIsSplitIntoPartsInOrder) {
  std::vector<uint32_t> ids;
  for (uint32_t i = 0; i < 25; ++i) ids.push_back(10 + i * 3);
  const Snapshot snap = make_snapshot(ids, 10);
  auto sub = all_sub();
  const size_t bound = 2000;  // a 10-joint character is ~530 bytes: a few per part
  const auto frames = encode(sub, snap, 9, bound);
  ASSERT_GT(frames.size(), 1u);
  const uint32_t parts = static_cast<uint32_t>(frames.size());
  // Every character exactly once, in the snapshot's order.
  EXPECT_EQ(ids_of(frames), ids);
  for (uint32_t p = 0; p < parts; ++p) {
    const StreamFrame& f = frames[p];
    EXPECT_EQ(f.part(), p);
    EXPECT_EQ(f.parts(), parts);
    EXPECT_EQ(f.subscription_id(), 7u);
    EXPECT_EQ(f.tick(), 42u);
    EXPECT_GT(f.characters_size(), 0) << "part " << p;
    EXPECT_EQ(f.dropped_since_last(), p == 0 ? 9u : 0u) << "part " << p;
    for (const auto& c : f.characters()) {
      ASSERT_EQ(c.palette_size(), 120);
      EXPECT_FLOAT_EQ(c.palette(119), float(c.character_id() * 1000 + 9));
    }
  }
  // Each message (length prefix included) fits the bound.
  EncodedFrame out;
  auto sub2 = all_sub();
  encode_stream_frame(sub2, snap, 0, 0, bound, out);
  ASSERT_EQ(out.messages.size(), parts);
  for (const auto& m : out.messages) EXPECT_LE(m->size(), bound);
}

// Buffers handed in (a connection's spent ones) are written into, the last first, their old
// contents replaced: the same bytes as into new strings; what the frame did not need stays.
TEST(StreamEncoder, HandedInBuffersCarryTheSameBytes) {
  std::vector<uint32_t> ids;
  for (uint32_t i = 0; i < 12; ++i) ids.push_back(5 + i);
  const Snapshot snap = make_snapshot(ids, 10);
  EncodedFrame fresh;
  auto sub = all_sub();
  encode_stream_frame(sub, snap, 0, 0, 2000, fresh);
  const size_t parts = fresh.messages.size();
  ASSERT_GT(parts, 1u);

  EncodedFrame reused;
  std::vector<const std::string*> handed;
  for (size_t i = 0; i < parts + 2; ++i) {
    reused.buffers.push_back(std::make_unique<std::string>(3000 + i, 'z'));
    handed.push_back(reused.buffers.back().get());
  }
  auto sub2 = all_sub();
  encode_stream_frame(sub2, snap, 0, 0, 2000, reused);
  ASSERT_EQ(reused.messages.size(), parts);
  for (size_t p = 0; p < parts; ++p) {
    EXPECT_EQ(reused.messages[p].get(), handed[parts + 1 - p]) << "part " << p;
    EXPECT_EQ(*reused.messages[p], *fresh.messages[p]) << "part " << p;
  }
  ASSERT_EQ(reused.buffers.size(), 2u);
  EXPECT_EQ(reused.buffers[0].get(), handed[0]);
  EXPECT_EQ(reused.buffers[1].get(), handed[1]);
  EXPECT_EQ(reused.bytes, fresh.bytes);

  // A compact message through frame_message: the same bytes, in the buffer given.
  ServerMessage m;
  m.mutable_frame()->set_tick(77);
  auto into = std::make_unique<std::string>(100, 'q');
  const std::string* buffer = into.get();
  auto framed = frame_message(m, "\x2a\x02\x08\x01", std::move(into));
  EXPECT_EQ(framed.get(), buffer);
  EXPECT_EQ(*framed, *frame_message(m, "\x2a\x02\x08\x01"));
  // Without a tail too.
  const std::string* again = framed.get();
  auto whole = frame_message(m, {}, std::move(framed));
  EXPECT_EQ(whole.get(), again);
  EXPECT_EQ(*whole, *frame_message(m));
}

TEST(StreamEncoder, DespawnedOnlyOnPartZero) {
  std::vector<uint32_t> ids;
  for (uint32_t i = 1; i <= 20; ++i) ids.push_back(i);
  auto sub = all_sub();
  encode(sub, make_snapshot(ids, 10, 1), 0, 2000);
  // 3 and 17 despawned by the next tick.
  std::vector<uint32_t> after;
  for (uint32_t id : ids)
    if (id != 3 && id != 17) after.push_back(id);
  const auto frames = encode(sub, make_snapshot(after, 10, 2), 4, 2000);
  ASSERT_GT(frames.size(), 1u);
  EXPECT_EQ(ids_of(frames), after);
  ASSERT_EQ(frames[0].despawned_size(), 2);
  EXPECT_EQ(frames[0].despawned(0), 3u);
  EXPECT_EQ(frames[0].despawned(1), 17u);
  EXPECT_EQ(frames[0].dropped_since_last(), 4u);
  for (size_t p = 1; p < frames.size(); ++p) {
    EXPECT_EQ(frames[p].despawned_size(), 0) << "part " << p;
    EXPECT_EQ(frames[p].dropped_since_last(), 0u) << "part " << p;
  }
}

TEST(StreamEncoder, OneCharacterAboveTheBoundIsAPartOfItsOwn) {
  const Snapshot snap = make_snapshot({1, 2, 3}, 100);  // ~4.9 KB each
  auto sub = all_sub();
  const auto frames = encode(sub, snap, 0, 1000);
  ASSERT_EQ(frames.size(), 3u);
  for (uint32_t p = 0; p < 3; ++p) {
    ASSERT_EQ(frames[p].characters_size(), 1);
    EXPECT_EQ(frames[p].characters(0).character_id(), p + 1);
    EXPECT_EQ(frames[p].part(), p);
    EXPECT_EQ(frames[p].parts(), 3u);
  }
}

TEST(StreamEncoder, EmptySnapshotIsOneEmptyFrame) {
  auto sub = all_sub();
  const auto frames = encode(sub, make_snapshot({}, 5), 2, 4096);
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(frames[0].characters_size(), 0);
  EXPECT_EQ(frames[0].dropped_since_last(), 2u);
}

TEST(StreamEncoder, AllCharactersDespawnBookkeeping) {
  auto sub = all_sub();
  // First frame: nothing was seen before, so nothing is despawned.
  auto f = encode(sub, make_snapshot({1, 2, 3}, 2, 1), 0, 1 << 20);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].despawned_size(), 0);
  EXPECT_EQ(sub.last_ids, (std::vector<uint32_t>{1, 2, 3}));
  // 2 goes, 4 arrives.
  f = encode(sub, make_snapshot({1, 3, 4}, 2, 2), 0, 1 << 20);
  ASSERT_EQ(f[0].despawned_size(), 1);
  EXPECT_EQ(f[0].despawned(0), 2u);
  EXPECT_EQ(ids_of(f), (std::vector<uint32_t>{1, 3, 4}));
  EXPECT_EQ(sub.last_ids, (std::vector<uint32_t>{1, 3, 4}));
  // Reported once only.
  f = encode(sub, make_snapshot({1, 3, 4}, 2, 3), 0, 1 << 20);
  EXPECT_EQ(f[0].despawned_size(), 0);
  // Everyone gone.
  f = encode(sub, make_snapshot({}, 2, 4), 0, 1 << 20);
  EXPECT_EQ(f[0].characters_size(), 0);
  ASSERT_EQ(f[0].despawned_size(), 3);
  EXPECT_EQ(f[0].despawned(0), 1u);
  EXPECT_EQ(f[0].despawned(2), 4u);
}

TEST(StreamEncoder, ExplicitSubscriptionDespawnBookkeeping) {
  StreamSubscription sub;
  sub.id = 3;
  sub.ids = {2, 5, 9};
  // 9 is gone already: reported and forgotten; 7 (not subscribed) is not streamed.
  auto f = encode(sub, make_snapshot({2, 5, 7}, 2, 1), 0, 1 << 20);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(ids_of(f), (std::vector<uint32_t>{2, 5}));
  ASSERT_EQ(f[0].despawned_size(), 1);
  EXPECT_EQ(f[0].despawned(0), 9u);
  EXPECT_EQ(sub.ids, (std::vector<uint32_t>{2, 5}));
  f = encode(sub, make_snapshot({2, 5, 7}, 2, 2), 0, 1 << 20);
  EXPECT_EQ(f[0].despawned_size(), 0);
  // 2 goes.
  f = encode(sub, make_snapshot({5, 7}, 2, 3), 0, 1 << 20);
  EXPECT_EQ(ids_of(f), (std::vector<uint32_t>{5}));
  ASSERT_EQ(f[0].despawned_size(), 1);
  EXPECT_EQ(f[0].despawned(0), 2u);
  EXPECT_EQ(sub.ids, (std::vector<uint32_t>{5}));
}

TEST(StreamEncoder, FrameMessageHasALittleEndianLengthPrefix) {
  ServerMessage m;
  m.mutable_subscription_ended()->set_subscription_id(300);
  m.mutable_subscription_ended()->set_reason(std::string(300, 'r'));
  const auto bytes = frame_message(m);
  const size_t body = m.ByteSizeLong();
  ASSERT_EQ(bytes->size(), body + 4);
  EXPECT_EQ(uint8_t((*bytes)[0]), body & 0xff);
  EXPECT_EQ(uint8_t((*bytes)[1]), (body >> 8) & 0xff);
  EXPECT_EQ(uint8_t((*bytes)[2]), 0u);
  EXPECT_EQ(uint8_t((*bytes)[3]), 0u);
  ServerMessage back;
  ASSERT_TRUE(back.ParseFromArray(bytes->data() + 4, static_cast<int>(body)));
  EXPECT_EQ(back.subscription_ended().subscription_id(), 300u);
}

// Region subscriptions. make_snapshot puts character `id` at x = id; the positions are moved
// by hand here to walk characters in and out.
Snapshot with_positions(const std::vector<std::pair<uint32_t, glm::vec3>>& at) {
  std::vector<uint32_t> ids;
  for (const auto& [id, p] : at) ids.push_back(id);
  Snapshot s = make_snapshot(ids, 1);
  for (size_t i = 0; i < at.size(); ++i) s.characters[i].root.translation = at[i].second;
  return s;
}

StreamSubscription sphere_sub(glm::vec3 centre, float radius, float margin = 0.0f,
                              uint32_t divisor = 1) {
  StreamSubscription sub;
  sub.id = 9;
  StreamRegion r;
  r.shape = StreamRegion::Shape::kSphere;
  r.center = centre;
  r.radius = radius;
  r.outer_margin = margin;
  r.outer_divisor = divisor;
  sub.region = r;
  return sub;
}

std::vector<uint32_t> left_of(const std::vector<StreamFrame>& frames) {
  return {frames[0].left().begin(), frames[0].left().end()};
}
std::vector<uint32_t> despawned_of(const std::vector<StreamFrame>& frames) {
  return {frames[0].despawned().begin(), frames[0].despawned().end()};
}

TEST(StreamEncoder, RegionSendsTheCharactersInsideAndNamesThoseThatLeaveOnce) {
  StreamSubscription sub = sphere_sub({0, 0, 0}, 2.0f);
  // 1 at the centre, 2 on the boundary (inside: <=), 3 just outside, 4 far.
  auto f = encode(
      sub, with_positions({{1, {0, 0, 0}}, {2, {0, 2, 0}}, {3, {0, 0, 2.01f}}, {4, {10, 0, 0}}}), 0,
      1 << 20);
  EXPECT_EQ(ids_of(f), (std::vector<uint32_t>{1, 2}));
  EXPECT_TRUE(left_of(f).empty());
  // 1 walks out, 3 walks in, 2 is despawned, 5 is spawned inside.
  f = encode(sub, with_positions({{1, {3, 0, 0}}, {3, {0, 0, 1}}, {4, {10, 0, 0}}, {5, {1, 1, 1}}}),
             0, 1 << 20);
  EXPECT_EQ(ids_of(f), (std::vector<uint32_t>{3, 5}));
  EXPECT_EQ(left_of(f), (std::vector<uint32_t>{1}));
  EXPECT_EQ(despawned_of(f), (std::vector<uint32_t>{2}));
  // Nobody moves: nothing is reported again.
  f = encode(sub, with_positions({{1, {3, 0, 0}}, {3, {0, 0, 1}}, {4, {10, 0, 0}}, {5, {1, 1, 1}}}),
             0, 1 << 20);
  EXPECT_EQ(ids_of(f), (std::vector<uint32_t>{3, 5}));
  EXPECT_TRUE(left_of(f).empty());
  EXPECT_TRUE(despawned_of(f).empty());
  // The region moves to x = 10 (update_subscription): 4 comes in, 3 and 5 leave.
  sub.region->center = {10, 0, 0};
  f = encode(sub, with_positions({{1, {3, 0, 0}}, {3, {0, 0, 1}}, {4, {10, 0, 0}}, {5, {1, 1, 1}}}),
             0, 1 << 20);
  EXPECT_EQ(ids_of(f), (std::vector<uint32_t>{4}));
  EXPECT_EQ(left_of(f), (std::vector<uint32_t>{3, 5}));
}

TEST(StreamEncoder, RegionOuterZoneIsSentEveryNthFrameWithoutLeaving) {
  // Inner radius 1, outer zone to 3, every 3rd frame: 1 is inner, 2 outer, 3 outside.
  StreamSubscription sub = sphere_sub({0, 0, 0}, 1.0f, 2.0f, 3);
  const Snapshot snap = with_positions({{1, {0.5f, 0, 0}}, {2, {0, 2.5f, 0}}, {3, {0, 0, 3.5f}}});
  std::vector<std::vector<uint32_t>> sent;
  for (int frame = 0; frame < 6; ++frame) {
    auto f = encode(sub, snap, 0, 1 << 20);
    sent.push_back(ids_of(f));
    EXPECT_TRUE(left_of(f).empty()) << "frame " << frame;  // 2 stays a member throughout
  }
  const std::vector<uint32_t> both{1, 2}, inner{1};
  EXPECT_EQ(sent, (std::vector<std::vector<uint32_t>>{both, inner, inner, both, inner, inner}));
  // 2 goes beyond the outer zone: it leaves (once).
  auto f = encode(sub, with_positions({{1, {0.5f, 0, 0}}, {2, {0, 3.5f, 0}}, {3, {0, 0, 3.5f}}}), 0,
                  1 << 20);
  EXPECT_EQ(left_of(f), (std::vector<uint32_t>{2}));
}

TEST(StreamEncoder, BoxRegionIncludesItsFacesAndGrowsByTheMargin) {
  StreamRegion box;
  box.shape = StreamRegion::Shape::kBox;
  box.min = {-1, 0, -1};
  box.max = {1, 2, 1};
  EXPECT_EQ(box.zone({1, 2, 1}), StreamRegion::Zone::kInner);
  EXPECT_EQ(box.zone({0, 1, 0}), StreamRegion::Zone::kInner);
  EXPECT_EQ(box.zone({1.01f, 1, 0}), StreamRegion::Zone::kOutside);
  box.outer_margin = 0.5f;
  box.outer_divisor = 2;
  EXPECT_EQ(box.zone({1.4f, 1, 0}), StreamRegion::Zone::kOuter);
  EXPECT_EQ(box.zone({0, -0.6f, 0}), StreamRegion::Zone::kOutside);
  EXPECT_EQ(box.zone({0, 2.5f, 0}), StreamRegion::Zone::kOuter);
}

TEST(StreamEncoder, AfterDroppedFramesPartZeroListsEveryMember) {
  // Region: members are the inner and outer zone, sent or not.
  StreamSubscription region = sphere_sub({0, 0, 0}, 1.0f, 2.0f, 3);
  const Snapshot snap = with_positions({{1, {0.5f, 0, 0}}, {2, {0, 2.5f, 0}}, {3, {0, 0, 9}}});
  auto f = encode(region, snap, 0, 1 << 20);
  EXPECT_EQ(f[0].members_size(), 0);  // nothing dropped: no list
  encode(region, snap, 0, 1 << 20);   // frame 1: the outer member 2 is not sent
  f = encode(region, snap, 4, 1 << 20);
  EXPECT_EQ(ids_of(f), (std::vector<uint32_t>{1}));
  EXPECT_EQ(std::vector<uint32_t>(f[0].members().begin(), f[0].members().end()),
            (std::vector<uint32_t>{1, 2}));
  // All characters, and explicit ids (a despawned one is no member), split into parts: the
  // list is on part 0 only.
  StreamSubscription all = all_sub();
  f = encode(all, make_snapshot({3, 5, 8}, 4), 1, 400);
  ASSERT_GT(f.size(), 1u);
  EXPECT_EQ(std::vector<uint32_t>(f[0].members().begin(), f[0].members().end()),
            (std::vector<uint32_t>{3, 5, 8}));
  for (size_t p = 1; p < f.size(); ++p) EXPECT_EQ(f[p].members_size(), 0);
  StreamSubscription listed;
  listed.id = 4;
  listed.ids = {3, 4, 8};
  f = encode(listed, make_snapshot({3, 5, 8}, 1), 2, 1 << 20);
  EXPECT_EQ(std::vector<uint32_t>(f[0].members().begin(), f[0].members().end()),
            (std::vector<uint32_t>{3, 8}));
}

}  // namespace stream_encoder_test
}  // namespace animd
