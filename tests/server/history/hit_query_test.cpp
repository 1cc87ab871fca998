// Hit queries at past ticks (hit_query.h) driven through the World as the tick thread does:
// rays and spheres aimed where a joint was at tick T find it there after the character moved
// on; a ray that misses at T hits at T - 10; bad requests are refused with the field named and
// change nothing; set_hit_volumes / get_hit_volumes; the pose budget; placements.
#include <cmath>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "anim/loaders/builtin_character.h"
#include "history/hit_query.h"
#include "history/pose_query.h"
#include "protocol/request_convert_hits.h"
#include "session/command_table.h"
#include "world/world.h"

namespace animd {
namespace hit_query_test {

constexpr float kDt = 1.0f / 60.0f;

class HitQueryTest : public ::testing::Test {
 protected:
  HitQueryTest() {
    config_.tick_rate = 60.0;
    config_.history_seconds = 0.5;  // 30 ticks
    config_.max_hit_query_poses = 64;
    make_world();
  }
  void make_world() {
    world_ = std::make_unique<World>(config_, metrics_, catalog_, pool_);
    EXPECT_TRUE(world_->add_asset(std::make_shared<anim::Asset>(builtin_)));
  }
  anim::Expected<WorldResult> run(const WorldRequest& r) {
    return world_->execute(r, Caller{1, 0}, tick_ + 1, double(tick_ + 1) * kDt);
  }
  uint32_t spawn(const std::string& clip, glm::vec3 at) {
    anim::Transform root;
    root.translation = at;
    auto s = run(SpawnCharacter{"builtin", clip, root, true});
    EXPECT_TRUE(s) << s.error().message();
    return s ? std::get<Spawned>(*s).character_id : 0;
  }
  void move(uint32_t id, glm::vec3 to) {
    anim::Transform root;
    root.translation = to;
    ASSERT_TRUE(run(SetRootTransform{id, root}));
  }
  void tick() {
    ++tick_;
    world_->update(kDt, tick_, double(tick_) * kDt, false);
  }
  anim::Expected<RaycastHit> ray(glm::vec3 from, glm::vec3 dir, std::optional<uint64_t> at,
                                 float max = 100.0f, std::vector<uint32_t> ignore = {}) {
    Raycast r;
    r.origin = from;
    r.direction = glm::normalize(dir);
    r.max_distance = max;
    r.tick = at;
    r.ignore = std::move(ignore);
    return raycast_history(*world_->history(), *world_->hit_volumes(), r,
                           config_.max_hit_query_poses);
  }
  anim::Expected<SphereOverlap> sphere(glm::vec3 center, float radius, std::optional<uint64_t> at,
                                       std::vector<uint32_t> ignore = {}) {
    OverlapSphere s;
    s.center = center;
    s.radius = radius;
    s.tick = at;
    s.ignore = std::move(ignore);
    return overlap_history(*world_->history(), *world_->hit_volumes(), s,
                           config_.max_hit_query_poses);
  }
  // Where the centre of joint `name`'s capsule was at `at` (world space), and its radius
  // there: from query_pose's world matrix and the asset's fitted capsule.
  std::pair<glm::vec3, float> capsule_centre(uint32_t id, const std::string& name, uint64_t at) {
    QueryPose q;
    q.character = id;
    q.tick = at;
    q.joint_names = {name};
    q.space = PoseSpace::kWorld;
    auto answer = query_history(*world_->history(), q);
    EXPECT_TRUE(answer && *answer);
    const glm::mat4 m = (**answer).joints[0].matrix.to_mat4();
    const anim::HitCapsule& c =
        builtin_.hit_volumes.capsules[static_cast<size_t>(builtin_.skeleton.find_joint(name))];
    return {glm::vec3(m * glm::vec4(0.5f * (c.a + c.b), 1.0f)), c.radius};
  }

