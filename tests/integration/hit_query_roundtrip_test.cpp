// raycast and overlap_sphere on a real daemon over loopback: a ray aimed at where the head
// was at tick T hits it after the character moved 30 m away (and the same ray at the newest
// tick does not); overlap_sphere likewise; set_hit_volumes / get_hit_volumes round trips; bad
// input gets a status naming the field and changes nothing; roles.
#include <atomic>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <glm/glm.hpp>

#include "integration_support.h"

namespace animtest {
namespace hit_query_roundtrip_test {

using anim::v1::Request;

glm::vec3 vec(const anim::v1::Vec3& v) {
  return {v.x(), v.y(), v.z()};
}
anim::v1::Vec3 proto(glm::vec3 v) {
  anim::v1::Vec3 out;
  out.set_x(v.x);
  out.set_y(v.y);
  out.set_z(v.z);
  return out;
}

Request raycast(glm::vec3 from, glm::vec3 dir, std::optional<uint64_t> tick, float max = 100.0f) {
  Request r;
  auto* q = r.mutable_raycast();
  *q->mutable_origin() = proto(from);
  *q->mutable_direction() = proto(dir);
  q->set_max_distance(max);
  if (tick) q->set_tick(*tick);
  return r;
}

Request overlap(glm::vec3 center, float radius, std::optional<uint64_t> tick) {
  Request r;
  auto* q = r.mutable_overlap_sphere();
  *q->mutable_center() = proto(center);
  q->set_radius(radius);
  if (tick) q->set_tick(*tick);
  return r;
}

// The newest published tick once it is past `after` (bounded wait).
uint64_t tick_after(animclient::Client& c, uint64_t after) {
  const auto deadline = std::chrono::steady_clock::now() + kWait;
  while (std::chrono::steady_clock::now() < deadline) {
    auto r = call(c, raycast({0, -100, 0}, {0, -1, 0}, std::nullopt, 1.0f));
    if (r.status().code() == anim::v1::STATUS_OK && r.raycast().tick() > after)
      return r.raycast().tick();
    std::this_thread::sleep_for(10ms);
  }
  ADD_FAILURE() << "no tick after " << after;
  return after;
}

// Where the centre of `joint`'s capsule is at `tick` (world), and its radius: the capsule from
// get_hit_volumes through the joint's world matrix from query_pose.
std::pair<glm::vec3, float> capsule_centre(animclient::Client& c, uint32_t id,
                                           const std::string& joint, uint64_t tick) {
  auto volumes = c.get_hit_volumes("builtin");
  EXPECT_TRUE(volumes) << volumes.error().to_string();
  anim::v1::QueryPoseRequest q;
  q.set_character_id(id);
  q.set_tick(tick);
  q.add_joint_names(joint);
  q.set_space(anim::v1::SPACE_WORLD);
  auto pose = c.query_pose(q);
  EXPECT_TRUE(pose) << pose.error().to_string();
  if (!volumes || !pose) return {};
  for (const auto& jc : volumes->joints()) {
    if (jc.name() != joint) continue;
    const glm::vec3 local = 0.5f * (vec(jc.capsule().a()) + vec(jc.capsule().b()));
    const auto& m = pose->joints(0).matrix();  // 3x4 row-major
    const glm::vec3 world(m[0] * local.x + m[1] * local.y + m[2] * local.z + m[3],
                          m[4] * local.x + m[5] * local.y + m[6] * local.z + m[7],
                          m[8] * local.x + m[9] * local.y + m[10] * local.z + m[11]);
    return {world, jc.capsule().radius()};
  }
  ADD_FAILURE() << joint << " has no capsule";
  return {};
}

TEST(HitQueries, ARayAtWhereTheHeadWasHitsItAfterTheCharacterMovedOn) {
  // A long history: the test's requests take a while under the sanitizers.
  DaemonProcess daemon({"--history-seconds", "20"});
  ANIMD_START(daemon);
  auto client = connect_client(daemon);
  ASSERT_TRUE(client);
  auto sp = client->spawn("builtin", "walk");
  ASSERT_TRUE(sp) << sp.error().to_string();
  const uint32_t id = sp->character_id();
  const uint64_t then = tick_after(*client, sp->tick());
  const auto [head, radius] = capsule_centre(*client, id, "head", then);
  ASSERT_GT(radius, 0.0f);

  anim::v1::SetRootTransformRequest move;
  move.set_character_id(id);
  move.mutable_root()->mutable_translation()->set_x(30.0f);
  ASSERT_TRUE(client->set_root(move));
  const uint64_t now = tick_after(*client, then + 5);

  auto hit = call_ok(*client, raycast(head - glm::vec3(0, 0, 5), {0, 0, 1}, then));
  ASSERT_TRUE(hit.has_raycast());
  const auto& r = hit.raycast();
  ASSERT_TRUE(r.hit());
  EXPECT_EQ(r.tick(), then);
  EXPECT_GE(hit.tick(), now);  // the reply names the newest tick it was answered at
  EXPECT_EQ(r.character_id(), id);
  EXPECT_EQ(r.joint_name(), "head");
  EXPECT_NEAR(r.distance(), 5.0f - radius, 1e-4f);
  EXPECT_NEAR(r.point().z(), head.z - radius, 1e-4f);
  EXPECT_NEAR(r.normal().z(), -1.0f, 1e-4f);

  auto miss = call_ok(*client, raycast(head - glm::vec3(0, 0, 5), {0, 0, 1}, std::nullopt));
  EXPECT_FALSE(miss.raycast().hit());
  EXPECT_GT(miss.raycast().tick(), then);

  auto past = call_ok(*client, overlap(head, 0.01f, then));
  ASSERT_EQ(past.overlap_sphere().characters_size(), 1);
  const auto& c = past.overlap_sphere().characters(0);
  EXPECT_EQ(c.character_id(), id);
  bool head_listed = false;
  for (const auto& j : c.joints()) head_listed = head_listed || j.name() == "head";
  EXPECT_TRUE(head_listed);
  EXPECT_EQ(call_ok(*client, overlap(head, 0.01f, std::nullopt)).overlap_sphere().characters_size(),
            0);
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

TEST(HitQueries, BadInputGetsAClearStatus) {
  DaemonProcess daemon;
  ANIMD_START(daemon);
  auto client = connect_client(daemon);
  ASSERT_TRUE(client);
  ASSERT_TRUE(client->spawn("builtin", "walk"));
  const uint64_t newest = tick_after(*client, 0);
  struct Case {
    Request request;
    anim::v1::StatusCode code;
    std::string message;  // a part of it
  };
  std::vector<Case> cases;
  cases.push_back({raycast({0, 1, 0}, {0, 0, 1}, newest + 100000),
                   anim::v1::STATUS_INVALID_ARGUMENT, "is in the future; available ticks"});
  cases.push_back({raycast({0, 1, 0}, {0, 0, 1}, 0), anim::v1::STATUS_NOT_FOUND,
                   "raycast.tick 0 is not in the pose history; available ticks"});
  cases.push_back({raycast({std::nanf(""), 1, 0}, {0, 0, 1}, std::nullopt),
                   anim::v1::STATUS_INVALID_ARGUMENT, "raycast.origin.x is NaN"});
  cases.push_back({raycast({0, 1, 0}, {0, 0, 0}, std::nullopt), anim::v1::STATUS_INVALID_ARGUMENT,
                   "raycast.direction is zero"});
  cases.push_back({raycast({0, 1, 0}, {0, 0, 1}, std::nullopt, -2.0f),
                   anim::v1::STATUS_INVALID_ARGUMENT, "raycast.max_distance must be > 0"});
  cases.push_back({overlap({0, 1, 0}, -1.0f, std::nullopt), anim::v1::STATUS_INVALID_ARGUMENT,
                   "overlap_sphere.radius is negative"});
  cases.push_back({overlap({0, 1, 0}, 1.0f, 0), anim::v1::STATUS_NOT_FOUND,
                   "overlap_sphere.tick 0 is not in the pose history"});
  Request bad_joint;
  auto* set = bad_joint.mutable_set_hit_volumes();
  set->set_asset("builtin");
  set->add_joints()->set_joint_name("head");
  set->mutable_joints(0)->mutable_capsule()->set_radius(0.5f);
  set->add_joints()->set_joint_name("tail");
  cases.push_back({bad_joint, anim::v1::STATUS_NOT_FOUND,
                   "set_hit_volumes.joints[1].joint_name: unknown joint 'tail'"});
  Request negative = bad_joint;
  negative.mutable_set_hit_volumes()->mutable_joints(1)->set_joint_name("neck");
  negative.mutable_set_hit_volumes()->mutable_joints(1)->mutable_capsule()->set_radius(-1.0f);
  cases.push_back({negative, anim::v1::STATUS_INVALID_ARGUMENT,
                   "set_hit_volumes.joints[1].capsule.radius is negative"});
  Request nan_end = bad_joint;
  nan_end.mutable_set_hit_volumes()->mutable_joints(1)->set_joint_name("neck");
  nan_end.mutable_set_hit_volumes()->mutable_joints(1)->mutable_capsule()->mutable_a()->set_z(
      std::nanf(""));
  cases.push_back(
      {nan_end, anim::v1::STATUS_INVALID_ARGUMENT, "set_hit_volumes.joints[1].capsule.a.z is NaN"});
  Request by_index = bad_joint;
  by_index.mutable_set_hit_volumes()->mutable_joints(1)->set_joint_index(99);
  cases.push_back({by_index, anim::v1::STATUS_NOT_FOUND,
                   "set_hit_volumes.joints[1].joint_index: joint index 99 out of range"});

  auto before = client->get_hit_volumes("builtin");
  ASSERT_TRUE(before) << before.error().to_string();
  EXPECT_TRUE(before->fitted());
  for (Case& c : cases) {
    auto reply = call(*client, c.request);
    EXPECT_EQ(reply.status().code(), c.code) << reply.status().message();
    EXPECT_NE(reply.status().message().find(c.message), std::string::npos)
        << reply.status().message();
    EXPECT_EQ(reply.result_case(), anim::v1::Reply::RESULT_NOT_SET);
  }
  // Nothing changed: the first (valid) joint of the refused requests was not applied.
  auto after = client->get_hit_volumes("builtin");
  ASSERT_TRUE(after);
  EXPECT_TRUE(after->fitted());
  EXPECT_EQ(after->SerializeAsString(), before->SerializeAsString());
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

TEST(HitQueries, SetHitVolumesRoundTripAndRoles) {
  const std::string control_token = "control-secret-0123456789";
  const std::string observe_token = "observe-secret-0123456789";
  DaemonProcess daemon({"--control-token", control_token, "--observe-token", observe_token});
  ANIMD_START(daemon);
  auto control = connect_client(daemon, control_token);
  auto observe = connect_client(daemon, observe_token);
  ASSERT_TRUE(control && observe);

  anim::v1::SetHitVolumesRequest set;
  set.set_asset("builtin");
  auto* head = set.add_joints();
  head->set_joint_name("head");
  *head->mutable_capsule()->mutable_a() = proto({0, 0.05f, 0});
  *head->mutable_capsule()->mutable_b() = proto({0, 0.2f, 0});
  head->mutable_capsule()->set_radius(0.15f);
  auto* hips = set.add_joints();
  hips->set_joint_index(1);  // hips: no volume any more
  auto denied = observe->set_hit_volumes(set);
  ASSERT_FALSE(denied);
  EXPECT_EQ(denied.error().code, anim::v1::STATUS_PERMISSION_DENIED);
  ASSERT_TRUE(control->set_hit_volumes(set));

  auto shown = observe->get_hit_volumes("builtin");  // observers may read them
  ASSERT_TRUE(shown) << shown.error().to_string();
  EXPECT_FALSE(shown->fitted());
  bool saw_head = false, saw_hips = false;
  for (const auto& jc : shown->joints()) {
    EXPECT_TRUE(jc.has_joint_index());
    if (jc.name() == "head") {
      saw_head = true;
      EXPECT_EQ(jc.joint_index(), 5u);
      EXPECT_FLOAT_EQ(jc.capsule().b().y(), 0.2f);
      EXPECT_FLOAT_EQ(jc.capsule().radius(), 0.15f);
    }
    saw_hips = saw_hips || jc.name() == "hips";
  }
  EXPECT_TRUE(saw_head);
  EXPECT_FALSE(saw_hips);

  // Observers may query.
  auto sp = control->spawn("builtin", "idle");
  ASSERT_TRUE(sp);
  tick_after(*control, sp->tick());
  anim::v1::RaycastRequest down;
  *down.mutable_origin() = proto({0, 5, 0});
  *down.mutable_direction() = proto({0, -1, 0});
  down.set_max_distance(10.0f);
  auto hit = observe->raycast(down);
  ASSERT_TRUE(hit) << hit.error().to_string();
  ASSERT_TRUE(hit->hit());
  EXPECT_EQ(hit->joint_name(), "head");  // straight down onto the top of the head
  anim::v1::OverlapSphereRequest around;
  *around.mutable_center() = proto({0, 1, 0});
  around.set_radius(0.5f);
  auto overlapped = observe->overlap_sphere(around);
  ASSERT_TRUE(overlapped) << overlapped.error().to_string();
  EXPECT_EQ(overlapped->characters_size(), 1);

  // Back to the fitted capsules.
  anim::v1::SetHitVolumesRequest reset;
  reset.set_asset("builtin");
  reset.set_reset(true);
  ASSERT_TRUE(control->set_hit_volumes(reset));
  auto fitted = control->get_hit_volumes("builtin");
  ASSERT_TRUE(fitted);
  EXPECT_TRUE(fitted->fitted());
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

// Several connections cast rays and spheres while the tick runs, characters move and the hit
// volumes change (the tsan preset runs this label: placements written by the tick's workers,
// the volumes table published by the tick thread, both read by the network threads).
TEST(HitQueries, ConcurrentQueriesWhileCharactersMoveAndVolumesChange) {
  DaemonProcess daemon;
  ANIMD_START(daemon);
  auto control = connect_client(daemon);
  ASSERT_TRUE(control);
  std::vector<uint32_t> ids;
  for (int i = 0; i < 6; ++i) {
    anim::v1::SpawnRequest spawn;
    spawn.set_asset("builtin");
    spawn.set_clip(i % 2 ? "walk" : "run");
    spawn.mutable_root()->mutable_translation()->set_x(1.5f * static_cast<float>(i));
    auto sp = control->spawn(spawn);
    ASSERT_TRUE(sp) << sp.error().to_string();
    ids.push_back(sp->character_id());
  }
  tick_after(*control, 0);
  std::atomic<int> hits{0}, failures{0};
  std::vector<std::thread> queriers;
  for (int t = 0; t < 3; ++t)
    queriers.emplace_back([&, t] {
      auto c = connect_client(daemon);
      if (!c) {
        ++failures;
        return;
      }
      for (int k = 0; k < 60; ++k) {
        const float x = 1.5f * static_cast<float>((k + t) % 6);
        auto r = call(*c, k % 3 ? raycast({x, 1.2f, -5}, {0, 0, 1}, std::nullopt)
                                : overlap({x, 1.0f, 0}, 0.5f, std::nullopt));
        if (r.status().code() != anim::v1::STATUS_OK) ++failures;
        if (r.has_raycast() && r.raycast().hit()) ++hits;
      }
    });
  for (int k = 0; k < 30; ++k) {
    anim::v1::SetRootTransformRequest move;
    move.set_character_id(ids[static_cast<size_t>(k) % ids.size()]);
    move.mutable_root()->mutable_translation()->set_x(1.5f * static_cast<float>(k % 6));
    move.mutable_root()->mutable_translation()->set_z(0.01f * static_cast<float>(k));
    EXPECT_TRUE(control->set_root(move));
    anim::v1::SetHitVolumesRequest set;
    set.set_asset("builtin");
    set.set_reset(k % 2 == 0);
    auto* head = set.add_joints();
    head->set_joint_name("head");
    head->mutable_capsule()->set_radius(0.1f + 0.01f * static_cast<float>(k));
    EXPECT_TRUE(control->set_hit_volumes(set));
  }
  for (auto& q : queriers) q.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_GT(hits.load(), 0);
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

}  // namespace hit_query_roundtrip_test
}  // namespace animtest
