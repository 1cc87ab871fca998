// Root motion through the real daemon: an uploaded glTF whose root joint travels 2 m/s; with
// set_root_motion on, every stream frame's root (float and compact) and query_pose's root at
// past ticks carry the travel tick by tick, a set_root wins its tick, and bad requests are
// refused with their status and change nothing.
#include <gtest/gtest.h>

#include "integration_support.h"
#include "travel_gltf.h"

namespace animtest {
namespace root_motion_roundtrip_test {

using anim::v1::Request;

Request root_motion(uint32_t id, anim::v1::RootMotionMode mode, const std::string& joint = "") {
  Request r;
  auto* m = r.mutable_set_root_motion();
  m->set_character_id(id);
  m->set_mode(mode);
  m->set_joint(joint);
  return r;
}

TEST(RootMotion, TheRootTravelsInEveryFrameAndInThePoseHistory) {
  DaemonProcess daemon;
  ANIMD_START(daemon);
  auto client = connect_client(daemon);
  auto compact_client = connect_client(daemon);
  ASSERT_TRUE(client && compact_client);
  anim::v1::LoadAssetRequest load;
  load.set_name("strider");
  load.set_glb_data(travel_gltf().glb_bytes());
  auto loaded = client->load_asset(load);
  ASSERT_TRUE(loaded) << loaded.error().to_string();

  anim::v1::SpawnRequest spawn;
  spawn.set_asset("strider");
  spawn.set_clip("Stride");
  spawn.set_shared(true);
  spawn.mutable_root()->mutable_translation()->set_x(1.0f);
  auto sp = client->spawn(spawn);
  ASSERT_TRUE(sp) << sp.error().to_string();
  const uint32_t id = sp->character_id();

  // Refused, naming the problem; the character keeps standing on its root (checked below:
  // the travel starts at the tick root motion was switched on).
  auto bad_joint = call(*client, root_motion(id, anim::v1::ROOT_MOTION_EXTRACT, "Tail"));
  EXPECT_EQ(bad_joint.status().code(), anim::v1::STATUS_NOT_FOUND);
  EXPECT_EQ(bad_joint.status().message(),
            "set_root_motion.joint: unknown joint 'Tail' in asset 'strider'");
  auto bad_mode = call(*client, root_motion(id, static_cast<anim::v1::RootMotionMode>(5)));
  EXPECT_EQ(bad_mode.status().code(), anim::v1::STATUS_INVALID_ARGUMENT);
  EXPECT_NE(bad_mode.status().message().find("set_root_motion.mode"), std::string::npos);
  auto bad_id = call(*client, root_motion(id + 100, anim::v1::ROOT_MOTION_EXTRACT));
  EXPECT_EQ(bad_id.status().code(), anim::v1::STATUS_NOT_FOUND);

  anim::v1::SetRootMotionRequest on;
  on.set_character_id(id);
  on.set_mode(anim::v1::ROOT_MOTION_EXTRACT);
  ASSERT_TRUE(client->set_root_motion(on));
  const uint64_t on_tick = current_tick(*client);  // it is in effect from here on

  anim::v1::SubscribeRequest sub;
  sub.add_character_ids(id);
  auto s = client->subscribe(sub);
  ASSERT_TRUE(s) << s.error().to_string();
  sub.set_encoding(anim::v1::ENCODING_COMPACT);
  auto cs = compact_client->subscribe(sub);
  ASSERT_TRUE(cs) << cs.error().to_string();
  const uint64_t last = on_tick + 90;  // past a loop wrap (60 ticks a cycle)
  auto frames = collect_frames(*client, s->subscription_id(), last);
  auto compact = collect_frames(*compact_client, cs->subscription_id(), last);
  ASSERT_GE(frames.size(), 60u);

  // 2 m/s along +z at dt = 1/60: each frame's root is 2 dt further than the one before.
  const float dt = static_cast<float>(1.0 / 60.0);
  const anim::v1::StreamFrame* prev = nullptr;
  int compared = 0;
  for (const auto& [tick, f] : frames) {
    ASSERT_EQ(f.characters_size(), 1);
    const auto& root = f.characters(0).root();
    EXPECT_FLOAT_EQ(root.translation().x(), 1.0f);
    if (prev && prev->tick() + 1 == tick) {
      EXPECT_NEAR(root.translation().z() - prev->characters(0).root().translation().z(), 2 * dt,
                  1e-4)
          << "tick " << tick;
      ++compared;
    }
    // In place: the root joint's skin matrix does not travel (the root does).
    EXPECT_NEAR(f.characters(0).palette(11), 0.0f, 1e-5) << "tick " << tick;
    if (auto c = compact.find(tick); c != compact.end()) {
      const auto& croot = c->second.characters(0).root();
      EXPECT_NEAR(croot.translation().z(), root.translation().z(), 1e-4) << "tick " << tick;
      EXPECT_NEAR(croot.translation().x(), root.translation().x(), 1e-4) << "tick " << tick;
    }
    prev = &f;
  }
  EXPECT_GE(compared, 50);
  EXPECT_GE(compact.size(), 50u);

  // The history has each tick's root: a past tick's answer is that tick's frame.
  auto it = frames.rbegin();
  std::advance(it, 10);
  Request q;
  q.mutable_query_pose()->set_character_id(id);
  q.mutable_query_pose()->set_tick(it->first);
  q.mutable_query_pose()->add_joint_names("Root");
  q.mutable_query_pose()->set_space(anim::v1::SPACE_WORLD);
  const auto pose = call_ok(*client, q).query_pose();
  EXPECT_EQ(pose.root().translation().z(), it->second.characters(0).root().translation().z());
  ASSERT_EQ(pose.joints_size(), 1);
  EXPECT_NEAR(pose.joints(0).position().z(), pose.root().translation().z(), 1e-5);
  EXPECT_NEAR(pose.joints(0).position().x(), 1.0f, 1e-5);

  // set_root wins its tick; the next one moves on from it.
  Request place;
  place.mutable_set_root()->set_character_id(id);
  place.mutable_set_root()->mutable_root()->mutable_translation()->set_z(-5.0f);
  const uint64_t placed = call_ok(*client, place).tick();
  auto after = collect_frames(*client, s->subscription_id(), placed + 1);
  ASSERT_TRUE(after.count(placed) && after.count(placed + 1));
  EXPECT_EQ(after[placed].characters(0).root().translation().z(), -5.0f);
  EXPECT_NEAR(after[placed + 1].characters(0).root().translation().z(), -5.0f + 2 * dt, 1e-5);
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

}  // namespace root_motion_roundtrip_test
}  // namespace animtest
