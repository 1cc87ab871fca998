// The edge between the wire and the World: every malformed request is refused with its code
// and message (the ones the daemon has always given; clients and docs quote them), a good
// one arrives with every value kept and the defaults filled in, and the World's answers
// come out as the replies the protocol describes.
#include "request_convert.h"

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "anim/builtin_character.h"

namespace animd {
namespace {

using anim::v1::Request;

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

struct BadCase {
  const char* what;
  std::function<void(Request&)> make;
  anim::StatusCode code;
  std::string message;
};

std::vector<BadCase> bad_cases() {
  using C = anim::StatusCode;
  const C invalid = C::kInvalidArgument;
  auto ik = [](Request& r) {
    auto* g = r.mutable_set_ik_goal();
    g->set_character_id(1);
    g->set_root_joint("shoulder_r");
    g->set_effector_joint("hand_r");
    return g;
  };
  return {
      {"no command", [](Request&) {}, C::kUnimplemented, "the world does not handle this request"},
      {"an asset request", [](Request& r) { r.mutable_list_assets(); }, C::kUnimplemented,
       "the world does not handle this request"},
      {"spawn root NaN",
       [](Request& r) { r.mutable_spawn()->mutable_root()->mutable_translation()->set_x(kNan); },
       invalid, "spawn.root.translation.x is NaN"},
      {"spawn rotation near zero",
       [](Request& r) { r.mutable_spawn()->mutable_root()->mutable_rotation()->set_y(1e-7f); },
       invalid, "spawn.root.rotation has near-zero length"},
      {"spawn scale zero",
       [](Request& r) {
         auto* s = r.mutable_spawn()->mutable_root()->mutable_scale();
         s->set_x(1.0f);
         s->set_z(1.0f);
       },
       invalid, "spawn.root.scale has a zero component"},
      {"spawn scale infinite",
       [](Request& r) { r.mutable_spawn()->mutable_root()->mutable_scale()->set_x(kInf); }, invalid,
       "spawn.root.scale.x is infinite"},
      {"set_root rotation infinite",
       [](Request& r) { r.mutable_set_root()->mutable_root()->mutable_rotation()->set_w(-kInf); },
       invalid, "set_root.root.rotation.w is infinite"},
      {"play speed", [](Request& r) { r.mutable_play()->set_speed(kNan); }, invalid,
       "play.speed is NaN"},
      {"play start_time", [](Request& r) { r.mutable_play()->set_start_time(kInf); }, invalid,
       "play.start_time is infinite"},
      {"crossfade duration infinite", [](Request& r) { r.mutable_crossfade()->set_duration(kInf); },
       invalid, "crossfade.duration is infinite"},
      {"crossfade duration negative",
       [](Request& r) { r.mutable_crossfade()->set_duration(-0.5f); }, invalid,
       "crossfade.duration is negative"},
      {"crossfade speed", [](Request& r) { r.mutable_crossfade()->set_speed(kNan); }, invalid,
       "crossfade.speed is NaN"},
      {"set_speed", [](Request& r) { r.mutable_set_speed()->set_speed(kInf); }, invalid,
       "set_speed.speed is infinite"},
      {"add_layer reference_time",
       [](Request& r) { r.mutable_add_layer()->set_reference_time(kNan); }, invalid,
       "add_layer.reference_time is NaN"},
      {"add_layer weight", [](Request& r) { r.mutable_add_layer()->set_weight(1.5f); }, invalid,
       "add_layer.weight = 1.500000 is outside [0.000000, 1.000000]"},
      {"add_layer speed", [](Request& r) { r.mutable_add_layer()->set_speed(-kInf); }, invalid,
       "add_layer.speed is infinite"},
      {"add_layer parameter", [](Request& r) { r.mutable_add_layer()->set_parameter(-0.5f); },
       invalid, "add_layer.parameter = -0.500000 is outside [0.000000, 1.000000]"},
      {"add_layer time_source",
       [](Request& r) {
         r.mutable_add_layer()->set_time_source(static_cast<anim::v1::LayerTimeSource>(7));
       },
       invalid, "add_layer.time_source has an unknown value"},
      {"add_layer mask weight",
       [](Request& r) {
         (*r.mutable_add_layer()->mutable_mask()->mutable_joint_weights())["spine"] = 2.0f;
       },
       invalid, "add_layer.mask.joint_weights['spine'] = 2.000000 is outside [0.000000, 1.000000]"},
      {"update_layer weight", [](Request& r) { r.mutable_update_layer()->set_weight(kNan); },
       invalid, "update_layer.weight is NaN"},
      {"update_layer speed", [](Request& r) { r.mutable_update_layer()->set_speed(kInf); }, invalid,
       "update_layer.speed is infinite"},
      {"update_layer parameter", [](Request& r) { r.mutable_update_layer()->set_parameter(3.0f); },
       invalid, "update_layer.parameter = 3.000000 is outside [0.000000, 1.000000]"},
      {"ik target", [=](Request& r) { ik(r)->mutable_target()->set_z(kNan); }, invalid,
       "set_ik_goal.target.z is NaN"},
      {"ik weight", [=](Request& r) { ik(r)->set_weight(2.0f); }, invalid,
       "set_ik_goal.weight = 2.000000 is outside [0.000000, 1.000000]"},
      {"moving a goal: weight",
       [=](Request& r) {
         ik(r)->set_goal_id(3);
         r.mutable_set_ik_goal()->set_weight(-1.0f);
       },
       invalid, "set_ik_goal.weight = -1.000000 is outside [0.000000, 1.000000]"},
      {"ik solver", [=](Request& r) { ik(r)->set_solver(static_cast<anim::v1::IkSolver>(9)); },
       invalid, "set_ik_goal.solver has an unknown value"},
      {"ik space", [=](Request& r) { ik(r)->set_space(static_cast<anim::v1::Space>(5)); }, invalid,
       "set_ik_goal.space has an unknown value"},
      {"ik pole", [=](Request& r) { ik(r)->mutable_pole()->set_y(kInf); }, invalid,
       "set_ik_goal.pole.y is infinite"},
      {"ik soften", [=](Request& r) { ik(r)->set_soften(1.5f); }, invalid,
       "set_ik_goal.soften = 1.500000 is outside [0.000000, 1.000000]"},
      {"ik iterations", [=](Request& r) { ik(r)->set_max_iterations(1001); }, invalid,
       "set_ik_goal.max_iterations 1001 is above 1000"},
      {"ik tolerance NaN", [=](Request& r) { ik(r)->set_tolerance(kNan); }, invalid,
       "set_ik_goal.tolerance is NaN"},
      {"ik tolerance negative", [=](Request& r) { ik(r)->set_tolerance(-1.0f); }, invalid,
       "set_ik_goal.tolerance is negative"},
      {"ik joint weight",
       [=](Request& r) {
         ik(r)->add_joint_weights(1.0f);
         r.mutable_set_ik_goal()->add_joint_weights(2.0f);
       },
       invalid, "set_ik_goal.joint_weights[1] = 2.000000 is outside [0.000000, 1.000000]"},
      {"ik cone",
       [=](Request& r) {
         auto* c = ik(r)->add_constraints();
         c->set_joint("forearm_r");
         c->mutable_ball_socket()->set_cone_angle(4.0f);
       },
       invalid,
       "set_ik_goal.constraints[0].ball_socket.cone_angle = 4.000000 is outside [0.000000, "
       "3.141593]"},
      {"ik hinge axis zero",
       [=](Request& r) { ik(r)->add_constraints()->mutable_hinge()->mutable_axis(); }, invalid,
       "set_ik_goal.constraints[0].hinge.axis is zero"},
      {"ik hinge axis NaN",
       [=](Request& r) { ik(r)->add_constraints()->mutable_hinge()->mutable_axis()->set_x(kNan); },
       invalid, "set_ik_goal.constraints[0].hinge.axis.x is NaN"},
      {"ik hinge min angle",
       [=](Request& r) {
         auto* h = ik(r)->add_constraints()->mutable_hinge();
         h->mutable_axis()->set_x(1.0f);
         h->set_min_angle(kNan);
       },
       invalid, "set_ik_goal.constraints[0].hinge.min_angle is NaN"},
      {"ik hinge max angle",
       [=](Request& r) {
         auto* h = ik(r)->add_constraints()->mutable_hinge();
         h->mutable_axis()->set_x(1.0f);
         h->set_max_angle(kInf);
       },
       invalid, "set_ik_goal.constraints[0].hinge.max_angle is infinite"},
      {"ik hinge min above max",
       [=](Request& r) {
         ik(r)->add_constraints()->mutable_ball_socket()->set_cone_angle(1.0f);
         auto* h = r.mutable_set_ik_goal()->add_constraints()->mutable_hinge();
         h->mutable_axis()->set_x(1.0f);
         h->set_min_angle(0.5f);
         h->set_max_angle(0.25f);
       },
       invalid, "set_ik_goal.constraints[1].hinge.min_angle is above max_angle"},
      {"ik constraint without kind",
       [=](Request& r) { ik(r)->add_constraints()->set_joint("forearm_r"); }, invalid,
       "set_ik_goal.constraints[0] has neither ball_socket nor hinge"},
      {"query_pose space",
       [](Request& r) { r.mutable_query_pose()->set_space(static_cast<anim::v1::Space>(3)); },
       invalid, "query_pose.space has an unknown value"},
      {"subscribe to nothing", [](Request& r) { r.mutable_subscribe()->set_rate_divisor(2); },
       invalid, "subscribe: give character_ids, set all_characters or give a region"},
      {"subscribe two ways",
       [](Request& r) {
         r.mutable_subscribe()->set_all_characters(true);
         r.mutable_subscribe()->mutable_region()->mutable_sphere()->set_radius(1.0f);
       },
       invalid, "subscribe: give only one of character_ids, all_characters and region"},
      {"region without shape",
       [](Request& r) { r.mutable_subscribe()->mutable_region()->set_outer_margin(1.0f); }, invalid,
       "subscribe.region: give a sphere or a box"},
      {"region radius 0",
       [](Request& r) { r.mutable_subscribe()->mutable_region()->mutable_sphere(); }, invalid,
       "subscribe.region.sphere.radius must be > 0 and <= 1e18"},
      {"region radius huge",
       [](Request& r) {
         r.mutable_subscribe()->mutable_region()->mutable_sphere()->set_radius(2e18f);
       },
       invalid, "subscribe.region.sphere.radius must be > 0 and <= 1e18"},
      {"region centre NaN",
       [](Request& r) {
         auto* s = r.mutable_subscribe()->mutable_region()->mutable_sphere();
         s->set_radius(1.0f);
         s->mutable_center()->set_y(std::nanf(""));
       },
       invalid, "subscribe.region.sphere.center.y is NaN"},
      {"region box inside out",
       [](Request& r) {
         auto* b = r.mutable_subscribe()->mutable_region()->mutable_box();
         b->mutable_min()->set_x(2.0f);
         b->mutable_max()->set_x(1.0f);
       },
       invalid, "subscribe.region.box: min must be <= max on every axis"},
      {"region margin without divisor",
       [](Request& r) {
         auto* g = r.mutable_subscribe()->mutable_region();
         g->mutable_sphere()->set_radius(1.0f);
         g->set_outer_margin(2.0f);
       },
       invalid, "subscribe.region.outer_rate_divisor must be >= 2 with an outer_margin"},
      {"region negative margin",
       [](Request& r) {
         auto* g = r.mutable_subscribe()->mutable_region();
         g->mutable_sphere()->set_radius(1.0f);
         g->set_outer_margin(-1.0f);
       },
       invalid, "subscribe.region.outer_margin must be >= 0 and <= 1e18"},
      {"blend space without name",
       [](Request& r) { r.mutable_define_blend_space()->add_axes("speed"); }, invalid,
       "define_blend_space.name is empty"},
      {"blend space with three axes",
       [](Request& r) {
         auto* d = r.mutable_define_blend_space();
         d->set_name("m");
         for (const char* a : {"a", "b", "c"}) d->add_axes(a);
       },
       invalid, "define_blend_space.axes has 3 names; a blend space has 1 or 2 axes"},
      {"blend space empty axis",
       [](Request& r) {
         auto* d = r.mutable_define_blend_space();
         d->set_name("m");
         d->add_axes("");
       },
       invalid, "define_blend_space.axes[0] is empty"},
      {"blend space sample NaN",
       [](Request& r) {
         auto* d = r.mutable_define_blend_space();
         d->set_name("m");
         d->add_axes("speed");
         d->add_samples()->set_clip("idle");
         auto* s = d->add_samples();
         s->set_clip("walk");
         s->set_x(std::nanf(""));
       },
       invalid, "define_blend_space.samples[1].x is NaN"},
      {"blend space sample far",
       [](Request& r) {
         auto* d = r.mutable_define_blend_space();
         d->set_name("m");
         d->add_axes("speed");
         auto* s = d->add_samples();
         s->set_clip("walk");
         s->set_y(2e6f);
       },
       invalid, "define_blend_space.samples[0].y is beyond +-1000000.000000"},
      {"blend space sample without clip",
       [](Request& r) {
         auto* d = r.mutable_define_blend_space();
         d->set_name("m");
         d->add_axes("speed");
         d->add_samples();
       },
       invalid, "define_blend_space.samples[0].clip is empty"},
      {"blend space too many samples",
       [](Request& r) {
         auto* d = r.mutable_define_blend_space();
         d->set_name("m");
         d->add_axes("speed");
         for (int i = 0; i < 65; ++i) d->add_samples()->set_clip("walk");
       },
       anim::StatusCode::kResourceExhausted,
       "define_blend_space.samples has 65 samples, more than 64"},
      {"parameter without name", [](Request& r) { r.mutable_set_parameter(); }, invalid,
       "set_parameter.name is empty"},
      {"parameter NaN",
       [](Request& r) {
         r.mutable_set_parameter()->set_name("speed");
         r.mutable_set_parameter()->set_value(std::nanf(""));
       },
       invalid, "set_parameter.value is NaN"},
      {"parameter smoothing negative",
       [](Request& r) {
         r.mutable_set_parameter()->set_name("speed");
         r.mutable_set_parameter()->set_smoothing(-1.0f);
       },
       invalid, "set_parameter.smoothing is negative"},
      {"parameter smoothing infinite",
       [](Request& r) {
         r.mutable_set_parameter()->set_name("speed");
         r.mutable_set_parameter()->set_smoothing(INFINITY);
       },
       invalid, "set_parameter.smoothing is infinite"},
      {"event time NaN",
       [](Request& r) {
         auto* e = r.mutable_add_clip_events()->add_events();
         e->set_name("step");
         e->set_time(kNan);
       },
       invalid, "add_clip_events.events[0].time is NaN"},
      {"event time negative",
       [](Request& r) {
         r.mutable_add_clip_events()->add_events()->set_name("a");
         auto* e = r.mutable_add_clip_events()->add_events();
         e->set_name("step");
         e->set_time(-0.5f);
       },
       invalid, "add_clip_events.events[1].time is negative"},
      {"event without a name",
       [](Request& r) { r.mutable_add_clip_events()->add_events()->set_time(0.5f); }, invalid,
       "add_clip_events.events[0].name is empty"},
      {"event payload too long",
       [](Request& r) {
         auto* e = r.mutable_add_clip_events()->add_events();
         e->set_name("step");
         e->set_payload(std::string(4097, 'p'));
       },
       invalid, "add_clip_events.events[0].payload is longer than 4096 bytes"},
      {"too many events",
       [](Request& r) {
         for (int i = 0; i < 1025; ++i) r.mutable_add_clip_events()->add_events()->set_name("e");
       },
       C::kResourceExhausted,
       "add_clip_events.events has 1025 events, more than 1024 (a clip's limit)"},
      {"event weight above 1",
       [](Request& r) {
         r.mutable_subscribe()->set_all_characters(true);
         r.mutable_subscribe()->mutable_events()->set_enabled(true);
         r.mutable_subscribe()->mutable_events()->set_min_weight(1.5f);
       },
       invalid, "subscribe.events.min_weight = 1.500000 is outside [0.000000, 1.000000]"},
      {"root motion unknown mode",
       [](Request& r) {
         r.mutable_set_root_motion()->set_character_id(1);
         r.mutable_set_root_motion()->set_mode(static_cast<anim::v1::RootMotionMode>(9));
       },
       invalid,
       "set_root_motion.mode has an unknown value 9 (ROOT_MOTION_OFF = 0, ROOT_MOTION_EXTRACT = "
       "1)"},
  };
}

TEST(RequestConvert, EveryMalformedRequestIsRefusedWithItsCodeAndMessage) {
  for (const auto& c : bad_cases()) {
    Request r;
    r.set_request_id(5);
    c.make(r);
    const auto converted = to_world_request(r);
    ASSERT_FALSE(converted) << c.what << ": accepted";
    EXPECT_EQ(converted.error().code(), c.code) << c.what;
    EXPECT_EQ(converted.error().message(), c.message) << c.what;
  }
}

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

}  // namespace
}  // namespace animd
