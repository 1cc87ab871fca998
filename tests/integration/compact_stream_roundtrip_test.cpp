// ENCODING_COMPACT through the real daemon: libanimclient's decoded palettes match a float
// subscription of the same ticks within the accuracy bound (skinned vertices of the built-in
// character, 1.8 m tall: p99 <= 0.5 mm, max <= 2 mm), and on the wire (a raw connection) a
// subscription starts with key frames, continues with deltas that carry no asset name, starts
// over with key frames after a resubscribe and a region entry, and after dropped frames
// refers only to frames the connection received.
#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "anim/loaders/builtin_character.h"
#include "animcodec/compact.h"
#include "integration_support.h"

namespace animtest {
namespace compact_stream_roundtrip_test {

using anim::v1::Request;
using anim::v1::StreamFrame;
using animcodec::FrameKind;

glm::vec3 skin(const float* palettes, const anim::SkinnedMesh& m, size_t v) {
  glm::vec3 out(0.0f);
  const glm::vec3 p = m.positions[v];
  for (int i = 0; i < 4; ++i) {
    const float* r = palettes + 12 * m.joints[v][i];
    out += m.weights[v][i] * glm::vec3(r[0] * p.x + r[1] * p.y + r[2] * p.z + r[3],
                                       r[4] * p.x + r[5] * p.y + r[6] * p.z + r[7],
                                       r[8] * p.x + r[9] * p.y + r[10] * p.z + r[11]);
  }
  return out;
}

std::unique_ptr<animclient::Client> subscribed(const DaemonProcess& d, anim::v1::Encoding e,
                                               uint32_t& subscription) {
  auto c = connect_client(d);
  if (!c) return nullptr;
  anim::v1::SubscribeRequest sub;
  sub.set_all_characters(true);
  sub.set_encoding(e);
  auto s = c->subscribe(sub);
  EXPECT_TRUE(s) << s.error().to_string();
  subscription = s ? s->subscription_id() : 0;
  return c;
}

// `args`: the daemon's flags (the encode stage on or off).
void expect_decoded_palettes_match_the_float_stream(const std::vector<std::string>& args) {
  DaemonProcess daemon(args);
  ANIMD_START(daemon);
  auto control = connect_client(daemon);
  ASSERT_TRUE(control);
  // Three characters: walking, running while moving (root motion), waving under a lean.
  auto a = control->spawn("builtin", "walk");
  auto b = control->spawn("builtin", "run");
  auto c = control->spawn("builtin", "wave");
  ASSERT_TRUE(a && b && c);
  anim::v1::AddLayerRequest lean;
  lean.set_character_id(c->character_id());
  lean.set_clip("lean");
  lean.set_weight(0.7f);
  ASSERT_TRUE(control->add_layer(lean));

  uint32_t fs = 0, cs = 0;
  auto floats = subscribed(daemon, anim::v1::ENCODING_FLOAT_3X4, fs);
  auto compact = subscribed(daemon, anim::v1::ENCODING_COMPACT, cs);
  ASSERT_TRUE(floats && compact);
  const uint64_t from = current_tick(*control);
  for (int i = 0; i < 30; ++i) {
    anim::v1::SetRootTransformRequest move;
    move.set_character_id(b->character_id());
    move.mutable_root()->mutable_translation()->set_x(0.05f * i);
    move.mutable_root()->mutable_translation()->set_z(-1.0f);
    ASSERT_TRUE(control->set_root(move));
  }
  const uint64_t until = current_tick(*control) + 30;
  auto f = collect_frames(*floats, fs, until);
  auto q = collect_frames(*compact, cs, until);
  ASSERT_GE(q.size(), 30u);

  const anim::Asset builtin = anim::make_builtin_character();
  glm::vec3 lo(INFINITY), hi(-INFINITY);
  for (const auto& p : builtin.mesh.positions) lo = glm::min(lo, p), hi = glm::max(hi, p);
  const double to_mm = 1800.0 / std::max({hi.x - lo.x, hi.y - lo.y, hi.z - lo.z});
  std::vector<double> errors;
  size_t compared = 0;
  for (const auto& [tick, frame] : q) {
    auto it = f.find(tick);
    if (it == f.end() || tick < from) continue;
    ASSERT_EQ(frame.characters_size(), it->second.characters_size());
    for (int k = 0; k < frame.characters_size(); ++k) {
      const auto& x = frame.characters(k);
      const auto& y = it->second.characters(k);
      ASSERT_EQ(x.character_id(), y.character_id());
      EXPECT_EQ(x.asset(), "builtin");
      EXPECT_TRUE(x.compact().empty());
      ASSERT_EQ(x.palette_size(), y.palette_size());
      EXPECT_NEAR(x.root().translation().x(), y.root().translation().x(), 1e-4);
      EXPECT_NEAR(x.root().translation().z(), y.root().translation().z(), 1e-4);
      EXPECT_NEAR(x.root().rotation().w(), y.root().rotation().w(), 1e-4);
      for (size_t v = 0; v < builtin.mesh.positions.size(); v += 3)
        errors.push_back(glm::length(skin(x.palette().data(), builtin.mesh, v) -
                                     skin(y.palette().data(), builtin.mesh, v)) *
                         to_mm);
      ++compared;
    }
  }
  ASSERT_GE(compared, 30u);
  std::sort(errors.begin(), errors.end());
  EXPECT_LE(errors[static_cast<size_t>(0.99 * (errors.size() - 1))], 0.5);
  EXPECT_LE(errors.back(), 2.0);
  EXPECT_EQ(compact->counters().compact_errors, 0u) << compact->last_compact_error();
  // What it saves: the compact stream's wire bytes against the float one's, per frame.
  const auto cc = compact->counters(), fc = floats->counters();
  EXPECT_LT(static_cast<double>(cc.stream_bytes_received) / cc.frames_received,
            0.2 * static_cast<double>(fc.stream_bytes_received) / fc.frames_received);
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

// The snapshots the encode stage prepared, from the daemon's last summary line (-1: none yet).
long long prepared_by_the_stage(const DaemonProcess& d) {
  const std::string log = d.log();
  const std::string key = "encode stage: ";
  const size_t at = log.rfind(key);
  if (at == std::string::npos) return -1;
  return std::stoll(log.substr(at + key.size()));
}

TEST(CompactStream, DecodedPalettesMatchTheFloatStream) {
  // Encoded by the encode stage (the default).
  expect_decoded_palettes_match_the_float_stream({});
}

TEST(CompactStream, TheEncodeStagePreparesSnapshotsForACompactSubscriber) {
  DaemonProcess daemon({"--summary-interval", "1"});
  ANIMD_START(daemon);
  auto control = connect_client(daemon);
  ASSERT_TRUE(control);
  ASSERT_TRUE(control->spawn("builtin", "walk"));
  uint32_t cs = 0;
  auto compact = subscribed(daemon, anim::v1::ENCODING_COMPACT, cs);
  ASSERT_TRUE(compact);
  const auto q = collect_frames(*compact, cs, current_tick(*control) + 60);
  ASSERT_GE(q.size(), 10u);
  EXPECT_EQ(compact->counters().compact_errors, 0u) << compact->last_compact_error();
  // Wait for a summary line after the frames (bounded, not a timing check).
  long long prepared = -1;
  for (int i = 0; i < 100 && prepared <= 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    prepared = prepared_by_the_stage(daemon);
  }
  EXPECT_GT(prepared, 0) << daemon.log_tail();
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

TEST(CompactStream, DecodedPalettesMatchTheFloatStreamEncodedByTheNetworkThreads) {
  expect_decoded_palettes_match_the_float_stream({"--encode-threads", "0"});
}

// The kinds of the compact frames a raw connection receives, per frame, in order.
struct WireFrame {
  uint64_t tick = 0;
  uint32_t subscription = 0;
  uint32_t dropped = 0;
  std::vector<std::pair<FrameKind, std::string>> characters;  // kind, asset field
  std::vector<uint32_t> ids;                                  // by character, in order
  std::vector<std::pair<uint64_t, uint64_t>> skipped;         // baseline(2)_ticks_skipped, in order
};

std::optional<WireFrame> next_wire_frame(RawConnection& raw) {
  while (auto m = raw.read_message()) {
    if (!m->has_frame()) continue;
    WireFrame w;
    w.tick = m->frame().tick();
    w.subscription = m->frame().subscription_id();
    w.dropped = m->frame().dropped_since_last();
    for (const auto& cf : m->frame().characters()) {
      animcodec::FrameHeader h;
      const auto* bytes = reinterpret_cast<const uint8_t*>(cf.compact().data());
      EXPECT_EQ(animcodec::read_header({bytes, cf.compact().size()}, h), "");
      w.characters.emplace_back(h.kind, cf.asset());
      w.ids.push_back(cf.character_id());
      w.skipped.emplace_back(cf.baseline_ticks_skipped(), cf.baseline2_ticks_skipped());
    }
    return w;
  }
  return std::nullopt;
}

Request subscribe_request(uint64_t id, bool compact = true) {
  Request r;
  r.set_request_id(id);
  r.mutable_subscribe()->set_all_characters(true);
  if (compact) r.mutable_subscribe()->set_encoding(anim::v1::ENCODING_COMPACT);
  return r;
}

TEST(CompactStream, KeyFramesFirstAfterResubscribeAndAfterDrops) {
  DaemonProcess daemon({"--spawn-builtin", "2"});
  ANIMD_START(daemon);
  RawConnection raw(daemon.port());
  ASSERT_TRUE(raw.ok());
  ASSERT_TRUE(raw.send_request(subscribe_request(1)));
  for (int i = 0; i < 4; ++i) {
    auto w = next_wire_frame(raw);
    ASSERT_TRUE(w);
    ASSERT_EQ(w->characters.size(), 2u);
    for (const auto& [kind, asset] : w->characters) {
      const FrameKind expected = i == 0   ? FrameKind::kKey
                                 : i == 1 ? FrameKind::kDelta1
                                          : FrameKind::kDelta2;
      // A frame dropped on a loaded machine restarts the sequence: accept a key then.
      if (w->dropped == 0) {
        EXPECT_EQ(kind, expected) << "frame " << i;
      }
      EXPECT_EQ(asset, kind == FrameKind::kKey ? "builtin" : "");
    }
  }
  // A second subscription on the same connection starts with key frames of its own.
  ASSERT_TRUE(raw.send_request(subscribe_request(2)));
  for (int seen = 0; seen < 200;) {
    auto w = next_wire_frame(raw);
    ASSERT_TRUE(w);
    ++seen;
    if (w->subscription != 2) continue;
    for (const auto& [kind, asset] : w->characters) EXPECT_EQ(kind, FrameKind::kKey);
    break;
  }
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

// What a client holds of each character (the ticks of its newest two frames), and whether a
// frame's character refers only to frames it holds (as libanimclient checks).
struct HeldTicks {
  struct Ticks {
    uint64_t newest = 0, older = 0;
    int count = 0;
  };
  std::map<uint32_t, Ticks> held;

  // Takes character k of `w`; false (and nothing held of it) for a delta against frames not
  // held.
  bool take(const WireFrame& w, size_t k) {
    Ticks& t = held[w.ids[k]];
    const FrameKind kind = w.characters[k].first;
    if (kind != FrameKind::kKey) {
      const uint64_t newest = w.tick - 1 - w.skipped[k].first;
      const uint64_t older = newest - 1 - w.skipped[k].second;
      const int need = kind == FrameKind::kDelta1 ? 1 : 2;
      if (t.count < need || t.newest != newest || (need == 2 && t.older != older)) {
        held.erase(w.ids[k]);
        return false;
      }
    } else {
      t.count = 0;
    }
    t.older = t.newest;
    t.newest = w.tick;
    t.count = std::min(t.count + 1, 2);
    return true;
  }
};

TEST(CompactStream, AfterDropsTheStreamRefersOnlyToFramesReceived) {
  // 40 characters and a small queue behind a reader that stops reading: frames are dropped.
  DaemonProcess daemon({"--spawn-builtin", "40", "--max-queued-bytes", "65536"});
  ANIMD_START(daemon);
  RawConnection raw(daemon.port(), /*rcvbuf=*/4096);
  ASSERT_TRUE(raw.ok());
  ASSERT_TRUE(raw.send_request(subscribe_request(1)));
  auto witness = connect_client(daemon);
  ASSERT_TRUE(witness);
  uint64_t dropped = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (dropped == 0 && std::chrono::steady_clock::now() < deadline) {
    dropped = witness->stats()->stream_frames_dropped();
    std::this_thread::sleep_for(100ms);
  }
  ASSERT_GT(dropped, 0u);
  // Read on (past the frames the kernel buffered before the drops). From the first frame
  // that reports drops on, each character is a key frame or a delta against frames this
  // connection received: ticks skipped before encoding are named by the delta
  // (baseline_ticks_skipped). The one exception the protocol allows: a frame queued before
  // an older queued frame was shed may refer to it; that character's next frame is then a
  // key frame.
  HeldTicks client;
  std::set<uint32_t> resync;  // characters whose next frame must be a key frame
  bool after_drops = false;
  int frames_after = 0;
  size_t deltas_after = 0;
  const auto read_until = std::chrono::steady_clock::now() + kWait;
  while (frames_after < 20 && std::chrono::steady_clock::now() < read_until) {
    auto w = next_wire_frame(raw);
    ASSERT_TRUE(w);
    after_drops |= w->dropped > 0;
    for (size_t k = 0; k < w->characters.size(); ++k) {
      const bool key = w->characters[k].first == FrameKind::kKey;
      EXPECT_EQ(w->characters[k].second, key ? "builtin" : "");
      if (after_drops && resync.erase(w->ids[k]) > 0) {
        EXPECT_TRUE(key) << "character " << w->ids[k] << " at tick " << w->tick;
      }
      if (!client.take(*w, k) && after_drops) resync.insert(w->ids[k]);
      deltas_after += after_drops && !key;
    }
    frames_after += after_drops;
  }
  EXPECT_EQ(frames_after, 20);
  EXPECT_GT(deltas_after, 0u);  // and the stream goes on in deltas
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

TEST(CompactStream, RegionEntryIsAKeyFrame) {
  DaemonProcess daemon;
  ANIMD_START(daemon);
  auto control = connect_client(daemon);
  ASSERT_TRUE(control);
  auto a = control->spawn("builtin", "walk");
  ASSERT_TRUE(a);
  RawConnection raw(daemon.port());
  ASSERT_TRUE(raw.ok());
  Request sub;
  sub.set_request_id(1);
  sub.mutable_subscribe()->set_encoding(anim::v1::ENCODING_COMPACT);
  sub.mutable_subscribe()->mutable_region()->mutable_sphere()->set_radius(2.0f);
  ASSERT_TRUE(raw.send_request(sub));
  auto first = next_wire_frame(raw);
  ASSERT_TRUE(first);
  ASSERT_EQ(first->characters.size(), 1u);
  EXPECT_EQ(first->characters[0].first, FrameKind::kKey);
  // Out of the region, then back in.
  anim::v1::SetRootTransformRequest move;
  move.set_character_id(a->character_id());
  move.mutable_root()->mutable_translation()->set_x(50.0f);
  ASSERT_TRUE(control->set_root(move));
  bool left = false;
  for (int i = 0; i < 600 && !left; ++i) {
    auto w = next_wire_frame(raw);
    ASSERT_TRUE(w);
    left = w->characters.empty();
  }
  ASSERT_TRUE(left);
  move.mutable_root()->mutable_translation()->set_x(0.5f);
  ASSERT_TRUE(control->set_root(move));
  for (int i = 0; i < 600; ++i) {
    auto w = next_wire_frame(raw);
    ASSERT_TRUE(w);
    if (w->characters.empty()) continue;
    EXPECT_EQ(w->characters[0].first, FrameKind::kKey);
    EXPECT_EQ(w->characters[0].second, "builtin");
    break;
  }
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

}  // namespace compact_stream_roundtrip_test
}  // namespace animtest