  const anim::Asset builtin_ = anim::make_builtin_character();
  Config config_;
  Metrics metrics_;
  AssetCatalog catalog_;
  WorkerPool pool_{2};
  std::unique_ptr<World> world_;
  uint64_t tick_ = 0;
};

TEST_F(HitQueryTest, RayAtAJointsPastPlaceHitsItAfterTheCharacterMovedOn) {
  const uint32_t id = spawn("walk", {0, 0, 0});
  for (int i = 0; i < 10; ++i) tick();
  const uint64_t then = tick_;
  // The head's capsule is a sphere (a == b): a ray through its centre enters one radius early.
  const auto [head, radius] = capsule_centre(id, "head", then);
  move(id, {20, 0, 0});
  for (int i = 0; i < 10; ++i) tick();

  auto hit = ray(head - glm::vec3(0, 0, 5), {0, 0, 1}, then);
  ASSERT_TRUE(hit) << hit.error().message();
  ASSERT_TRUE(hit->hit);
  EXPECT_EQ(hit->tick, then);
  EXPECT_EQ(hit->character_id, id);
  EXPECT_EQ(builtin_.skeleton.names[hit->joint], "head");
  EXPECT_NEAR(hit->distance, 5.0f - radius, 1e-4f);
  EXPECT_NEAR(hit->point.z, head.z - radius, 1e-4f);
  EXPECT_NEAR(hit->normal.z, -1.0f, 1e-4f);
  // Now the character is 20 m away: the same ray at the newest tick finds nothing ...
  auto now = ray(head - glm::vec3(0, 0, 5), {0, 0, 1}, std::nullopt);
  ASSERT_TRUE(now);
  EXPECT_FALSE(now->hit);
  EXPECT_EQ(now->tick, tick_);
  // ... and the same ray moved with it does.
  auto there = ray(head + glm::vec3(20, 0, -5), {0, 0, 1}, std::nullopt);
  ASSERT_TRUE(there);
  EXPECT_TRUE(there->hit);
}

TEST_F(HitQueryTest, MissesAtTickTButHitsAtTMinus10) {
  const uint32_t id = spawn("idle", {0, 0, 0});
  // 0.1 m per tick along +x: at T the character is 1 m from where it was at T - 10.
  for (int i = 1; i <= 20; ++i) {
    move(id, {0.1f * static_cast<float>(i), 0, 0});
    tick();
  }
  const uint64_t t = tick_;
  const auto [head, radius] = capsule_centre(id, "head", t - 10);
  // Straight down onto where the head was at T - 10.
  const glm::vec3 above = head + glm::vec3(0, 3, 0);
  auto at_t = ray(above, {0, -1, 0}, t);
  ASSERT_TRUE(at_t);
  EXPECT_FALSE(at_t->hit);
  auto before = ray(above, {0, -1, 0}, t - 10);
  ASSERT_TRUE(before);
  ASSERT_TRUE(before->hit);
  EXPECT_EQ(before->character_id, id);
  EXPECT_EQ(builtin_.skeleton.names[before->joint], "head");
  EXPECT_EQ(before->tick, t - 10);
  EXPECT_NEAR(before->distance, 3.0f - radius, 1e-4f);
  // The shooter's own character may be left out.
  auto ignored = ray(above, {0, -1, 0}, t - 10, 100.0f, {id});
  ASSERT_TRUE(ignored);
  EXPECT_FALSE(ignored->hit);
  // Too short to reach the head.
  auto short_ray = ray(above, {0, -1, 0}, t - 10, 3.0f - radius - 0.01f);
  ASSERT_TRUE(short_ray);
  EXPECT_FALSE(short_ray->hit);
}

TEST_F(HitQueryTest, NearestCharacterAlongTheRayWins) {
  const uint32_t near_id = spawn("", {0, 0, 5});
  const uint32_t far_id = spawn("", {0, 0, 10});
  tick();
  // Chest height, along +z from the origin side: the near character first.
  auto hit = ray({0, 1.3f, -5}, {0, 0, 1}, std::nullopt);
  ASSERT_TRUE(hit && hit->hit);
  EXPECT_EQ(hit->character_id, near_id);
  auto past_near = ray({0, 1.3f, -5}, {0, 0, 1}, std::nullopt, 100.0f, {near_id});
  ASSERT_TRUE(past_near && past_near->hit);
  EXPECT_EQ(past_near->character_id, far_id);
  EXPECT_GT(past_near->distance, hit->distance + 4.0f);
}

TEST_F(HitQueryTest, OverlapFindsTheJointsWhereTheyWere) {
  const uint32_t id = spawn("walk", {0, 0, 0});
  const uint32_t other = spawn("walk", {5, 0, 0});
  for (int i = 0; i < 5; ++i) tick();
  const uint64_t then = tick_;
  const auto [head, radius] = capsule_centre(id, "head", then);
  move(id, {-20, 0, 0});
  for (int i = 0; i < 5; ++i) tick();

  auto past = sphere(head, 0.01f, then);
  ASSERT_TRUE(past) << past.error().message();
  EXPECT_EQ(past->tick, then);
  ASSERT_EQ(past->characters.size(), 1u);
  EXPECT_EQ(past->characters[0].character_id, id);
  const auto& joints = past->characters[0].joints;
  const uint32_t head_index = static_cast<uint32_t>(builtin_.skeleton.find_joint("head"));
  EXPECT_NE(std::find(joints.begin(), joints.end(), head_index), joints.end());
  EXPECT_TRUE(std::is_sorted(joints.begin(), joints.end()));

  auto now = sphere(head, 0.01f, std::nullopt);
  ASSERT_TRUE(now);
  EXPECT_TRUE(now->characters.empty());
  // A sphere holding both characters at `then` lists both, by id; ignoring one leaves one.
  auto both = sphere({2.5f, 1.0f, 0}, 4.0f, then);
  ASSERT_TRUE(both);
  ASSERT_EQ(both->characters.size(), 2u);
  EXPECT_EQ(both->characters[0].character_id, id);
  EXPECT_EQ(both->characters[1].character_id, other);
  auto one = sphere({2.5f, 1.0f, 0}, 4.0f, then, {id});
  ASSERT_TRUE(one);
  ASSERT_EQ(one->characters.size(), 1u);
  EXPECT_EQ(one->characters[0].character_id, other);
}

TEST_F(HitQueryTest, TicksOutsideTheWindowAreRefusedWithTheRange) {
  spawn("walk", {0, 0, 0});
  auto empty = ray({0, 1, -5}, {0, 0, 1}, std::nullopt);
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.error().code(), anim::StatusCode::kNotFound);
  EXPECT_EQ(empty.error().message(),
            "raycast: no tick has been published yet (the pose history is empty)");
  for (int i = 0; i < 40; ++i) tick();  // window: 11..40
  auto future = ray({0, 1, -5}, {0, 0, 1}, 41);
  ASSERT_FALSE(future);
  EXPECT_EQ(future.error().code(), anim::StatusCode::kInvalidArgument);
  EXPECT_EQ(future.error().message(), "raycast.tick 41 is in the future; available ticks 11..40");
  auto old = sphere({0, 1, 0}, 1.0f, 10);
  ASSERT_FALSE(old);
  EXPECT_EQ(old.error().code(), anim::StatusCode::kNotFound);
  EXPECT_EQ(old.error().message(),
            "overlap_sphere.tick 10 is not in the pose history; available ticks 11..40");
  EXPECT_TRUE(ray({0, 1, -5}, {0, 0, 1}, 11));
}

TEST_F(HitQueryTest, TooManyCharactersToPoseIsResourceExhausted) {
  config_.max_hit_query_poses = 2;
  make_world();
  // Three characters 10 m apart along +z.
  for (int i = 0; i < 3; ++i) spawn("", {0, 0, 10.0f * static_cast<float>(i)});
  tick();
  // The sphere reaches all three bounds: 3 poses needed, 2 allowed.
  auto all = sphere({0, 1, 10}, 12.0f, std::nullopt);
  ASSERT_FALSE(all);
  EXPECT_EQ(all.error().code(), anim::StatusCode::kResourceExhausted);
  EXPECT_EQ(all.error().message(),
            "overlap_sphere: 3 characters would have to be posed, above --max-hit-query-poses "
            "(2); use a smaller radius");
  // A ray along them hitting the first character stops there: the next bound starts farther
  // than that hit.
  auto first = ray({0, 1.3f, -5}, {0, 0, 1}, std::nullopt);
  ASSERT_TRUE(first) << first.error().message();
  EXPECT_TRUE(first->hit);
  Raycast along{{0, 1.3f, -5}, {0, 0, 1}, 100.0f, std::nullopt, {}};
  HitQueryCost cost;
  ASSERT_TRUE(
      raycast_history(*world_->history(), *world_->hit_volumes(), along, 2, nullptr, &cost));
  EXPECT_EQ(cost.candidates, 3u);
  EXPECT_EQ(cost.posed, 1u);
  // One through every bound that hits no capsule has to pose all three: above their heads,
  // inside the spheres around their joints (grown by the capsules' reach).
  const HitPlacement p = world_->history()->newest()->placements[0];
  const float top = p.center.y + 0.9f * (p.radius + builtin_.hit_volumes.capsule_reach);
  ASSERT_GT(top, 2.0f);  // the head's top is at 1.8
  auto miss = ray({p.center.x, top, -5}, {0, 0, 1}, std::nullopt);
  ASSERT_FALSE(miss);
  EXPECT_EQ(miss.error().code(), anim::StatusCode::kResourceExhausted);
}

TEST_F(HitQueryTest, SetHitVolumesReplacesCapsulesForPastTicksToo) {
  const uint32_t id = spawn("", {0, 0, 0});
  for (int i = 0; i < 3; ++i) tick();
  const uint64_t then = tick_;
  const auto [head, radius] = capsule_centre(id, "head", then);
  // 0.5 m beside the head: clear of the fitted capsule (radius ~0.12).
  const glm::vec3 beside = head + glm::vec3(0.5f, 0, -5);
  auto miss = ray(beside, {0, 0, 1}, then);
  ASSERT_TRUE(miss);
  EXPECT_FALSE(miss->hit);

  SetHitVolumes big;
  big.asset = "builtin";
  big.joints.push_back({"head", 0, {{0, 0.1f, 0}, {0, 0.1f, 0}, 1.0f}});
  ASSERT_TRUE(run(big));
  auto hit = ray(beside, {0, 0, 1}, then);  // the capsules in force, at a past tick
  ASSERT_TRUE(hit);
  ASSERT_TRUE(hit->hit);
  EXPECT_EQ(builtin_.skeleton.names[hit->joint], "head");
  auto shown = run(GetHitVolumes{"builtin"});
  ASSERT_TRUE(shown);
  const auto& answer = std::get<HitVolumesAnswer>(*shown);
  // An empty request changes nothing (the same volumes object stays in force).
  ASSERT_TRUE(run(SetHitVolumes{"builtin", false, {}}));
  EXPECT_EQ(std::get<HitVolumesAnswer>(*run(GetHitVolumes{"builtin"})).volumes, answer.volumes);
  EXPECT_FALSE(answer.fitted);
  const size_t head_index = static_cast<size_t>(builtin_.skeleton.find_joint("head"));
  EXPECT_EQ(answer.volumes->capsules[head_index].radius, 1.0f);
  EXPECT_GT(answer.volumes->capsule_reach, builtin_.hit_volumes.capsule_reach);

  // Bad edits change nothing: unknown joint, index out of range, a joint twice, unknown asset.
  auto unchanged = [&] {
    auto now = run(GetHitVolumes{"builtin"});
    return now && std::get<HitVolumesAnswer>(*now).volumes == answer.volumes;
  };
  SetHitVolumes bad;
  bad.asset = "builtin";
  bad.joints = {{"neck", 0, {{0, 0, 0}, {0, 0, 0}, 0.1f}}, {"nose", 0, {}}};
  auto e1 = run(bad);
  ASSERT_FALSE(e1);
  EXPECT_EQ(e1.error().message(),
            "set_hit_volumes.joints[1].joint_name: unknown joint 'nose' in asset 'builtin'");
  EXPECT_TRUE(unchanged());
  bad.joints = {{"", 22, {}}};
  auto e2 = run(bad);
  ASSERT_FALSE(e2);
  EXPECT_EQ(e2.error().code(), anim::StatusCode::kNotFound);
  EXPECT_EQ(e2.error().message(),
            "set_hit_volumes.joints[0].joint_index: joint index 22 out of range (asset "
            "'builtin' has 22 joints)");
  bad.joints = {{"head", 0, {}}, {"", static_cast<uint32_t>(head_index), {}}};
  auto e3 = run(bad);
  ASSERT_FALSE(e3);
  EXPECT_EQ(e3.error().code(), anim::StatusCode::kInvalidArgument);
  EXPECT_EQ(e3.error().message(),
            "set_hit_volumes.joints[1]: joint 'head' is already given by joints[0]");
  bad.asset = "fox";
  auto e4 = run(bad);
  ASSERT_FALSE(e4);
  EXPECT_EQ(e4.error().message(), "set_hit_volumes.asset: unknown asset 'fox'");
  EXPECT_TRUE(unchanged());

  // Removing the head's volume (radius 0, by index): the ray through the head centre passes.
  SetHitVolumes none;
  none.asset = "builtin";
  none.joints = {{"", static_cast<uint32_t>(head_index), {}}};
  ASSERT_TRUE(run(none));
  auto through = ray(head + glm::vec3(0, 0.1f, -5), {0, 0, 1}, then);
  ASSERT_TRUE(through);
  EXPECT_FALSE(through->hit && builtin_.skeleton.names[through->joint] == "head");
  // Reset: the fitted capsules again.
  SetHitVolumes reset;
  reset.asset = "builtin";
  reset.reset = true;
  ASSERT_TRUE(run(reset));
  auto fitted = run(GetHitVolumes{"builtin"});
  ASSERT_TRUE(fitted);
  EXPECT_TRUE(std::get<HitVolumesAnswer>(*fitted).fitted);
  auto again = ray(beside, {0, 0, 1}, then);
  ASSERT_TRUE(again);
  EXPECT_FALSE(again->hit);
}

TEST_F(HitQueryTest, UnloadingAnAssetDropsItsReplacement) {
  auto copy = std::make_shared<anim::Asset>(builtin_);
  copy->name = "copy";
  ASSERT_TRUE(world_->add_asset(copy));
  SetHitVolumes set;
  set.asset = "copy";
  set.joints = {{"head", 0, {{0, 0, 0}, {0, 0, 0}, 0.5f}}};
  ASSERT_TRUE(run(set));
  EXPECT_EQ(world_->hit_volumes()->get()->size(), 1u);
  ASSERT_TRUE(run(UnloadAsset{"copy"}));
  EXPECT_TRUE(world_->hit_volumes()->get()->empty());
  auto gone = run(GetHitVolumes{"copy"});
  ASSERT_FALSE(gone);
  EXPECT_EQ(gone.error().message(), "get_hit_volumes.asset: unknown asset 'copy'");
}

TEST_F(HitQueryTest, AnAssetWithoutVolumesGetsThemFittedWhenAdded) {
  auto bare = std::make_shared<anim::Asset>(builtin_);
  bare->name = "bare";
  bare->hit_volumes = {};
  ASSERT_TRUE(world_->add_asset(bare));
  auto shown = run(GetHitVolumes{"bare"});
  ASSERT_TRUE(shown);
  const auto& v = *std::get<HitVolumesAnswer>(shown.value()).volumes;
  ASSERT_EQ(v.capsules.size(), builtin_.hit_volumes.capsules.size());
  EXPECT_EQ(v.extents, builtin_.hit_volumes.extents);
}

TEST_F(HitQueryTest, PlacementsHoldThePosePlacedByTheRoot) {
  anim::Transform root;
  root.translation = {1, 0, 2};
  root.scale = glm::vec3(2.0f);
  auto s = run(SpawnCharacter{"builtin", "walk", root, true});
  ASSERT_TRUE(s);
  const uint32_t id = std::get<Spawned>(*s).character_id;
  const uint32_t plain = spawn("walk", {5, 0, 5});
  AddLayer layer;
  layer.character = id;
  layer.clip = "lean";
  ASSERT_TRUE(run(layer));
  tick();
  FrameRef frame = world_->history()->newest();
  ASSERT_TRUE(frame);
  ASSERT_EQ(frame->placements.size(), frame->entries.size());
  for (size_t i = 0; i < frame->entries.size(); ++i) {
    const HitPlacement& p = frame->placements[i];
    // The pose's joints, re-evaluated: all within the placement's sphere.
    QueryPose q;
    q.character = frame->entries[i].character;
    q.tick = frame->tick;
    q.space = PoseSpace::kWorld;
    auto pose = query_history(*world_->history(), q);
    ASSERT_TRUE(pose && *pose);
    float farthest = 0.0f;
    for (const PoseJoint& j : (**pose).joints) {
      const float* m = j.matrix.m;
      farthest = std::max(farthest, glm::length(glm::vec3(m[3], m[7], m[11]) - p.center));
    }
    EXPECT_LE(farthest, p.radius);
    EXPECT_GT(farthest, 0.4f * p.radius);  // and it is not much bigger than the pose
    // Scale 2 for the layered one (the built-in rig animates no scale: layers keep bounds).
    EXPECT_EQ(p.stretch, frame->entries[i].character == id ? 2.0f : 1.0f);
  }
  EXPECT_EQ(frame->entries[1].character, plain);
  // The layered, scaled character is hit where it is: at chest height from the front.
  auto hit = ray({1, 2.6f, -5}, {0, 0, 1}, std::nullopt);
  ASSERT_TRUE(hit);
  ASSERT_TRUE(hit->hit);
  EXPECT_EQ(hit->character_id, id);
}

// What the converters refuse, naming the field; nothing reaches the history or the World.
TEST(HitRequestConvert, BadValuesAreRefusedAtTheEdge) {
  auto refused = [](const anim::v1::Request& r) {
    const anim::Status s = [&]() -> anim::Status {
      if (r.has_raycast()) {
        auto c = raycast_request(r.raycast());
        return c ? anim::Status() : c.error();
      }
      if (r.has_overlap_sphere()) {
        auto c = overlap_sphere_request(r.overlap_sphere());
        return c ? anim::Status() : c.error();
      }
      auto c = to_world_request(r);
      return c ? anim::Status() : c.error();
    }();
    return s ? std::string("accepted") : s.message();
  };
  anim::v1::Request r;
  auto* ray = r.mutable_raycast();
  ray->mutable_direction()->set_z(1.0f);
  ray->set_max_distance(10.0f);
  EXPECT_EQ(refused(r), "accepted");
  ray->mutable_origin()->set_y(std::nanf(""));
  EXPECT_EQ(refused(r), "raycast.origin.y is NaN");
  ray->mutable_origin()->set_y(0.0f);
  ray->mutable_direction()->set_z(0.0f);
  EXPECT_EQ(refused(r), "raycast.direction is zero");
  ray->mutable_direction()->set_z(1e-30f);  // tiny is fine: normalized in double
  EXPECT_EQ(refused(r), "accepted");
  ray->set_max_distance(-1.0f);
  EXPECT_EQ(refused(r), "raycast.max_distance must be > 0 (it is -1.000000)");
  ray->set_max_distance(INFINITY);
  EXPECT_EQ(refused(r), "raycast.max_distance is infinite");
  ray->set_max_distance(0.0f);
  EXPECT_EQ(refused(r), "raycast.max_distance must be > 0 (it is 0.000000)");

  anim::v1::Request o;
  o.mutable_overlap_sphere()->set_radius(-0.5f);
  EXPECT_EQ(refused(o), "overlap_sphere.radius is negative");
  o.mutable_overlap_sphere()->set_radius(0.0f);
  EXPECT_EQ(refused(o), "accepted");
  o.mutable_overlap_sphere()->mutable_center()->set_x(-INFINITY);
  EXPECT_EQ(refused(o), "overlap_sphere.center.x is infinite");

  anim::v1::Request s;
  auto* set = s.mutable_set_hit_volumes();
  set->set_asset("builtin");
  auto* j = set->add_joints();
  j->mutable_capsule()->set_radius(0.1f);
  EXPECT_EQ(refused(s), "set_hit_volumes.joints[0]: give joint_name or joint_index");
  j->set_joint_name("");
  EXPECT_EQ(refused(s), "set_hit_volumes.joints[0].joint_name is empty");
  j->set_joint_name("head");
  EXPECT_EQ(refused(s), "accepted");
  j->mutable_capsule()->set_radius(-0.1f);
  EXPECT_EQ(refused(s), "set_hit_volumes.joints[0].capsule.radius is negative");
  j->mutable_capsule()->set_radius(std::nanf(""));
  EXPECT_EQ(refused(s), "set_hit_volumes.joints[0].capsule.radius is NaN");
  j->mutable_capsule()->set_radius(0.1f);
  j->mutable_capsule()->mutable_b()->set_y(2e6f);
  EXPECT_EQ(refused(s),
            "set_hit_volumes.joints[0].capsule: ends and radius must be within 1e6 (got "
            "2000000.000000)");
  j->mutable_capsule()->mutable_b()->set_y(0.2f);
  j->set_joint_index(3);
  auto c = to_world_request(s);
  ASSERT_TRUE(c);
  const auto& edit = std::get<SetHitVolumes>(*c).joints[0];
  EXPECT_TRUE(edit.joint_name.empty());
  EXPECT_EQ(edit.joint_index, 3u);
  EXPECT_EQ(edit.capsule.b.y, 0.2f);
}

TEST(HitRequestConvert, DirectionIsNormalizedAndIgnoreListSorted) {
  anim::v1::Request r;
  auto* ray = r.mutable_raycast();
  ray->mutable_direction()->set_x(3.0f);
  ray->mutable_direction()->set_y(4.0f);
  ray->set_max_distance(10.0f);
  ray->set_tick(7);
  for (uint32_t id : {5u, 2u, 5u, 9u}) ray->add_ignore_character_ids(id);
  auto c = raycast_request(r.raycast());
  ASSERT_TRUE(c);
  const Raycast& q = *c;
  EXPECT_NEAR(q.direction.x, 0.6f, 1e-6f);
  EXPECT_NEAR(q.direction.y, 0.8f, 1e-6f);
  EXPECT_EQ(q.tick, std::optional<uint64_t>(7));
  EXPECT_EQ(q.ignore, (std::vector<uint32_t>{2, 5, 9}));
}

}  // namespace hit_query_test
}  // namespace animd
