// Montage sections and lifecycle events through the real daemon on the built-in character:
// refusals naming the field; a montage with an intro, a loop and an outro played, left to
// loop, moved to its outro with jump_to_section, then a montage replaced by another, all
// scheduled (Request.at_tick) from one connection while another watches. The streamed
// palettes equal core's for the same commands at the same ticks, and the subscription sees
// each montage's started, blending_out, ended and interrupted in the tick core fires them.
#include <cmath>
#include <future>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "anim/animator.h"
#include "anim/loaders/builtin_character.h"
#include "anim/tick_clock.h"
#include "integration_support.h"
#include "send_async.h"

namespace animtest {
namespace montage_sections_roundtrip_test {

using anim::v1::Request;

struct Section {
  std::string name;
  float start;
  std::string next;
};

const std::vector<Section> kSections = {
    {"intro", 0.0f, "loop"}, {"loop", 0.5f, "loop"}, {"outro", 1.25f, ""}};

Request play_montage(uint32_t id, uint32_t slot, const std::string& clip, float blend_out,
                     const std::vector<Section>& sections) {
  Request r;
  auto* m = r.mutable_play_montage();
  m->set_character_id(id);
  m->set_slot(slot);
  m->set_clip(clip);
  m->set_blend_out(blend_out);
  for (const Section& s : sections) {
    auto* out = m->add_sections();
    out->set_name(s.name);
    out->set_start_time(s.start);
    out->set_next(s.next);
  }
  return r;
}

Request jump(uint32_t id, uint32_t slot, const std::string& section) {
  Request r;
  auto* j = r.mutable_jump_to_section();
  j->set_character_id(id);
  j->set_slot(slot);
  j->set_section(section);
  return r;
}

anim::MontageDesc montage_desc(int clip, float blend_out, const std::vector<Section>& sections) {
  anim::MontageDesc d;
  d.clip = clip;
  d.blend_out = blend_out;
  for (const Section& s : sections) d.sections.push_back({s.name, s.start, s.next});
  return d;
}

// "tick name clip@slot" of a montage lifecycle event.
std::string lifecycle(uint64_t tick, const std::string& name, const std::string& clip,
                      uint32_t slot) {
  std::string s = std::to_string(tick);
  s.append(" ").append(name).append(" ").append(clip).append("@").append(std::to_string(slot));
  return s;
}

TEST(MontageSections, LoopJumpAndLifecycleThroughTheDaemonMatchCore) {
  DaemonProcess daemon({"--tick-rate", "60", "--history-seconds", "5"});
  ANIMD_START(daemon);
  auto control = connect_client(daemon);
  auto watcher = connect_client(daemon);
  ASSERT_TRUE(control && watcher);
  const anim::Asset asset = anim::make_builtin_character();
  const int walk = asset.find_clip("walk"), wave = asset.find_clip("wave"),
            lean = asset.find_clip("lean");

  Request spawn;
  spawn.mutable_spawn()->set_asset("builtin");
  spawn.mutable_spawn()->set_clip("walk");
  spawn.mutable_spawn()->set_shared(true);
  const anim::v1::Reply spawned = call_ok(*control, spawn);
  const uint32_t id = spawned.spawn().character_id();
  Request add_slot;
  add_slot.mutable_add_layer()->set_character_id(id);
  add_slot.mutable_add_layer()->set_blend(anim::v1::LAYER_BLEND_OVERRIDE);
  add_slot.mutable_add_layer()->mutable_mask()->set_blend_root("chest");
  const anim::v1::Reply slot_reply = call_ok(*control, add_slot);
  const uint32_t slot = slot_reply.add_layer().layer_id();

  // Refused, naming the field, changing nothing.
  expect_status(*control, play_montage(id, slot, "wave", 0, {{"", 0.0f, ""}}),
                anim::v1::STATUS_INVALID_ARGUMENT, "play_montage.sections[0].name is empty");
  expect_status(*control, play_montage(id, slot, "wave", 0, {{"a", 0.0f, ""}, {"b", -1.0f, ""}}),
                anim::v1::STATUS_INVALID_ARGUMENT, "play_montage.sections[1].start_time");
  expect_status(*control, play_montage(id, slot, "wave", 0, {{"a", 0.25f, ""}}),
                anim::v1::STATUS_INVALID_ARGUMENT, "sections[0].start_time 0.250000 is not 0");
  expect_status(*control, play_montage(id, slot, "wave", 0, {{"a", 0.0f, "nowhere"}}),
                anim::v1::STATUS_INVALID_ARGUMENT, "sections[0].next 'nowhere' names no section");
  std::vector<Section> many;
  for (int i = 0; i <= 64; ++i)
    many.push_back({std::string("s").append(std::to_string(i)), 0.01f * static_cast<float>(i), ""});
  expect_status(*control, play_montage(id, slot, "wave", 0, many),
                anim::v1::STATUS_RESOURCE_EXHAUSTED,
                "play_montage.sections has 65 sections, more than 64");
  expect_status(*control, jump(id, slot, "loop"), anim::v1::STATUS_FAILED_PRECONDITION,
                "no montage is playing in it");
  expect_status(*control, jump(id, 999, "loop"), anim::v1::STATUS_NOT_FOUND,
                "jump_to_section.slot: unknown layer 999");
  expect_status(*control, jump(id, slot, ""), anim::v1::STATUS_INVALID_ARGUMENT,
                "jump_to_section.section is empty");

  anim::v1::SubscribeRequest sub;
  sub.add_character_ids(id);
  sub.mutable_events()->set_enabled(true);
  sub.mutable_events()->set_min_weight(0.9f);  // lifecycle events weigh 1: never filtered
  auto subscribed = watcher->subscribe(sub);
  ASSERT_TRUE(subscribed) << subscribed.error().to_string();

  // The intro (30 ticks) and one turn of the loop (45) play; at +100 the montage jumps to
  // its outro (45 ticks, blending out over its last 15), which ends it. At +160 another
  // montage starts, and at +170 a third replaces it.
  const uint64_t t0 = current_tick(*control) + 30;
  const uint64_t jumped = t0 + 100, second = t0 + 160, third = t0 + 170, last = t0 + 180;
  std::vector<std::future<anim::v1::Reply>> sent;
  auto at = [&](uint64_t tick, Request r) {
    r.set_at_tick(tick);
    sent.push_back(send_async(*control, std::move(r)));
  };
  at(t0, play_montage(id, slot, "wave", 0.25f, kSections));
  at(jumped, jump(id, slot, "outro"));
  at(second, play_montage(id, slot, "wave", 0.0f, {}));
  at(third, play_montage(id, slot, "lean", 0.0f, {}));
  const auto frames = collect_frames(*watcher, subscribed->subscription_id(), last);
  ASSERT_FALSE(frames.empty());
  ASSERT_GE(frames.rbegin()->first, last);
  for (auto& reply : sent) {
    const anim::v1::Reply r = reply.get();
    EXPECT_EQ(r.status().code(), anim::v1::STATUS_OK) << r.status().message();
  }

  // Core, fed the same commands at the same ticks.
  std::multimap<uint64_t, std::function<void(anim::Animator&)>> timeline;
  timeline.emplace(spawned.tick(), [&](anim::Animator& a) { ASSERT_TRUE(a.play(walk)); });
  timeline.emplace(slot_reply.tick(), [&](anim::Animator& a) {
    anim::AdditiveLayerDesc d;
    d.blend = anim::LayerBlend::kOverride;
    d.mask = *anim::JointMask::subtree(asset.skeleton, asset.skeleton.find_joint("chest"));
    ASSERT_EQ(*a.add_layer(d), static_cast<int>(slot));
  });
  timeline.emplace(t0, [&](anim::Animator& a) {
    ASSERT_TRUE(a.play_montage(static_cast<int>(slot), montage_desc(wave, 0.25f, kSections)));
  });
  timeline.emplace(jumped, [&](anim::Animator& a) {
    ASSERT_TRUE(a.jump_to_section(static_cast<int>(slot), "outro"));
  });
  timeline.emplace(second, [&](anim::Animator& a) {
    ASSERT_TRUE(a.play_montage(static_cast<int>(slot), montage_desc(wave, 0.0f, {})));
  });
  timeline.emplace(third, [&](anim::Animator& a) {
    ASSERT_TRUE(a.play_montage(static_cast<int>(slot), montage_desc(lean, 0.0f, {})));
  });
  anim::Animator local(asset.skeleton, asset.clips);
  DaemonDts dts(60.0, first_tick(*control), spawned.tick());
  const uint64_t first_frame = frames.begin()->first;
  std::vector<std::string> want;
  size_t compared = 0;
  for (uint64_t t = spawned.tick(); t <= last; ++t) {
    if (t > first_frame && !frames.count(t)) continue;  // a skipped tick number
    auto [b, e] = timeline.equal_range(t);
    for (auto it = b; it != e; ++it) it->second(local);
    ASSERT_TRUE(local.update(dts.dt(t))) << "tick " << t;
    for (const anim::FiredEvent& f : local.fired_events())
      if (f.source == anim::EventSource::kMontage)
        want.push_back(
            lifecycle(t, anim::montage_event_name(f.event), asset.clips[f.clip].name, f.layer_id));
    auto frame = frames.find(t);
    if (frame == frames.end() || frame->second.characters_size() != 1) continue;
    const auto& streamed = frame->second.characters(0);
    const auto palette = local.palette();
    ASSERT_EQ(streamed.palette_size(), static_cast<int>(palette.size() * 12)) << "tick " << t;
    for (size_t j = 0; j < palette.size(); ++j)
      for (int k = 0; k < 12; ++k)
        ASSERT_NEAR(streamed.palette(static_cast<int>(j * 12 + k)), palette[j].m[k], 1e-6)
            << "tick " << t << " joint " << asset.skeleton.names[j];
    ++compared;
  }
  EXPECT_GE(compared, 100u);

  std::vector<std::string> got;
  for (const auto& [tick, frame] : frames)
    for (const auto& e : frame.events()) {
      EXPECT_EQ(e.character_id(), id);
      if (e.source() != anim::v1::EVENT_SOURCE_MONTAGE) continue;
      EXPECT_EQ(e.weight(), 1.0f);
      EXPECT_TRUE(e.payload().empty());
      got.push_back(lifecycle(e.tick(), e.name(), e.clip(), e.layer_id()));
    }
  EXPECT_EQ(got, want);
  // And by hand: started at its tick; no end while it loops; after the jump the outro's
  // 0.75 s (45 ticks) end it; the third montage interrupts the second, then starts.
  ASSERT_EQ(got.size(), 6u);
  EXPECT_EQ(got[0], lifecycle(t0, "montage_started", "wave", slot));
  const auto tick_of = [](const std::string& s) { return std::stoull(s.substr(0, s.find(' '))); };
  EXPECT_NE(got[1].find("montage_blending_out wave"), std::string::npos) << got[1];
  EXPECT_NE(got[2].find("montage_ended wave"), std::string::npos) << got[2];
  EXPECT_GT(tick_of(got[1]), jumped + 25);
  EXPECT_NEAR(double(tick_of(got[2])), double(jumped + 45), 1.0);
  EXPECT_EQ(got[3], lifecycle(second, "montage_started", "wave", slot));
  EXPECT_EQ(got[4], lifecycle(third, "montage_interrupted", "wave", slot));
  EXPECT_EQ(got[5], lifecycle(third, "montage_started", "lean", slot));

  // A jump to a section the montage does not have changes nothing.
  call_ok(*control, play_montage(id, slot, "wave", 0.0f, kSections));
  expect_status(*control, jump(id, slot, "nowhere"), anim::v1::STATUS_NOT_FOUND,
                "section 'nowhere' is not a section of the montage");
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

}  // namespace montage_sections_roundtrip_test
}  // namespace animtest
