// Blend spaces through the real daemon: define_blend_space on the builtin asset (bad
// definitions refused with their status and field), set_parameter with smoothing, play and
// crossfade by the blend space's name, and every streamed palette of the blending character
// equal, bit for bit, to query_pose at that past tick (the pose history records the samples).
#include <cstring>

#include <gtest/gtest.h>

#include "integration_support.h"

namespace animtest {
namespace blend_space_roundtrip_test {

using anim::v1::Request;

Request define(const std::string& name, std::vector<std::string> axes,
               std::vector<std::tuple<std::string, float, float>> samples) {
  Request r;
  auto* d = r.mutable_define_blend_space();
  d->set_asset("builtin");
  d->set_name(name);
  for (const auto& a : axes) d->add_axes(a);
  for (const auto& [clip, x, y] : samples) {
    auto* s = d->add_samples();
    s->set_clip(clip);
    s->set_x(x);
    s->set_y(y);
  }
  return r;
}

Request parameter(uint32_t id, const std::string& name, float value, float smoothing) {
  Request r;
  auto* p = r.mutable_set_parameter();
  p->set_character_id(id);
  p->set_name(name);
  p->set_value(value);
  p->set_smoothing(smoothing);
  return r;
}

anim::v1::CrossfadeRequest synced(uint32_t id, const std::string& to, float duration) {
  anim::v1::CrossfadeRequest r;
  r.set_character_id(id);
  r.set_clip(to);
  r.set_duration(duration);
  r.set_sync_normalized_time(true);
  return r;
}

TEST(BlendSpaces, DefinedPlayedAndDrivenThroughTheDaemonAndReplayedFromTheHistory) {
  DaemonProcess daemon;
  ANIMD_START(daemon);
  auto client = connect_client(daemon);
  ASSERT_TRUE(client);

  // Refused, naming the field.
  auto unknown = call(*client, define("move", {"speed"}, {{"idle", 0, 0}, {"moonwalk", 1, 0}}));
  EXPECT_EQ(unknown.status().code(), anim::v1::STATUS_NOT_FOUND);
  EXPECT_EQ(unknown.status().message(),
            "define_blend_space.samples[1].clip: unknown clip 'moonwalk' in asset 'builtin'");
  auto line =
      call(*client, define("line", {"x", "y"}, {{"idle", 0, 0}, {"walk", 1, 1}, {"run", 2, 2}}));
  EXPECT_EQ(line.status().code(), anim::v1::STATUS_INVALID_ARGUMENT);
  EXPECT_NE(line.status().message().find("define_blend_space.samples: all points are on one line"),
            std::string::npos)
      << line.status().message();
  auto nan = call(*client, define("nan", {"speed"}, {{"idle", 0, 0}, {"walk", NAN, 0}}));
  EXPECT_EQ(nan.status().code(), anim::v1::STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(nan.status().message(), "define_blend_space.samples[1].x is NaN");

  auto move = call_ok(
      *client, define("move", {"speed"}, {{"idle", 0, 0}, {"walk", 1.4f, 0}, {"run", 4, 0}}));
  EXPECT_EQ(move.define_blend_space().triangles(), 0u);
  auto dir = call_ok(
      *client, define("dir", {"turn", "speed"},
                      {{"idle", 0, 0}, {"walk", -1, 1.4f}, {"run", 1, 1.4f}, {"walk", 0, 3}}));
  EXPECT_EQ(dir.define_blend_space().triangles(), 2u);

  auto sp = client->spawn("builtin", "idle");
  ASSERT_TRUE(sp) << sp.error().to_string();
  const uint32_t id = sp->character_id();
  auto bad_param = call(*client, parameter(id, "speed", 1.0f, -2.0f));
  EXPECT_EQ(bad_param.status().code(), anim::v1::STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(bad_param.status().message(), "set_parameter.smoothing is negative");
  call_ok(*client, parameter(id, "speed", 0.7f, 0.0f));  // midway idle .. walk
  ASSERT_TRUE(client->crossfade(id, "move", 0.3f));
  call_ok(*client, parameter(id, "speed", 2.7f, 0.5f));  // on toward walk .. run, smoothed

  anim::v1::SubscribeRequest sub;
  sub.add_character_ids(id);
  auto s = client->subscribe(sub);
  ASSERT_TRUE(s) << s.error().to_string();
  const uint64_t from = current_tick(*client);
  // Into the 2D space and out to a clip while the stream runs.
  call_ok(*client, parameter(id, "turn", 0.4f, 0.2f));
  ASSERT_TRUE(client->crossfade(synced(id, "dir", 0.25f)));
  auto frames = collect_frames(*client, s->subscription_id(), from + 30);
  ASSERT_TRUE(client->crossfade(synced(id, "run", 0.2f)));
  auto more = collect_frames(*client, s->subscription_id(), from + 45);
  frames.merge(more);
  ASSERT_GE(frames.size(), 20u);
  const int compared = expect_history_matches_stream(*client, id, frames);
  EXPECT_GE(compared, 20);
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

}  // namespace blend_space_roundtrip_test
}  // namespace animtest
