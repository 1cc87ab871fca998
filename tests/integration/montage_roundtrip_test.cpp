// Montages through the real daemon on the built-in character: a slot added with add_layer
// (override, no clip), play_montage / stop_montage with their refusals naming the field, the
// montage's palettes streamed equal to query_pose at those past ticks (the history replays
// it), the slot's mask respected (legs as a character without the montage, arms not), and the
// slot silent once the montage ended (every palette entry as that character's).
#include <cmath>
#include <cstring>
#include <thread>

#include <gtest/gtest.h>

#include "integration_support.h"

namespace animtest {
namespace montage_roundtrip_test {

using anim::v1::Request;

Request slot_request(uint32_t id, const std::string& mask_root, const std::string& clip = "",
                     anim::v1::LayerTimeSource time = anim::v1::LAYER_TIME_OWN_CLOCK) {
  Request r;
  auto* l = r.mutable_add_layer();
  l->set_character_id(id);
  l->set_clip(clip);
  l->set_blend(anim::v1::LAYER_BLEND_OVERRIDE);
  l->set_time_source(time);
  l->mutable_mask()->set_blend_root(mask_root);
  return r;
}

Request play_montage(uint32_t id, uint32_t slot, const std::string& clip, float rate,
                     float blend_in, float blend_out, float start = 0.0f) {
  Request r;
  auto* m = r.mutable_play_montage();
  m->set_character_id(id);
  m->set_slot(slot);
  m->set_clip(clip);
  m->set_rate(rate);
  m->set_blend_in(blend_in);
  m->set_blend_out(blend_out);
  m->set_start_time(start);
  return r;
}

Request stop_montage(uint32_t id, uint32_t slot, float blend_out) {
  Request r;
  auto* m = r.mutable_stop_montage();
  m->set_character_id(id);
  m->set_slot(slot);
  m->set_blend_out(blend_out);
  return r;
}

float max_difference(const anim::v1::JointPose& a, const anim::v1::JointPose& b) {
  float worst = 0.0f;
  for (int i = 0; i < a.matrix_size() && i < b.matrix_size(); ++i)
    worst = std::max(worst, std::abs(a.matrix(i) - b.matrix(i)));
  return worst;
}

TEST(Montages, PlayedInASlotThroughTheDaemonAndReplayedFromTheHistory) {
  DaemonProcess daemon({"--history-seconds", "5"});
  ANIMD_START(daemon);
  auto client = connect_client(daemon);
  ASSERT_TRUE(client);

  auto spawn = [&] {
    Request r;
    r.mutable_spawn()->set_asset("builtin");
    r.mutable_spawn()->set_clip("walk");
    return call_ok(*client, r);
  };
  const anim::v1::Reply a = spawn(), b = spawn();
  const uint32_t id = a.spawn().character_id(), plain = b.spawn().character_id();
  const uint32_t slot = call_ok(*client, slot_request(id, "chest")).add_layer().layer_id();
  ASSERT_GT(slot, 0u);
  const uint32_t clip_layer =
      call_ok(*client, slot_request(id, "chest", "idle")).add_layer().layer_id();

  // Refused, naming the field, changing nothing.
  expect_status(*client, play_montage(id, 999, "wave", 1, 0, 0), anim::v1::STATUS_NOT_FOUND,
                "play_montage.slot: unknown layer 999");
  expect_status(*client, play_montage(id, slot, "moonwalk", 1, 0, 0), anim::v1::STATUS_NOT_FOUND,
                "play_montage.clip: unknown clip 'moonwalk'");
  expect_status(*client, play_montage(id, clip_layer, "wave", 1, 0, 0),
                anim::v1::STATUS_FAILED_PRECONDITION, "plays its own clip");
  expect_status(*client, play_montage(id, slot, "wave", 0, 0, 0), anim::v1::STATUS_INVALID_ARGUMENT,
                "play_montage.rate");
  expect_status(*client, play_montage(id, slot, "wave", 1, NAN, 0),
                anim::v1::STATUS_INVALID_ARGUMENT, "play_montage.blend_in");
  expect_status(*client, play_montage(id, slot, "wave", 1, 0, 0, 2.0f),
                anim::v1::STATUS_INVALID_ARGUMENT, "start_time");
  expect_status(*client, stop_montage(id, slot, 0.2f), anim::v1::STATUS_FAILED_PRECONDITION,
                "no montage is playing");
  expect_status(*client, stop_montage(id, slot, -1), anim::v1::STATUS_INVALID_ARGUMENT,
                "stop_montage.blend_out");
  expect_status(*client, slot_request(id, "chest", "", anim::v1::LAYER_TIME_PARAMETER),
                anim::v1::STATUS_INVALID_ARGUMENT, "time source");
  Request bad_blend = slot_request(id, "chest");
  bad_blend.mutable_add_layer()->set_blend(static_cast<anim::v1::LayerBlend>(7));
  expect_status(*client, bad_blend, anim::v1::STATUS_INVALID_ARGUMENT,
                "add_layer.blend has an unknown value 7");
  ASSERT_TRUE(client->remove_layer(id, clip_layer));

  // The two characters' walks are offset by the ticks between their spawns.
  const int64_t offset = static_cast<int64_t>(b.tick()) - static_cast<int64_t>(a.tick());

  anim::v1::SubscribeRequest sub;
  sub.add_character_ids(id);
  auto s = client->subscribe(sub);
  ASSERT_TRUE(s) << s.error().to_string();
  // wave lasts 2 s: at rate 2 the montage is over 60 ticks after it started.
  const uint64_t started = call_ok(*client, play_montage(id, slot, "wave", 2, 0.1f, 0.1f)).tick();
  ASSERT_GT(started, 0u);
  auto frames = collect_frames(*client, s->subscription_id(), started + 75);
  ASSERT_GE(frames.size(), 20u);
  EXPECT_GE(expect_history_matches_stream(*client, id, frames), 20);

  const uint64_t during = started + 30, after = started + 70;
  const uint64_t during_plain = static_cast<uint64_t>(static_cast<int64_t>(during) + offset);
  const uint64_t after_plain = static_cast<uint64_t>(static_cast<int64_t>(after) + offset);
  while (current_tick(*client) < std::max(after, after_plain) + 2)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  // At full weight the arm waves and the legs walk as the character without a montage.
  const auto montage_pose = pose_at(*client, id, during, {"thigh_l", "forearm_r"});
  const auto plain_pose = pose_at(*client, plain, during_plain, {"thigh_l", "forearm_r"});
  ASSERT_EQ(montage_pose.joints_size(), 2);
  ASSERT_EQ(plain_pose.joints_size(), 2);
  EXPECT_EQ(max_difference(montage_pose.joints(0), plain_pose.joints(0)), 0.0f);
  EXPECT_GT(max_difference(montage_pose.joints(1), plain_pose.joints(1)), 1e-3f);
  // Ended, the slot is silent: the whole palette is the plain character's.
  const auto ended = pose_at(*client, id, after);
  const auto plain_after = pose_at(*client, plain, after_plain);
  ASSERT_EQ(ended.palette_size(), plain_after.palette_size());
  EXPECT_EQ(std::memcmp(ended.palette().data(), plain_after.palette().data(),
                        sizeof(float) * static_cast<size_t>(ended.palette_size())),
            0);

  // Played again and stopped: a second stop while it blends out moves the blend-out; once
  // it is over there is nothing to stop.
  call_ok(*client, play_montage(id, slot, "wave", 1, 0, 0));
  call_ok(*client, stop_montage(id, slot, 0.2f));
  call_ok(*client, stop_montage(id, slot, 0.1f));
  const uint64_t stopped = current_tick(*client);
  while (current_tick(*client) < stopped + 12)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  expect_status(*client, stop_montage(id, slot, 0.2f), anim::v1::STATUS_FAILED_PRECONDITION,
                "no montage is playing");
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

}  // namespace montage_roundtrip_test
}  // namespace animtest
