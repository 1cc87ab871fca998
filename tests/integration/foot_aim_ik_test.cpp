// Foot and aim IK through the real daemon: set_foot_ik + set_ground (per-foot heights: a
// step) lower the pelvis and put each ankle on its ground; set_aim_ik turns the head at a
// world target; query_pose (the pose history) shows both; a ground weight of 0 gives the
// animated pose back; bad requests are refused, naming the field, and change nothing.
#include <cmath>
#include <thread>

#include <gtest/gtest.h>
#include <glm/glm.hpp>

#include "integration_support.h"

namespace animtest {
namespace foot_aim_ik_test {

using anim::v1::Request;

// The world-space matrix rows of `joints` at the first tick after `after` (waits for it).
anim::v1::QueryPoseReply pose_after(animclient::Client& c, uint32_t id, uint64_t after,
                                    std::vector<std::string> joints) {
  while (current_tick(c) <= after) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  anim::v1::QueryPoseRequest q;
  q.set_character_id(id);
  q.set_tick(after + 1);
  q.set_space(anim::v1::SPACE_WORLD);
  for (auto& j : joints) q.add_joint_names(j);
  auto reply = c.query_pose(q);
  EXPECT_TRUE(reply) << reply.error().to_string();
  return reply ? *reply : anim::v1::QueryPoseReply{};
}

Request ground(uint32_t id, float left, float right) {
  Request r;
  auto* g = r.mutable_set_ground();
  g->set_character_id(id);
  g->mutable_feet()->mutable_left()->set_height(left);
  g->mutable_feet()->mutable_right()->set_height(right);
  return r;
}

TEST(FootAimIk, TheDaemonStandsTheCharacterOnAStepAndTurnsItsHead) {
  DaemonProcess daemon;
  ANIMD_START(daemon);
  auto client = connect_client(daemon);
  ASSERT_TRUE(client);
  anim::v1::SpawnRequest spawn;
  spawn.set_asset("builtin");  // no clip: the rest pose, ankles 9 cm up, hips at 0.95
  spawn.mutable_root()->mutable_translation()->set_x(2.0f);
  auto sp = client->spawn(spawn);
  ASSERT_TRUE(sp) << sp.error().to_string();
  const uint32_t id = sp->character_id();

  // Refused, naming the problem.
  Request bad_leg;
  bad_leg.mutable_set_foot_ik()->set_character_id(id);
  bad_leg.mutable_set_foot_ik()->mutable_left()->set_ankle("hoof");
  auto r = call(*client, bad_leg);
  EXPECT_EQ(r.status().code(), anim::v1::STATUS_NOT_FOUND);
  EXPECT_NE(r.status().message().find("'hoof'"), std::string::npos) << r.status().message();
  Request bad_ground = ground(id, 0.0f, 0.0f);
  bad_ground.mutable_set_ground()->mutable_feet()->mutable_right()->mutable_normal()->set_y(-1.0f);
  r = call(*client, bad_ground);
  EXPECT_EQ(r.status().code(), anim::v1::STATUS_INVALID_ARGUMENT);
  EXPECT_NE(r.status().message().find("set_ground.feet.right.normal"), std::string::npos);
  Request bad_aim;
  bad_aim.mutable_set_aim_ik()->set_character_id(id);
  bad_aim.mutable_set_aim_ik()->set_root_joint("spine");
  bad_aim.mutable_set_aim_ik()->set_end_joint("head");
  bad_aim.mutable_set_aim_ik()->add_max_angles(-1.0f);
  r = call(*client, bad_aim);
  EXPECT_EQ(r.status().code(), anim::v1::STATUS_INVALID_ARGUMENT);
  EXPECT_NE(r.status().message().find("set_aim_ik.max_angles[0]"), std::string::npos);

  Request feet;
  feet.mutable_set_foot_ik()->set_character_id(id);
  call_ok(*client, feet);
  call_ok(*client, ground(id, 0.0f, -0.1f));  // the right foot 10 cm lower
  Request aim;
  auto* a = aim.mutable_set_aim_ik();
  a->set_character_id(id);
  a->set_root_joint("spine");
  a->set_end_joint("head");
  a->set_space(anim::v1::SPACE_WORLD);
  a->mutable_target()->set_x(3.0f);  // ahead and to the left, at head height
  a->mutable_target()->set_y(1.6f);
  a->mutable_target()->set_z(1.0f);
  const uint64_t set = call_ok(*client, aim).tick();

  auto p = pose_after(*client, id, set, {"hips", "foot_l", "foot_r", "head"});
  ASSERT_EQ(p.joints_size(), 4);
  EXPECT_NEAR(p.joints(0).position().y(), 0.85f, 1e-4f);  // hips lowered by the lower foot
  EXPECT_NEAR(p.joints(1).position().y(), 0.09f, 1e-4f);
  EXPECT_NEAR(p.joints(2).position().y(), -0.01f, 1e-4f);
  // The head's forward (+Z, the matrix's third column) points at the target.
  const auto& m = p.joints(3).matrix();
  const glm::vec3 forward(m[2], m[6], m[10]);
  const glm::vec3 head(p.joints(3).position().x(), p.joints(3).position().y(),
                       p.joints(3).position().z());
  const float c = glm::dot(glm::normalize(forward), glm::normalize(glm::vec3(3, 1.6f, 1) - head));
  EXPECT_LT(glm::degrees(std::acos(std::min(1.0f, c))), 0.5f);

  // Weight 0 on both: the rest pose again.
  Request off = ground(id, 0.0f, -0.1f);
  off.mutable_set_ground()->set_weight(0.0f);
  call_ok(*client, off);
  Request still;
  still.mutable_move_aim_target()->set_character_id(id);
  *still.mutable_move_aim_target()->mutable_target() = a->target();
  still.mutable_move_aim_target()->set_weight(0.0f);
  const uint64_t off_tick = call_ok(*client, still).tick();
  p = pose_after(*client, id, off_tick, {"hips", "foot_r", "head"});
  ASSERT_EQ(p.joints_size(), 3);
  EXPECT_FLOAT_EQ(p.joints(0).position().y(), 0.95f);
  EXPECT_FLOAT_EQ(p.joints(1).position().y(), 0.09f);
  EXPECT_FLOAT_EQ(p.joints(2).matrix()[10], 1.0f);  // facing +Z as at rest

  Request clear;
  clear.mutable_clear_foot_ik()->set_character_id(id);
  call_ok(*client, clear);
  r = call(*client, clear);
  EXPECT_EQ(r.status().code(), anim::v1::STATUS_NOT_FOUND);
  Request clear_aim;
  clear_aim.mutable_clear_aim_ik()->set_character_id(id);
  call_ok(*client, clear_aim);
}

}  // namespace foot_aim_ik_test
}  // namespace animtest
