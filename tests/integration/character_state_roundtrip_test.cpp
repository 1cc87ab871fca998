// Saving and restoring characters through real daemons on loopback (docs/protocol.md, "Saving
// and restoring characters"): a character exported from one daemon and imported into another
// goes on from the pose it had (its stream continues on the new daemon); and every way an
// import can be wrong (a newer version, an unknown asset, another fingerprint, a blend space or
// state machine the target lacks, corrupt values, too many layers) is refused with the reason
// named, and makes nothing.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include <gtest/gtest.h>

#include "integration_support.h"

namespace animtest {
namespace character_state_roundtrip_test {

using anim::v1::Request;

uint32_t spawn(animclient::Client& c, const std::string& clip) {
  Request r;
  r.mutable_spawn()->set_asset("builtin");
  r.mutable_spawn()->set_clip(clip);
  return call_ok(c, r).spawn().character_id();
}

Request crossfade(uint32_t id, const std::string& clip, float duration) {
  Request r;
  r.mutable_crossfade()->set_character_id(id);
  r.mutable_crossfade()->set_clip(clip);
  r.mutable_crossfade()->set_duration(duration);
  return r;
}

Request define_move() {
  Request r;
  auto* d = r.mutable_define_blend_space();
  d->set_asset("builtin");
  d->set_name("move");
  d->add_axes("speed");
  const std::pair<const char*, float> samples[] = {{"idle", 0.0f}, {"walk", 1.4f}, {"run", 3.0f}};
  for (const auto& [clip, x] : samples) {
    auto* s = d->add_samples();
    s->set_clip(clip);
    s->set_x(x);
  }
  return r;
}

Request define_upper() {
  Request r;
  r.mutable_define_state_machine()->set_asset("builtin");
  auto* m = r.mutable_define_state_machine()->mutable_machine();
  m->set_name("upper");
  auto* rest = m->add_states();
  rest->set_name("rest");
  rest->set_motion("idle");
  auto* waving = m->add_states();
  waving->set_name("waving");
  waving->set_motion("wave");
  auto* t = m->add_transitions();
  t->set_from("rest");
  t->set_to("waving");
  t->set_duration(0.2f);
  auto* c = t->add_conditions();
  c->set_parameter("wave");
  c->set_op(anim::v1::CONDITION_TRIGGER);
  return r;
}

anim::v1::CharacterState export_one(animclient::Client& c, uint32_t id, uint64_t* tick = nullptr) {
  Request r;
  r.mutable_export_characters()->add_character_ids(id);
  const auto reply = call_ok(c, r);
  if (tick) *tick = reply.tick();
  EXPECT_EQ(reply.export_characters().states_size(), 1);
  return reply.export_characters().states_size() > 0 ? reply.export_characters().states(0)
                                                     : anim::v1::CharacterState{};
}

Request import_of(const anim::v1::CharacterState& state) {
  Request r;
  *r.mutable_import_characters()->add_states() = state;
  return r;
}

int characters(animclient::Client& c) {
  Request r;
  r.mutable_list_characters();
  return call_ok(c, r).list_characters().characters_size();
}

float max_difference(const anim::v1::QueryPoseReply& a, const anim::v1::QueryPoseReply& b) {
  EXPECT_EQ(a.palette_size(), b.palette_size());
  float worst = 0.0f;
  for (int i = 0; i < std::min(a.palette_size(), b.palette_size()); ++i)
    worst = std::max(worst, std::abs(a.palette(i) - b.palette(i)));
  return worst;
}

TEST(CharacterState, AnExportedCharacterGoesOnOnAnotherDaemon) {
  DaemonProcess first({"--history-seconds", "5"}), second({"--history-seconds", "5"});
  ANIMD_START(first);
  ANIMD_START(second);
  auto a = connect_client(first);
  auto b = connect_client(second);
  ASSERT_TRUE(a && b);
  const uint32_t id = spawn(*a, "walk");
  Request lean;
  lean.mutable_add_layer()->set_character_id(id);
  lean.mutable_add_layer()->set_clip("lean");
  lean.mutable_add_layer()->set_weight(0.5f);
  call_ok(*a, lean);
  Request goal;
  auto* g = goal.mutable_set_ik_goal();
  g->set_character_id(id);
  g->set_root_joint("upper_arm_l");
  g->set_effector_joint("hand_l");
  g->set_solver(anim::v1::IK_SOLVER_TWO_BONE);
  g->mutable_target()->set_x(0.4f);
  g->mutable_target()->set_y(1.2f);
  g->mutable_target()->set_z(0.3f);
  call_ok(*a, goal);
  call_ok(*a, crossfade(id, "run", 1.0f));

  uint64_t exported_at = 0;
  const anim::v1::CharacterState state = export_one(*a, id, &exported_at);
  EXPECT_EQ(state.asset(), "builtin");
  EXPECT_EQ(state.character_id(), id);
  EXPECT_EQ(state.animator().main().fades_size(), 1);  // mid-fade

  const auto imported = call_ok(*b, import_of(state));
  ASSERT_EQ(imported.import_characters().character_ids_size(), 1);
  const uint32_t copy = imported.import_characters().character_ids(0);
  const uint64_t imported_at = imported.tick();
  Request sub;
  sub.mutable_subscribe()->add_character_ids(copy);
  const uint32_t subscription = call_ok(*b, sub).subscribe().subscription_id();
  const auto frames = collect_frames(*b, subscription, imported_at + 10);
  ASSERT_FALSE(frames.empty());

  // The copy's first pose is the original's pose at the export tick, but for the tick's dt
  // (each daemon's clock gives its own tick the float nearest the exact time).
  const auto original = pose_at(*a, id, exported_at);
  const auto restored = pose_at(*b, copy, imported_at);
  EXPECT_LT(max_difference(original, restored), 1e-4f);
  // It keeps going: the fade completes and the stream carries it.
  EXPECT_GT(expect_history_matches_stream(*b, copy, frames), 0);
  const auto later = pose_at(*b, copy, frames.rbegin()->first);
  EXPECT_GT(max_difference(restored, later), 1e-4f);
  // The same fingerprint on both daemons, as list_assets shows it.
  Request list;
  list.mutable_list_assets();
  EXPECT_EQ(call_ok(*a, list).list_assets().assets(0).fingerprint(), state.asset_fingerprint());
  EXPECT_EQ(call_ok(*b, list).list_assets().assets(0).fingerprint(), state.asset_fingerprint());
}

TEST(CharacterState, RefusedImportsNameTheReasonAndMakeNothing) {
  DaemonProcess first, second;
  ANIMD_START(first);
  ANIMD_START(second);
  auto a = connect_client(first);
  auto b = connect_client(second);
  ASSERT_TRUE(a && b);
  call_ok(*a, define_move());
  call_ok(*a, define_upper());
  const uint32_t id = spawn(*a, "walk");
  Request param;
  param.mutable_set_parameter()->set_character_id(id);
  param.mutable_set_parameter()->set_name("speed");
  param.mutable_set_parameter()->set_value(2.0f);
  call_ok(*a, param);
  call_ok(*a, crossfade(id, "move", 0.5f));
  Request machine;
  machine.mutable_add_layer()->set_character_id(id);
  machine.mutable_add_layer()->set_blend(anim::v1::LAYER_BLEND_OVERRIDE);
  machine.mutable_add_layer()->set_state_machine("upper");
  call_ok(*a, machine);
  const anim::v1::CharacterState good = export_one(*a, id);
  const int before = characters(*b);

  using anim::v1::STATUS_FAILED_PRECONDITION;
  using anim::v1::STATUS_INVALID_ARGUMENT;
  using anim::v1::STATUS_NOT_FOUND;
  // B lacks the blend space, then the machine.
  expect_status(*b, import_of(good), STATUS_FAILED_PRECONDITION,
                "import_characters.states[0].blend_spaces[0]: asset 'builtin' has no blend "
                "space 'move' here");
  call_ok(*b, define_move());
  expect_status(*b, import_of(good), STATUS_FAILED_PRECONDITION,
                "import_characters.states[0].animator.layers[0].machine_driver.machine: asset "
                "'builtin' has no state machine named 'upper' here");
  call_ok(*b, define_upper());

  anim::v1::CharacterState bad = good;
  bad.set_version(2);
  expect_status(*b, import_of(bad), STATUS_FAILED_PRECONDITION,
                "import_characters.states[0].version 2 is newer than this daemon's (1)");
  bad = good;
  bad.set_asset("Fox");
  expect_status(*b, import_of(bad), STATUS_NOT_FOUND, "unknown asset 'Fox'");
  bad = good;
  bad.set_asset_fingerprint(good.asset_fingerprint() + 1);
  expect_status(*b, import_of(bad), STATUS_FAILED_PRECONDITION,
                "import_characters.states[0].asset_fingerprint: asset 'builtin' here is 0x");
  bad = good;
  bad.mutable_animator()->mutable_main()->mutable_base()->set_time(std::nanf(""));
  expect_status(*b, import_of(bad), STATUS_INVALID_ARGUMENT,
                "restore_state: main.base.time: is NaN or infinite");
  bad = good;
  bad.mutable_animator()->mutable_main()->mutable_fades(0)->mutable_player()->set_clip(1000);
  bad.mutable_animator()->mutable_main()->mutable_fades(0)->mutable_player()->set_space(-1);
  expect_status(*b, import_of(bad), STATUS_INVALID_ARGUMENT, "main.fades[0].player.clip");
  bad = good;
  for (int i = 0; i < 17; ++i) bad.mutable_animator()->add_layers()->set_id(100 + i);
  expect_status(*b, import_of(bad), STATUS_INVALID_ARGUMENT,
                "import_characters.states.animator.layers has 18 layers, more than 16");
  // A good state beside a bad one: neither goes in.
  Request both = import_of(good);
  bad = good;
  bad.mutable_animator()->set_speed(std::numeric_limits<float>::infinity());
  *both.mutable_import_characters()->add_states() = bad;
  expect_status(*b, both, STATUS_INVALID_ARGUMENT, "import_characters.states[1].animator");
  EXPECT_EQ(characters(*b), before);

  // Fixed, it goes in; the copy is driven like any character.
  const auto ok = call_ok(*b, import_of(good));
  ASSERT_EQ(ok.import_characters().character_ids_size(), 1);
  EXPECT_EQ(characters(*b), before + 1);
  Request trigger;
  trigger.mutable_set_trigger()->set_character_id(ok.import_characters().character_ids(0));
  trigger.mutable_set_trigger()->set_name("wave");
  call_ok(*b, trigger);
}

}  // namespace character_state_roundtrip_test
}  // namespace animtest
