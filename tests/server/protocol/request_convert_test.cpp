// The edge between the wire and the World: a good request arrives with every value kept and
// the defaults filled in, the World's answers come out as the replies the protocol
// describes, and the IK fields are checked and named. The table of malformed requests and
// their messages: request_convert_refusals_test.cpp.
#include "protocol/request_convert.h"
#include "session/command_table.h"

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "anim/loaders/builtin_character.h"

namespace animd {
namespace request_convert_test {

using anim::v1::Request;

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

TEST(RequestConvert, MovingAGoalLooksOnlyAtTargetAndWeight) {
  // The chain settings of a move are ignored (as they always were), so bad ones are no error.
  Request r;
  auto* g = r.mutable_set_ik_goal();
  g->set_character_id(4);
  g->set_goal_id(2);
  g->set_soften(kNan);
  g->set_max_iterations(5000);
  g->mutable_target()->set_y(1.5f);
  const auto converted = to_world_request(r);
  ASSERT_TRUE(converted) << converted.error().message();
  const auto& m = std::get<MoveIkGoal>(*converted);
  EXPECT_EQ(m.character, 4u);
  EXPECT_EQ(m.goal, 2u);
  EXPECT_EQ(m.target, glm::vec3(0.0f, 1.5f, 0.0f));
  EXPECT_FALSE(m.weight.has_value());
}

TEST(RequestConvert, ASubscribeSaysWhetherItIsCompact) {
  // The World prepares compact frames only for compact subscriptions (encode_stage.h).
  for (const auto encoding : {anim::v1::ENCODING_FLOAT_3X4, anim::v1::ENCODING_COMPACT}) {
    Request r;
    r.mutable_subscribe()->set_all_characters(true);
    r.mutable_subscribe()->set_encoding(encoding);
    const auto converted = to_world_request(r);
    ASSERT_TRUE(converted) << converted.error().message();
    EXPECT_EQ(std::get<Subscribe>(*converted).compact, encoding == anim::v1::ENCODING_COMPACT);
  }
}

TEST(RequestConvert, ANewIkGoalKeepsEveryValueAndGetsTheDefaults) {
  Request r;
  auto* g = r.mutable_set_ik_goal();
  g->set_character_id(7);
  g->set_root_joint("shoulder_r");
  g->set_effector_joint("hand_r");
  g->set_solver(anim::v1::IK_SOLVER_TWO_BONE);
  g->set_space(anim::v1::SPACE_WORLD);
  g->mutable_target()->set_x(-0.5f);
  g->mutable_pole()->set_z(2.0f);
  g->set_soften(0.25f);
  g->add_joint_weights(0.5f);
  auto* hinge = g->add_constraints();
  hinge->set_joint("forearm_r");
  hinge->mutable_hinge()->mutable_axis()->set_z(2.0f);  // normalized to (0, 0, 1)
  hinge->mutable_hinge()->set_min_angle(-0.5f);
  hinge->mutable_hinge()->set_max_angle(1.0f);
  auto* ball = g->add_constraints();
  ball->set_joint("upper_arm_r");
  ball->mutable_ball_socket()->set_cone_angle(0.75f);
  const auto converted = to_world_request(r);
  ASSERT_TRUE(converted) << converted.error().message();
  const auto& s = std::get<SetIkGoal>(*converted);
  EXPECT_EQ(s.character, 7u);
  EXPECT_EQ(s.root_joint, "shoulder_r");
  EXPECT_EQ(s.effector_joint, "hand_r");
  EXPECT_EQ(s.solver, anim::IkSolver::kTwoBone);
  EXPECT_EQ(s.space, anim::IkSpace::kWorld);
  EXPECT_EQ(s.target, glm::vec3(-0.5f, 0.0f, 0.0f));
  EXPECT_EQ(s.weight, 1.0f);  // unset: 1
  ASSERT_TRUE(s.pole.has_value());
  EXPECT_EQ(*s.pole, glm::vec3(0.0f, 0.0f, 2.0f));
  EXPECT_EQ(s.soften, 0.25f);
  EXPECT_EQ(s.max_iterations, 16);  // 0: the default
  EXPECT_EQ(s.tolerance, 1e-4f);    // 0: the default
  EXPECT_EQ(s.joint_weights, std::vector<float>{0.5f});
  ASSERT_EQ(s.constraints.size(), 2u);
  EXPECT_EQ(s.constraints[0].joint, "forearm_r");
  EXPECT_EQ(s.constraints[0].limits.kind, anim::JointConstraint::Kind::kHinge);
  EXPECT_EQ(s.constraints[0].limits.axis, glm::vec3(0.0f, 0.0f, 1.0f));
  EXPECT_EQ(s.constraints[0].limits.min_angle, -0.5f);
  EXPECT_EQ(s.constraints[0].limits.max_angle, 1.0f);
  EXPECT_EQ(s.constraints[1].joint, "upper_arm_r");
  EXPECT_EQ(s.constraints[1].limits.kind, anim::JointConstraint::Kind::kBallSocket);
  EXPECT_EQ(s.constraints[1].limits.cone_angle, 0.75f);
}

TEST(RequestConvert, GoodRequestsKeepEveryValue) {
  {
    Request r;
    auto* a = r.mutable_add_clip_events();
    a->set_asset("fox");
    a->set_clip("walk");
    a->set_replace(true);
    auto* e = a->add_events();
    e->set_name("step");
    e->set_time(0.25f);
    e->set_payload("left");
    const auto c = to_world_request(r);
    ASSERT_TRUE(c) << c.error().message();
    const auto& ev = std::get<AddClipEvents>(*c);
    EXPECT_EQ(ev.asset, "fox");
    EXPECT_EQ(ev.clip, "walk");
    EXPECT_TRUE(ev.replace);
    ASSERT_EQ(ev.events.size(), 1u);
    EXPECT_EQ(ev.events[0].name, "step");
    EXPECT_EQ(ev.events[0].time, 0.25f);
    EXPECT_EQ(ev.events[0].payload, "left");
  }
  {
    Request r;
    auto* m = r.mutable_set_root_motion();
    m->set_character_id(4);
    m->set_mode(anim::v1::ROOT_MOTION_EXTRACT);
    m->set_joint("hips");
    m->set_extract_vertical(true);
    const auto c = to_world_request(r);
    ASSERT_TRUE(c) << c.error().message();
    const auto& rm = std::get<SetRootMotion>(*c);
    EXPECT_EQ(rm.character, 4u);
    EXPECT_EQ(rm.mode, anim::RootMotionMode::kExtract);
    EXPECT_EQ(rm.joint, "hips");
    EXPECT_TRUE(rm.extract_vertical);
  }
  {
    Request r;
    auto* s = r.mutable_spawn();
    s->set_asset("fox");
    s->set_clip("run");
    s->set_shared(true);
    s->mutable_root()->mutable_translation()->set_y(2.0f);
    s->mutable_root()->mutable_rotation()->set_w(2.0f);  // normalized: identity
    const auto c = to_world_request(r);
    ASSERT_TRUE(c) << c.error().message();
    const auto& sp = std::get<SpawnCharacter>(*c);
    EXPECT_EQ(sp.asset, "fox");
    EXPECT_EQ(sp.clip, "run");
    EXPECT_TRUE(sp.shared);
    EXPECT_EQ(sp.root.translation, glm::vec3(0.0f, 2.0f, 0.0f));
    EXPECT_EQ(sp.root.rotation, glm::quat(1.0f, 0.0f, 0.0f, 0.0f));
    EXPECT_EQ(sp.root.scale, glm::vec3(1.0f));  // unset: 1
  }
  {
    Request r;
    r.mutable_play()->set_character_id(3);
    r.mutable_play()->set_clip("walk");
    r.mutable_play()->set_start_time(0.5f);
    const auto c = to_world_request(r);
    ASSERT_TRUE(c);
    const auto& p = std::get<PlayClip>(*c);
    EXPECT_EQ(p.character, 3u);
    EXPECT_EQ(p.clip, "walk");
    EXPECT_TRUE(p.loop);       // unset: loops
    EXPECT_EQ(p.speed, 1.0f);  // unset: 1
    EXPECT_EQ(p.start_time, 0.5f);
  }
  {
    Request r;
    auto* x = r.mutable_crossfade();
    x->set_character_id(3);
    x->set_clip("run");
    x->set_duration(0.25f);
    x->set_loop(false);
    x->set_speed(-2.0f);
    x->set_sync_normalized_time(true);
    const auto c = to_world_request(r);
    ASSERT_TRUE(c);
    const auto& f = std::get<CrossfadeClip>(*c);
    EXPECT_EQ(f.duration, 0.25f);
    EXPECT_FALSE(f.loop);
    EXPECT_EQ(f.speed, -2.0f);
    EXPECT_TRUE(f.sync_normalized_time);
  }
  {
    Request r;
    auto* l = r.mutable_add_layer();
    l->set_character_id(3);
    l->set_clip("lean");
    l->set_reference_clip("idle");
    l->set_reference_time(0.1f);
    l->set_parameter(0.75f);
    l->set_time_source(anim::v1::LAYER_TIME_PARAMETER);
    auto& weights = *l->mutable_mask()->mutable_joint_weights();
    weights["spine"] = 0.5f;
    weights["head"] = 1.0f;
    l->mutable_mask()->set_blend_root("hips");  // joint_weights win
    const auto c = to_world_request(r);
    ASSERT_TRUE(c) << c.error().message();
    const auto& a = std::get<AddLayer>(*c);
    EXPECT_EQ(a.reference_clip, "idle");
    EXPECT_EQ(a.reference_time, 0.1f);
    EXPECT_EQ(a.weight, 1.0f);
    EXPECT_EQ(a.speed, 1.0f);
    EXPECT_EQ(a.parameter, 0.75f);
    EXPECT_EQ(a.time_source, anim::LayerTimeSource::kParameter);
    EXPECT_TRUE(a.mask.blend_root.empty());
    using W = std::vector<std::pair<std::string, float>>;
    EXPECT_EQ(a.mask.joint_weights, (W{{"head", 1.0f}, {"spine", 0.5f}}));  // by name
  }
  {
    Request r;
    auto* l = r.mutable_add_layer();
    l->set_character_id(3);
    l->set_state_machine("upper");
    l->set_state("aim");
    l->set_blend(anim::v1::LAYER_BLEND_OVERRIDE);
    l->set_speed(0.5f);
    const auto c = to_world_request(r);
    ASSERT_TRUE(c) << c.error().message();
    const auto& a = std::get<AddLayer>(*c);
    EXPECT_EQ(a.state_machine, "upper");
    EXPECT_EQ(a.state, "aim");
    EXPECT_TRUE(a.clip.empty());
    EXPECT_EQ(a.blend, anim::LayerBlend::kOverride);
    EXPECT_EQ(a.speed, 0.5f);
  }
  {
    Request r;
    auto* b = r.mutable_define_blend_space();
    b->set_asset("builtin");
    b->set_name("gait");
    b->add_axes("speed");
    b->set_sync_markers(true);
    for (const char* clip : {"walk", "run"}) b->add_samples()->set_clip(clip);
    b->mutable_samples(1)->set_x(1.0f);
    const auto c = to_world_request(r);
    ASSERT_TRUE(c) << c.error().message();
    EXPECT_TRUE(std::get<DefineBlendSpace>(*c).sync_markers);
  }
  {
    Request r;
    r.mutable_update_layer()->set_character_id(3);
    r.mutable_update_layer()->set_layer_id(2);
    r.mutable_update_layer()->set_speed(-1.0f);
    const auto c = to_world_request(r);
    ASSERT_TRUE(c);
    const auto& u = std::get<UpdateLayer>(*c);
    EXPECT_EQ(u.layer, 2u);
    EXPECT_FALSE(u.weight.has_value());
    EXPECT_EQ(u.speed, -1.0f);
    EXPECT_FALSE(u.parameter.has_value());
  }
  {
    Request r;
    auto* q = r.mutable_query_pose();
    q->set_character_id(9);
    q->set_tick(0);  // set, even to 0
    q->add_joint_names("head");
    q->add_joint_indices(4);
    q->set_space(anim::v1::SPACE_WORLD);
    const auto c = to_world_request(r);
    ASSERT_TRUE(c);
    const auto& p = std::get<QueryPose>(*c);
    ASSERT_TRUE(p.tick.has_value());
    EXPECT_EQ(*p.tick, 0u);
    EXPECT_EQ(p.joint_names, std::vector<std::string>{"head"});
    EXPECT_EQ(p.joint_indices, std::vector<uint32_t>{4});
    EXPECT_EQ(p.space, PoseSpace::kWorld);
  }
  {
    Request r;
    r.mutable_subscribe()->add_character_ids(5);
    r.mutable_subscribe()->add_character_ids(5);
    const auto c = to_world_request(r);
    ASSERT_TRUE(c);
    const auto& s = std::get<Subscribe>(*c);
    EXPECT_EQ(s.character_ids, (std::vector<uint32_t>{5, 5}));
    EXPECT_FALSE(s.all_characters);
    EXPECT_EQ(s.subscription_id, 0u);  // the session's to assign
  }
  {
    Request r;
    r.mutable_unload_asset()->set_asset("fox");
    const auto c = to_world_request(r);
    ASSERT_TRUE(c);
    EXPECT_EQ(std::get<UnloadAsset>(*c).asset, "fox");
  }
}

TEST(RequestConvert, ErrorsBecomeStatusesWithoutAResult) {
  const auto reply = to_reply(anim::Status(anim::StatusCode::kPermissionDenied, "not yours"));
  EXPECT_EQ(reply.status().code(), anim::v1::STATUS_PERMISSION_DENIED);
  EXPECT_EQ(reply.status().message(), "not yours");
  EXPECT_EQ(reply.result_case(), anim::v1::Reply::RESULT_NOT_SET);
  const auto done = to_reply(WorldResult(Done{}));
  EXPECT_TRUE(done.has_status());
  EXPECT_EQ(done.status().code(), anim::v1::STATUS_OK);
  EXPECT_EQ(done.result_case(), anim::v1::Reply::RESULT_NOT_SET);
}

TEST(RequestConvert, AnswersBecomeTheirReplies) {
  auto asset = std::make_shared<const anim::Asset>(anim::make_builtin_character());
  EXPECT_EQ(to_reply(WorldResult(Spawned{12, 40})).spawn().character_id(), 12u);
  EXPECT_EQ(to_reply(WorldResult(Spawned{12, 40})).spawn().tick(), 40u);
  EXPECT_EQ(to_reply(WorldResult(LayerAdded{3})).add_layer().layer_id(), 3u);
  EXPECT_EQ(to_reply(WorldResult(IkGoalSet{4})).set_ik_goal().goal_id(), 4u);
  EXPECT_EQ(to_reply(WorldResult(Subscribed{6})).subscribe().subscription_id(), 6u);
  EXPECT_EQ(to_reply(WorldResult(AssetAdded{asset})).load_asset().asset().name(), "builtin");

  // A pose: joint names come from the asset, positions from the matrices' translation.
  PoseAnswer p;
  p.tick = 8;
  p.server_time = 0.5;
  p.root.translation = glm::vec3(1.0f, 2.0f, 3.0f);
  p.asset = asset;
  PoseJoint j;
  j.index = 2;
  for (int i = 0; i < 12; ++i) j.matrix.m[i] = float(i);
  p.joints.push_back(j);
  p.palette.resize(2);
  p.palette[1].m[11] = 7.0f;
  const auto pose = to_reply(WorldResult(std::move(p))).query_pose();
  EXPECT_EQ(pose.tick(), 8u);
  EXPECT_EQ(pose.server_time(), 0.5);
  EXPECT_EQ(pose.root().translation().z(), 3.0f);
  EXPECT_EQ(pose.root().scale().x(), 1.0f);
  ASSERT_EQ(pose.joints_size(), 1);
  EXPECT_EQ(pose.joints(0).index(), 2u);
  EXPECT_EQ(pose.joints(0).name(), asset->skeleton.names[2]);
  ASSERT_EQ(pose.joints(0).matrix_size(), 12);
  for (int i = 0; i < 12; ++i) EXPECT_EQ(pose.joints(0).matrix(i), float(i));
  EXPECT_EQ(pose.joints(0).position().x(), 3.0f);
  EXPECT_EQ(pose.joints(0).position().y(), 7.0f);
  EXPECT_EQ(pose.joints(0).position().z(), 11.0f);
  ASSERT_EQ(pose.palette_size(), 24);
  EXPECT_EQ(pose.palette(23), 7.0f);

  CharacterList list;
  list.characters.push_back(CharacterEntry{1, asset, -1, {}, {}});
  list.characters.push_back(CharacterEntry{2, asset, 0, {}, {}});
  const auto listed = to_reply(WorldResult(std::move(list))).list_characters();
  ASSERT_EQ(listed.characters_size(), 2);
  EXPECT_EQ(listed.characters(0).character_id(), 1u);
  EXPECT_EQ(listed.characters(0).asset(), "builtin");
  EXPECT_EQ(listed.characters(0).clip(), "");  // none yet
  EXPECT_EQ(listed.characters(1).clip(), asset->clips[0].name);
  EXPECT_EQ(listed.characters(1).root().rotation().w(), 1.0f);

  StatsAnswer s;
  s.tick = 99;
  s.tick_rate_hz = 60.0;
  s.subscriptions = 3;
  s.tick_time_p99_us = 250.0;
  s.request_errors = 4;
  s.worker_threads = 2;
  const auto stats = to_reply(WorldResult(s)).stats();
  EXPECT_EQ(stats.tick(), 99u);
  EXPECT_EQ(stats.tick_rate_hz(), 60.0);
  EXPECT_EQ(stats.subscriptions(), 3u);
  EXPECT_EQ(stats.tick_time_p99_us(), 250.0);
  EXPECT_EQ(stats.request_errors(), 4u);
  EXPECT_EQ(stats.worker_threads(), 2u);
}

TEST(RequestConvert, AimAndFootIkFieldsAreCheckedAndNamed) {
  // Each malformed aim / foot IK request is refused with a message naming the field.
  const std::vector<std::pair<std::function<void(Request&)>, std::string>> cases = {
      {[](Request& r) { r.mutable_set_aim_ik()->mutable_target()->set_y(kNan); },
       "set_aim_ik.target.y"},
      {[](Request& r) { r.mutable_set_aim_ik()->mutable_forward_axis(); },
       "set_aim_ik.forward_axis"},
      {[](Request& r) { r.mutable_set_aim_ik()->set_weight(1.5f); }, "set_aim_ik.weight"},
      {[](Request& r) { r.mutable_set_aim_ik()->set_space(static_cast<anim::v1::Space>(7)); },
       "set_aim_ik.space"},
      {[](Request& r) { r.mutable_set_aim_ik()->mutable_up_axis()->set_y(1.0f); },
       "set_aim_ik.up_axis"},
      {[](Request& r) { r.mutable_set_aim_ik()->mutable_pole()->set_x(kInf); },
       "set_aim_ik.pole.x"},
      {[](Request& r) { r.mutable_set_aim_ik()->add_max_angles(4.0f); },
       "set_aim_ik.max_angles[0]"},
      {[](Request& r) {
         for (int i = 0; i < 40; ++i) r.mutable_set_aim_ik()->add_joint_weights(1.0f);
       },
       "set_aim_ik.joint_weights"},
      {[](Request& r) { r.mutable_set_aim_ik()->add_joint_weights(-1.0f); },
       "set_aim_ik.joint_weights[0]"},
      {[](Request& r) { r.mutable_move_aim_target()->mutable_target()->set_z(kNan); },
       "move_aim_target.target.z"},
      {[](Request& r) { r.mutable_move_aim_target()->set_weight(-0.5f); },
       "move_aim_target.weight"},
      {[](Request& r) { r.mutable_set_foot_ik()->set_left_sole_offset(-1.0f); },
       "set_foot_ik.left_sole_offset"},
      {[](Request& r) { r.mutable_set_foot_ik()->set_right_sole_offset(kNan); },
       "set_foot_ik.right_sole_offset"},
      {[](Request& r) { r.mutable_set_foot_ik()->set_max_tilt(2.0f); }, "set_foot_ik.max_tilt"},
      {[](Request& r) { r.mutable_set_foot_ik()->set_weight(kInf); }, "set_foot_ik.weight"},
      {[](Request& r) { r.mutable_set_foot_ik()->set_contact_height(-1.0f); },
       "set_foot_ik.contact_height"},
      {[](Request& r) { r.mutable_set_foot_ik()->set_contact_speed(kNan); },
       "set_foot_ik.contact_speed"},
      {[](Request& r) { r.mutable_set_foot_ik()->set_release_time(11.0f); },
       "set_foot_ik.release_time"},
      {[](Request& r) { r.mutable_set_ground(); }, "set_ground has neither plane nor feet"},
      {[](Request& r) { r.mutable_set_ground()->mutable_plane()->mutable_point()->set_x(kNan); },
       "set_ground.plane.point.x"},
      {[](Request& r) { r.mutable_set_ground()->mutable_plane()->mutable_normal()->set_y(-1.0f); },
       "set_ground.plane.normal must face up"},
      {[](Request& r) { r.mutable_set_ground()->mutable_plane()->mutable_normal(); },
       "set_ground.plane.normal is zero"},
      {[](Request& r) {
         r.mutable_set_ground()->mutable_feet()->mutable_right()->set_height(kInf);
       },
       "set_ground.feet.right.height"},
      {[](Request& r) {
         r.mutable_set_ground()->mutable_feet()->mutable_left()->mutable_normal()->set_x(1.0f);
       },
       "set_ground.feet.left.normal must face up"},
      {[](Request& r) {
         r.mutable_set_ground()->mutable_plane();
         r.mutable_set_ground()->set_weight(2.0f);
       },
       "set_ground.weight"},
  };
  for (const auto& [make, words] : cases) {
    Request r;
    make(r);
    const auto converted = to_world_request(r);
    ASSERT_FALSE(converted) << words << ": accepted";
    EXPECT_EQ(converted.error().code(), anim::StatusCode::kInvalidArgument) << words;
    EXPECT_NE(converted.error().message().find(words), std::string::npos)
        << converted.error().message();
  }
  // Good ones keep their values and get the defaults.
  Request r;
  auto* aim = r.mutable_set_aim_ik();
  aim->set_character_id(3);
  aim->set_root_joint("spine");
  aim->set_end_joint("head");
  aim->mutable_target()->set_z(2.0f);
  aim->mutable_pole()->set_y(2.0f);
  aim->add_max_angles(0.5f);
  auto converted = to_world_request(r);
  ASSERT_TRUE(converted) << converted.error().message();
  const auto& a = std::get<SetAimIk>(*converted);
  EXPECT_EQ(a.character, 3u);
  EXPECT_EQ(a.desc.forward_axis, glm::vec3(0, 0, 1));
  EXPECT_EQ(a.desc.weight, 1.0f);
  EXPECT_TRUE(a.desc.has_pole);
  EXPECT_EQ(a.desc.up_axis, glm::vec3(0, 1, 0));
  EXPECT_EQ(a.desc.max_angles, std::vector<float>{0.5f});
  Request f;
  f.mutable_set_foot_ik()->mutable_left()->set_ankle("foot_l");
  converted = to_world_request(f);
  ASSERT_TRUE(converted) << converted.error().message();
  const auto& feet = std::get<SetFootIk>(*converted);
  EXPECT_EQ(feet.desc.legs[0].ankle, "foot_l");
  EXPECT_TRUE(feet.desc.lock_feet);
  EXPECT_EQ(feet.desc.sole_offsets[0], -1.0f);  // from the rest pose
  Request g;
  g.mutable_set_ground()->mutable_feet()->mutable_left()->set_height(0.25f);
  converted = to_world_request(g);
  ASSERT_TRUE(converted) << converted.error().message();
  const auto& ground = std::get<SetGround>(*converted);
  EXPECT_EQ(ground.ground.kind, anim::GroundDesc::Kind::kFootSamples);
  EXPECT_EQ(ground.ground.heights[0], 0.25f);
  EXPECT_EQ(ground.ground.normals[1], glm::vec3(0, 1, 0));
  EXPECT_FALSE(ground.weight.has_value());
}

}  // namespace request_convert_test
}  // namespace animd
