// Assets belong to the token that loaded them (LoadAssetRequest.shared, docs/security.md):
// another control token may not spawn from, change, extend, replace or unload them
// (PERMISSION_DENIED, nothing changed); shared uploads, the --assets folder and every asset of
// a daemon without tokens are open to every control client.
#include <string>

#include <gtest/gtest.h>

#include "hostile_gltf.h"
#include "integration_support.h"

namespace animtest {
namespace asset_ownership_test {

const std::string kTokenA = "tenant-a-token-0123456789";
const std::string kTokenB = "tenant-b-token-0123456789";

// A one-joint asset with one clip, "clip0".
std::string asset_with_a_clip() {
  return aliasing_clips_glb(1, 4);
}

anim::v1::Reply load(animclient::Client& c, const std::string& name, bool shared) {
  anim::v1::Request r;
  r.mutable_load_asset()->set_name(name);
  r.mutable_load_asset()->set_glb_data(asset_with_a_clip());
  r.mutable_load_asset()->set_shared(shared);
  return call(c, std::move(r));
}

anim::v1::Request spawn_request(const std::string& asset) {
  anim::v1::Request r;
  r.mutable_spawn()->set_asset(asset);
  return r;
}
anim::v1::Request clip_events_request(const std::string& asset) {
  anim::v1::Request r;
  auto* e = r.mutable_add_clip_events();
  e->set_asset(asset);
  e->set_clip("clip0");
  auto* ev = e->add_events();
  ev->set_name("step");
  ev->set_time(0.01f);
  return r;
}
anim::v1::Request hit_volumes_request(const std::string& asset) {
  anim::v1::Request r;
  r.mutable_set_hit_volumes()->set_asset(asset);
  r.mutable_set_hit_volumes()->set_reset(true);
  return r;
}
anim::v1::Request blend_space_request(const std::string& asset) {
  anim::v1::Request r;
  auto* d = r.mutable_define_blend_space();
  d->set_asset(asset);
  d->set_name("speed");
  d->add_axes("speed");
  for (float x : {0.0f, 1.0f}) {
    auto* s = d->add_samples();
    s->set_clip("clip0");
    s->set_x(x);
  }
  return r;
}
anim::v1::Request unload_request(const std::string& asset) {
  anim::v1::Request r;
  r.mutable_unload_asset()->set_asset(asset);
  return r;
}

void expect_denied(animclient::Client& c, anim::v1::Request r, const std::string& what) {
  const anim::v1::Reply reply = call(c, std::move(r));
  EXPECT_EQ(reply.status().code(), anim::v1::STATUS_PERMISSION_DENIED)
      << what << ": " << reply.status().message();
  EXPECT_NE(reply.status().message().find("belongs to another client"), std::string::npos)
      << what << ": " << reply.status().message();
}

TEST(AssetOwnership, AnotherTokenCannotUseChangeOrUnloadAnUpload) {
  DaemonProcess daemon({"--control-token", kTokenA, "--control-token", kTokenB});
  ANIMD_START(daemon);
  auto a = connect_client(daemon, kTokenA);
  auto b = connect_client(daemon, kTokenB);
  ASSERT_TRUE(a && b);
  ASSERT_TRUE(a->list_assets() && b->list_assets());
  ASSERT_EQ(load(*a, "mine", false).status().code(), anim::v1::STATUS_OK);

  expect_denied(*b, spawn_request("mine"), "spawn");
  expect_denied(*b, clip_events_request("mine"), "add_clip_events");
  expect_denied(*b, hit_volumes_request("mine"), "set_hit_volumes");
  expect_denied(*b, blend_space_request("mine"), "define_blend_space");
  expect_denied(*b, unload_request("mine"), "unload_asset");
  // Nor can B take the name over with its own file.
  EXPECT_EQ(load(*b, "mine", false).status().code(), anim::v1::STATUS_FAILED_PRECONDITION);

  // Nothing of that changed A's asset: its events are only A's, and A does all of it.
  auto events = call_ok(*a, clip_events_request("mine"));
  EXPECT_EQ(events.add_clip_events().events_size(), 1);
  call_ok(*a, hit_volumes_request("mine"));
  call_ok(*a, blend_space_request("mine"));
  const auto spawned = call_ok(*a, spawn_request("mine"));
  anim::v1::Request despawn;
  despawn.mutable_despawn()->set_character_id(spawned.spawn().character_id());
  call_ok(*a, despawn);
  call_ok(*a, unload_request("mine"));
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

TEST(AssetOwnership, AnotherTokenCannotAttachAClipToAnUpload) {
  DaemonProcess daemon({"--control-token", kTokenA, "--control-token", kTokenB});
  ANIMD_START(daemon);
  auto a = connect_client(daemon, kTokenA);
  auto b = connect_client(daemon, kTokenB);
  ASSERT_TRUE(a && b);
  ASSERT_TRUE(a->list_assets() && b->list_assets());
  ASSERT_EQ(load(*a, "mine", false).status().code(), anim::v1::STATUS_OK);
  anim::v1::Request r;
  auto* l = r.mutable_load_asset();
  l->set_attach_to("mine");
  l->set_clip_name("extra");
  l->set_bvh_data(
      "HIERARCHY\nROOT Root\n{\n OFFSET 0 0 0\n CHANNELS 3 Xrotation Yrotation Zrotation\n"
      " End Site\n {\n  OFFSET 0 1 0\n }\n}\nMOTION\nFrames: 2\nFrame Time: 0.033333\n"
      "0 0 0\n0 10 0\n");
  expect_denied(*b, r, "load_asset.attach_to");
  auto list = a->list_assets();
  ASSERT_TRUE(list);
  for (const auto& info : list->assets())
    if (info.name() == "mine") {
      EXPECT_EQ(info.clips_size(), 1) << "B's clip was attached";
    }
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

TEST(AssetOwnership, SharedUploadsAndDaemonsWithoutTokensAreOpen) {
  {
    DaemonProcess daemon({"--control-token", kTokenA, "--control-token", kTokenB});
    ANIMD_START(daemon);
    auto a = connect_client(daemon, kTokenA);
    auto b = connect_client(daemon, kTokenB);
    ASSERT_TRUE(a && b);
    ASSERT_TRUE(a->list_assets() && b->list_assets());
    ASSERT_EQ(load(*a, "ours", true).status().code(), anim::v1::STATUS_OK);
    call_ok(*b, spawn_request("ours"));
    call_ok(*b, clip_events_request("ours"));
    call_ok(*b, spawn_request("builtin"));  // the daemon's own asset is shared
    EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
  }
  {
    DaemonProcess daemon;
    ANIMD_START(daemon);
    auto first = connect_client(daemon);
    auto second = connect_client(daemon);
    ASSERT_TRUE(first && second);
    ASSERT_TRUE(first->list_assets() && second->list_assets());
    ASSERT_EQ(load(*first, "anyones", false).status().code(), anim::v1::STATUS_OK);
    call_ok(*second, spawn_request("anyones"));
    call_ok(*second, clip_events_request("anyones"));
    EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
  }
}

}  // namespace asset_ownership_test
}  // namespace animtest
