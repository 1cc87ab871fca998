// Animation events through the real daemon: add_clip_events on the built-in walk, events
// streamed to the subscriptions that ask (every tick's events also with a rate divisor),
// counted in stats; events from a glTF's extras; fading-out and fading-in clips with their
// weights and a subscription's minimum weight; bad requests refused, changing nothing.
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "integration_support.h"
#include "travel_gltf.h"

namespace animtest {
namespace events_test {

using anim::v1::Request;

anim::v1::AddClipEventsRequest add_events(
    const std::string& asset, const std::string& clip,
    std::vector<std::tuple<std::string, float, std::string>> events) {
  anim::v1::AddClipEventsRequest r;
  r.set_asset(asset);
  r.set_clip(clip);
  for (const auto& [name, time, payload] : events) {
    auto* e = r.add_events();
    e->set_name(name);
    e->set_time(time);
    e->set_payload(payload);
  }
  return r;
}

uint32_t subscribe_events(animclient::Client& c, uint32_t id, float min_weight = 0.0f,
                          uint32_t divisor = 1, bool events = true) {
  anim::v1::SubscribeRequest s;
  s.add_character_ids(id);
  s.set_rate_divisor(divisor);
  s.mutable_events()->set_enabled(events);
  s.mutable_events()->set_min_weight(min_weight);
  auto r = c.subscribe(s);
  EXPECT_TRUE(r) << r.error().to_string();
  return r ? r->subscription_id() : 0;
}

std::vector<anim::v1::AnimationEvent> events_of(
    const std::map<uint64_t, anim::v1::StreamFrame>& frames) {
  std::vector<anim::v1::AnimationEvent> out;
  for (const auto& [tick, f] : frames)
    for (const auto& e : f.events()) out.push_back(e);
  return out;
}

TEST(Events, AddedEventsStreamToSubscriptionsThatAskAndAreCounted) {
  DaemonProcess daemon;
  ANIMD_START(daemon);
  auto client = connect_client(daemon);
  auto plain = connect_client(daemon);
  auto sparse = connect_client(daemon);
  ASSERT_TRUE(client && plain && sparse);

  // Bad requests: refused with their status, and the clip keeps no event from them.
  auto status_of = [&](const anim::v1::AddClipEventsRequest& r) {
    Request q;
    *q.mutable_add_clip_events() = r;
    return call(*client, q).status();
  };
  EXPECT_EQ(status_of(add_events("nobody", "walk", {{"x", 0.1f, ""}})).code(),
            anim::v1::STATUS_NOT_FOUND);
  const auto no_clip = status_of(add_events("builtin", "moonwalk", {{"x", 0.1f, ""}}));
  EXPECT_EQ(no_clip.code(), anim::v1::STATUS_NOT_FOUND);
  EXPECT_EQ(no_clip.message(), "add_clip_events.clip: unknown clip 'moonwalk' in asset 'builtin'");
  const auto nan = status_of(add_events("builtin", "walk", {{"x", std::nanf(""), ""}}));
  EXPECT_EQ(nan.code(), anim::v1::STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(nan.message(), "add_clip_events.events[0].time is NaN");
  const auto late = status_of(add_events("builtin", "walk", {{"ok", 0.5f, ""}, {"x", 9.0f, ""}}));
  EXPECT_EQ(late.code(), anim::v1::STATUS_INVALID_ARGUMENT);
  EXPECT_NE(late.message().find("add_clip_events.events[1].time 9.000000 is outside"),
            std::string::npos)
      << late.message();

  auto added = client->add_clip_events(
      add_events("builtin", "walk", {{"step_r", 0.75f, ""}, {"step_l", 0.25f, "left"}}));
  ASSERT_TRUE(added) << added.error().to_string();
  ASSERT_EQ(added->events_size(), 2);  // only these two: the refused ones left nothing
  EXPECT_EQ(added->events(0).name(), "step_l");
  EXPECT_EQ(added->events(1).name(), "step_r");

  anim::v1::SpawnRequest spawn;
  spawn.set_asset("builtin");
  spawn.set_clip("walk");
  spawn.set_shared(true);
  auto sp = client->spawn(spawn);
  ASSERT_TRUE(sp);
  const uint32_t id = sp->character_id();
  const uint32_t sub = subscribe_events(*client, id);
  const uint32_t none = subscribe_events(*plain, id, 0.0f, 1, false);
  const uint32_t every10 = subscribe_events(*sparse, id, 0.0f, 10);
  const uint64_t last = sp->tick() + 150;  // 2.5 walk cycles
  const auto frames = collect_frames(*client, sub, last);
  const auto plain_frames = collect_frames(*plain, none, last);
  const auto sparse_frames = collect_frames(*sparse, every10, last);

  // step_l at 0.25 s and step_r at 0.75 s of each 1 s cycle: half a second (30 ticks) apart,
  // alternating, each in the frame of the tick that crossed it.
  const auto events = events_of(frames);
  ASSERT_GE(events.size(), 4u);
  for (size_t i = 0; i < events.size(); ++i) {
    const auto& e = events[i];
    EXPECT_EQ(e.character_id(), id);
    EXPECT_EQ(e.clip(), "walk");
    EXPECT_EQ(e.weight(), 1.0f);
    EXPECT_EQ(e.source(), anim::v1::EVENT_SOURCE_BASE);
    EXPECT_EQ(e.payload(), e.name() == "step_l" ? "left" : "");
    EXPECT_EQ(frames.at(e.tick()).tick(), e.tick());
    if (i > 0) {
      EXPECT_NE(e.name(), events[i - 1].name());
      EXPECT_NEAR(double(e.tick() - events[i - 1].tick()), 30.0, 1.0);
    }
  }
  EXPECT_TRUE(events_of(plain_frames).empty());
  // Every tenth frame only, yet every event up to its last frame.
  const uint64_t sparse_last = sparse_frames.rbegin()->first;
  std::vector<std::string> want, got;
  for (const auto& e : events)
    if (e.tick() <= sparse_last) want.push_back(e.name() + "@" + std::to_string(e.tick()));
  for (const auto& e : events_of(sparse_frames))
    got.push_back(e.name() + "@" + std::to_string(e.tick()));
  EXPECT_EQ(got, want);
  EXPECT_GE(want.size(), 3u);

  auto stats = client->stats();
  ASSERT_TRUE(stats);
  EXPECT_GE(stats->events_fired(), events.size());
  EXPECT_GE(stats->events_sent(), events.size() + got.size());
  EXPECT_EQ(stats->events_overflowed(), 0u);
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

TEST(Events, GltfExtrasAndFadingClipsWithTheirWeights) {
  DaemonProcess daemon;
  ANIMD_START(daemon);
  auto all = connect_client(daemon);
  auto heavy = connect_client(daemon);
  ASSERT_TRUE(all && heavy);
  // Stride's "mid" at 0.5 s comes from the file; Stand gets "mark" at 0.1 s over the wire.
  anim::v1::LoadAssetRequest load;
  load.set_name("strider");
  load.set_glb_data(
      travel_gltf({{"events", {{{"name", "mid"}, {"time", 0.5}, {"payload", "from gltf"}}}}})
          .glb_bytes());
  ASSERT_TRUE(all->load_asset(load));
  ASSERT_TRUE(all->add_clip_events(add_events("strider", "Stand", {{"mark", 0.1f, ""}})));
  anim::v1::SpawnRequest spawn;
  spawn.set_asset("strider");
  spawn.set_clip("Stride");
  spawn.set_shared(true);
  auto sp = all->spawn(spawn);
  ASSERT_TRUE(sp);
  const uint32_t id = sp->character_id();
  const uint32_t sub_all = subscribe_events(*all, id);
  const uint32_t sub_heavy = subscribe_events(*heavy, id, 0.9f);
  // Stride fades out and Stand in over 3 s: both keep firing, each with its share.
  Request fade;
  fade.mutable_crossfade()->set_character_id(id);
  fade.mutable_crossfade()->set_clip("Stand");
  fade.mutable_crossfade()->set_duration(3.0f);
  const uint64_t fade_tick = call_ok(*all, fade).tick();
  const uint64_t last = fade_tick + 200;
  const auto frames = collect_frames(*all, sub_all, last);
  const auto heavy_frames = collect_frames(*heavy, sub_heavy, last);

  const double dt = 1.0 / 60.0;
  std::set<std::string> kinds;
  bool light_fade_in = false, light_fade_out = false;
  for (const auto& e : events_of(frames)) {
    if (e.tick() < fade_tick) continue;
    // The fade's weight after the update of tick T: (T - fade_tick + 1) dt / 3.
    const double w = std::min(1.0, double(e.tick() - fade_tick + 1) * dt / 3.0);
    if (e.name() == "mid") {
      EXPECT_EQ(e.payload(), "from gltf");
      EXPECT_EQ(e.clip(), "Stride");
      EXPECT_NEAR(e.weight(), 1.0 - w, 1e-3) << "tick " << e.tick();
      light_fade_out |= e.weight() < 0.9f;
    } else {
      EXPECT_EQ(e.name(), "mark");
      EXPECT_EQ(e.clip(), "Stand");
      EXPECT_NEAR(e.weight(), w, 1e-3) << "tick " << e.tick();
      light_fade_in |= e.weight() < 0.9f && e.source() == anim::v1::EVENT_SOURCE_FADE;
    }
    kinds.insert(e.name());
  }
  EXPECT_EQ(kinds, (std::set<std::string>{"mid", "mark"}));
  EXPECT_TRUE(light_fade_in);
  EXPECT_TRUE(light_fade_out);
  // The heavy subscription saw only the heavy ones, and the fully faded-in Stand's.
  size_t heavy_count = 0;
  for (const auto& e : events_of(heavy_frames)) {
    EXPECT_GE(e.weight(), 0.9f) << e.name() << " at " << e.tick();
    ++heavy_count;
  }
  EXPECT_GE(heavy_count, 1u);
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

}  // namespace events_test
}  // namespace animtest
