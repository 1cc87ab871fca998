// The edge between the wire and the World, its refusals: every malformed request is refused
// with its code and message (the ones the daemon has always given; clients and docs quote
// them). Good requests and replies: request_convert_test.cpp.
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "protocol/request_convert.h"
#include "session/command_table.h"

namespace animd {
namespace request_convert_refusals_test {

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
      {"add_layer machine with a clip",
       [](Request& r) {
         r.mutable_add_layer()->set_state_machine("loco");
         r.mutable_add_layer()->set_clip("walk");
       },
       invalid,
       "add_layer.clip: a machine layer ('loco') plays its machine's states; leave clip empty"},
      {"add_layer machine on the base's clock",
       [](Request& r) {
         r.mutable_add_layer()->set_state_machine("loco");
         r.mutable_add_layer()->set_time_source(anim::v1::LAYER_TIME_BASE_NORMALIZED);
       },
       invalid,
       "add_layer.time_source: a machine layer runs on its own clock (LAYER_TIME_OWN_CLOCK)"},
      {"add_layer state without a machine",
       [](Request& r) { r.mutable_add_layer()->set_state("walk"); }, invalid,
       "add_layer.state: given without a state_machine"},
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
       invalid, "define_blend_space.axes has 3 names, more than 2 (a blend space has 1 or 2 axes)"},
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
       "define_blend_space.samples has 65 samples, more than 64 (a blend space's limit)"},
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
      {"blend space without axes",
       [](Request& r) { r.mutable_define_blend_space()->set_name("m"); }, invalid,
       "define_blend_space.axes has 0 names; a blend space has 1 or 2 axes"},
      {"query_pose joint named twice",
       [](Request& r) {
         for (const char* j : {"head", "hand_l", "head"})
           r.mutable_query_pose()->add_joint_names(j);
       },
       invalid, "query_pose.joint_names[2]: joint 'head' is already asked for by joint_names[0]"},
      {"query_pose joint index twice",
       [](Request& r) {
         for (uint32_t j : {4u, 4u}) r.mutable_query_pose()->add_joint_indices(j);
       },
       invalid, "query_pose.joint_indices[1]: joint 4 is already asked for by joint_indices[0]"},
      {"query_pose too many joint indices",
       [](Request& r) { r.mutable_query_pose()->mutable_joint_indices()->Resize(1025, 0u); },
       invalid,
       "query_pose.joint_indices has 1025 indices, more than 1024 (a skeleton's joint limit)"},
      {"ik too many joint weights",
       [=](Request& r) {
         for (int i = 0; i < 33; ++i) ik(r)->add_joint_weights(0.5f);
       },
       invalid,
       "set_ik_goal.joint_weights has 33 values, more than 32 (an IK chain's joint limit)"},
      {"subscribe to too many ids",
       [](Request& r) {
         for (uint32_t i = 1; i <= 16385; ++i) r.mutable_subscribe()->add_character_ids(i);
       },
       C::kResourceExhausted,
       "subscribe.character_ids has 16385 ids, more than 16384 (larger sets: all_characters or a "
       "region)"},
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

}  // namespace request_convert_refusals_test
}  // namespace animd
