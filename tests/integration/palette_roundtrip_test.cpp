// Streamed palettes equal what core computes for the same commands at the same ticks:
// a local anim::Animator is fed every command at the tick its reply names and updated by
// dt = 1/tick_rate per tick (the daemon's contract, docs/protocol.md "Ticks").
#include <cmath>
#include <functional>
#include <map>

#include <gtest/gtest.h>

#include "anim/animator.h"
#include "anim/loaders/builtin_character.h"
#include "anim/loaders/gltf_loader.h"
#include "anim/tick_clock.h"
#include "integration_support.h"
#include "shared_assets.h"

namespace animtest {
namespace palette_roundtrip_test {

using anim::v1::Request;

// Commands as the daemon applied them: at a tick, in order.
struct Timeline {
  std::multimap<uint64_t, std::function<void(anim::Animator&)>> at;
  void add(uint64_t tick, std::function<void(anim::Animator&)> f) {
    at.emplace(tick, std::move(f));
  }
};

// Replays the timeline from the spawn tick and compares every streamed frame.
// `first_tick`: the daemon's (StatsReply.first_tick). The ticks that ran are those of the
// frames, and every tick before the first frame.
void expect_frames_match(const anim::Asset& asset, uint64_t first_tick, uint64_t spawn_tick,
                         const Timeline& timeline,
                         const std::map<uint64_t, anim::v1::StreamFrame>& frames,
                         uint32_t character_id) {
  ASSERT_FALSE(frames.empty());
  anim::Animator local(asset.skeleton, asset.clips);
  DaemonDts dts(60.0, first_tick, spawn_tick);
  const uint64_t first_frame = frames.begin()->first;
  const uint64_t last = frames.rbegin()->first;
  size_t compared = 0;
  for (uint64_t t = spawn_tick; t <= last; ++t) {
    if (t > first_frame && !frames.count(t)) continue;  // a skipped tick number
    auto [b, e] = timeline.at.equal_range(t);
    for (auto it = b; it != e; ++it) it->second(local);
    ASSERT_TRUE(local.update(dts.dt(t))) << "tick " << t;
    auto f = frames.find(t);
    if (f == frames.end()) continue;
    const anim::v1::CharacterFrame* cf = nullptr;
    for (const auto& c : f->second.characters())
      if (c.character_id() == character_id) cf = &c;
    ASSERT_NE(cf, nullptr) << "tick " << t;
    const auto palette = local.palette();
    ASSERT_EQ(cf->palette_size(), static_cast<int>(palette.size() * 12)) << "tick " << t;
    for (size_t j = 0; j < palette.size(); ++j)
      for (int k = 0; k < 12; ++k)
        ASSERT_NEAR(cf->palette(static_cast<int>(j * 12 + k)), palette[j].m[k], 1e-6)
            << "tick " << t << " joint " << asset.skeleton.names[j] << " element " << k;
    ++compared;
  }
  EXPECT_GE(compared, 10u);
}

Request spawn_request(const std::string& asset, const std::string& clip) {
  Request r;
  r.mutable_spawn()->set_asset(asset);
  r.mutable_spawn()->set_clip(clip);
  return r;
}

TEST(Palette, BuiltinPlayCrossfadeLayerIkSpeedMatchCore) {
  DaemonProcess daemon({"--tick-rate", "60"});
  ANIMD_START(daemon);
  auto client = connect_client(daemon);
  ASSERT_TRUE(client);
  const anim::Asset asset = anim::make_builtin_character();
  const int walk = asset.find_clip("walk"), run = asset.find_clip("run"),
            lean = asset.find_clip("lean");
  ASSERT_GE(walk, 0);
  ASSERT_GE(run, 0);
  ASSERT_GE(lean, 0);
  Timeline tl;

  auto spawned = call_ok(*client, spawn_request("builtin", "walk"));
  const uint32_t id = spawned.spawn().character_id();
  const uint64_t spawn_tick = spawned.tick();
  EXPECT_EQ(spawned.spawn().tick(), spawn_tick);
  tl.add(spawn_tick, [walk](anim::Animator& a) { ASSERT_TRUE(a.play(walk)); });

  Request sub;
  sub.mutable_subscribe()->add_character_ids(id);
  const uint32_t sub_id = call_ok(*client, sub).subscribe().subscription_id();
  EXPECT_GT(sub_id, 0u);

  Request cf;
  cf.mutable_crossfade()->set_character_id(id);
  cf.mutable_crossfade()->set_clip("run");
  cf.mutable_crossfade()->set_duration(0.25f);
  tl.add(call_ok(*client, cf).tick(),
         [run](anim::Animator& a) { ASSERT_TRUE(a.crossfade(run, 0.25f)); });

  Request layer;
  layer.mutable_add_layer()->set_character_id(id);
  layer.mutable_add_layer()->set_clip("lean");
  layer.mutable_add_layer()->set_weight(0.6f);
  layer.mutable_add_layer()->mutable_mask()->set_blend_root("spine");
  auto layer_reply = call_ok(*client, layer);
  EXPECT_GT(layer_reply.add_layer().layer_id(), 0u);
  const int spine = asset.skeleton.find_joint("spine");
  tl.add(layer_reply.tick(), [&asset, lean, spine](anim::Animator& a) {
    anim::AdditiveLayerDesc d;
    d.clip = lean;
    d.weight = 0.6f;
    d.mask = *anim::JointMask::subtree(asset.skeleton, spine);
    ASSERT_TRUE(a.add_layer(d));
  });

  Request ik;
  auto* g = ik.mutable_set_ik_goal();
  g->set_character_id(id);
  g->set_root_joint("upper_arm_l");
  g->set_effector_joint("hand_l");
  g->set_solver(anim::v1::IK_SOLVER_TWO_BONE);
  g->mutable_target()->set_x(0.45f);
  g->mutable_target()->set_y(1.2f);
  g->mutable_target()->set_z(0.3f);
  g->set_weight(0.8f);
  g->mutable_pole()->set_z(-1.0f);
  auto ik_reply = call_ok(*client, ik);
  EXPECT_GT(ik_reply.set_ik_goal().goal_id(), 0u);
  tl.add(ik_reply.tick(), [](anim::Animator& a) {
    anim::IkGoalDesc d;
    d.root_joint = "upper_arm_l";
    d.effector_joint = "hand_l";
    d.solver = anim::IkSolver::kTwoBone;
    d.target = {0.45f, 1.2f, 0.3f};
    d.weight = 0.8f;
    d.has_pole = true;
    d.pole = {0.0f, 0.0f, -1.0f};
    ASSERT_TRUE(a.set_ik_goal(d));
  });

  Request speed;
  speed.mutable_set_speed()->set_character_id(id);
  speed.mutable_set_speed()->set_speed(1.5f);
  const uint64_t last_cmd = call_ok(*client, speed).tick();
  tl.add(last_cmd, [](anim::Animator& a) { ASSERT_TRUE(a.set_speed(1.5f)); });

  auto frames = collect_frames(*client, sub_id, last_cmd + 30);
  ASSERT_FALSE(frames.empty());
  EXPECT_GE(frames.rbegin()->first, last_cmd + 30);
  uint64_t prev = 0;
  for (const auto& [tick, f] : frames) {
    EXPECT_GT(tick, prev);
    prev = tick;
    EXPECT_EQ(f.characters_size(), 1);
  }
  expect_frames_match(asset, first_tick(*client), spawn_tick, tl, frames, id);
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

TEST(Palette, FoxFromSymlinkedAssetDirMatchesCore) {
  ANIMD_REQUIRE_SHARED();
  const std::string fox = shared_path("assets/Fox/glTF-Binary/Fox.glb");
  if (!std::filesystem::exists(fox)) GTEST_SKIP() << "skipped: " << fox << " not found";
  TempDir assets("animd-assets");
  std::filesystem::create_symlink(fox, assets.path() / "Fox.glb");
  DaemonProcess daemon({"--assets", assets.path().string()});
  ANIMD_START(daemon);
  auto client = connect_client(daemon);
  ASSERT_TRUE(client);

  auto loaded = anim::load_gltf(fox);
  ASSERT_TRUE(loaded) << loaded.error().message();
  const anim::Asset& asset = *loaded;
  ASSERT_GE(asset.clips.size(), 2u);
  const std::string clip_a = asset.clips[0].name, clip_b = asset.clips[1].name;

  auto list = client->list_assets();
  ASSERT_TRUE(list) << list.error().to_string();
  bool found = false;
  for (const auto& a : list->assets())
    if (a.name() == "Fox") {
      found = true;
      EXPECT_EQ(a.num_joints(), static_cast<uint32_t>(asset.skeleton.num_joints()));
      EXPECT_EQ(a.clips_size(), static_cast<int>(asset.clips.size()));
    }
  EXPECT_TRUE(found);

  Timeline tl;
  auto spawned = call_ok(*client, spawn_request("Fox", clip_a));
  const uint32_t id = spawned.spawn().character_id();
  tl.add(spawned.tick(), [&](anim::Animator& a) { ASSERT_TRUE(a.play(0)); });
  Request sub;
  sub.mutable_subscribe()->add_character_ids(id);
  const uint32_t sub_id = call_ok(*client, sub).subscribe().subscription_id();

  Request cf;
  cf.mutable_crossfade()->set_character_id(id);
  cf.mutable_crossfade()->set_clip(clip_b);
  cf.mutable_crossfade()->set_duration(0.3f);
  cf.mutable_crossfade()->set_sync_normalized_time(true);
  tl.add(call_ok(*client, cf).tick(), [](anim::Animator& a) {
    anim::CrossfadeOptions o;
    o.sync_normalized_time = true;
    ASSERT_TRUE(a.crossfade(1, 0.3f, o));
  });

  // A CCD goal on the last joint that has two ancestors.
  int eff = -1;
  for (int j = asset.skeleton.num_joints() - 1; j >= 0 && eff < 0; --j) {
    const int p = asset.skeleton.parents[j];
    if (p >= 0 && asset.skeleton.parents[p] >= 0) eff = j;
  }
  ASSERT_GE(eff, 0);
  const std::string eff_name = asset.skeleton.names[eff];
  const std::string root_name =
      asset.skeleton.names[asset.skeleton.parents[asset.skeleton.parents[eff]]];
  Request ik;
  auto* g = ik.mutable_set_ik_goal();
  g->set_character_id(id);
  g->set_root_joint(root_name);
  g->set_effector_joint(eff_name);
  g->set_solver(anim::v1::IK_SOLVER_CCD);
  g->mutable_target()->set_x(10.0f);
  g->mutable_target()->set_y(40.0f);
  g->mutable_target()->set_z(20.0f);
  const uint64_t last_cmd = call_ok(*client, ik).tick();
  tl.add(last_cmd, [=](anim::Animator& a) {
    anim::IkGoalDesc d;
    d.root_joint = root_name;
    d.effector_joint = eff_name;
    d.solver = anim::IkSolver::kCcd;
    d.target = {10.0f, 40.0f, 20.0f};
    ASSERT_TRUE(a.set_ik_goal(d));
  });

  auto frames = collect_frames(*client, sub_id, last_cmd + 30);
  expect_frames_match(asset, first_tick(*client), spawned.tick(), tl, frames, id);
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

TEST(Palette, FoxLoadedByPathMatchesListing) {
  ANIMD_REQUIRE_SHARED();
  const std::string fox = shared_path("assets/Fox/glTF-Binary/Fox.glb");
  if (!std::filesystem::exists(fox)) GTEST_SKIP() << "skipped: " << fox << " not found";
  // The asset root is the shared assets folder itself: load_asset by relative path.
  DaemonProcess daemon({"--assets", shared_path("assets/Fox")});
  ANIMD_START(daemon);
  auto client = connect_client(daemon);
  ASSERT_TRUE(client);
  anim::v1::LoadAssetRequest load;
  load.set_path("glTF-Binary/Fox.glb");
  load.set_name("fox2");
  auto reply = client->load_asset(load);
  ASSERT_TRUE(reply) << reply.error().to_string();
  EXPECT_EQ(reply->asset().name(), "fox2");
  EXPECT_GT(reply->asset().num_joints(), 0u);
  // The same name again: FAILED_PRECONDITION.
  auto again = client->load_asset(load);
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code, anim::v1::STATUS_FAILED_PRECONDITION) << again.error().to_string();
  auto sp = client->spawn("fox2", reply->asset().clips(0).name());
  EXPECT_TRUE(sp) << sp.error().to_string();
  // Mesh data for a render client.
  auto data = client->get_asset_data("fox2");
  ASSERT_TRUE(data) << data.error().to_string();
  EXPECT_EQ(data->skeleton().joint_names_size(), static_cast<int>(reply->asset().num_joints()));
  EXPECT_EQ(data->skeleton().inverse_bind_size(), 16 * data->skeleton().joint_names_size());
  EXPECT_EQ(data->mesh().positions().size(), 12u * data->mesh().num_vertices());
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

}  // namespace palette_roundtrip_test
}  // namespace animtest
