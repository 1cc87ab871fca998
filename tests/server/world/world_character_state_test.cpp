// Saving and restoring characters at the World (world_state.cpp, character_state_convert.h):
// a character driven through crossfades (synced), additive and override layers, a montage
// with sections, a blend space on a smoothed parameter, a machine layer with a trigger, two-bone
// and FABRIK goals, aim and foot IK, a held pose blending out and root motion is exported in
// the middle of a fade, sent through its wire form, imported into a second World, and both
// then run the same commands with the same dt for 300 ticks: every palette and root is equal
// bit for bit. The wire form is stable (through it twice: the same bytes), and an import
// refused for any reason makes nothing.
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "anim/loaders/builtin_character.h"
#include "anim/loaders/gltf_loader.h"
#include "assets/asset_fingerprint.h"
#include "protocol/character_state_convert.h"
#include "shared_assets.h"
#include "world/world.h"

namespace animd {
namespace world_character_state_test {

constexpr float kDt = 1.0f / 60.0f;

// One daemon's World, with its own settings and counters.
struct Side {
  explicit Side(std::shared_ptr<anim::Asset> asset) {
    metrics.float_subscriptions = 1;  // the snapshots carry palettes
    world = std::make_unique<World>(config, metrics, catalog, pool);
    EXPECT_TRUE(world->add_asset(std::move(asset)));
  }
  anim::Expected<WorldResult> run(const WorldRequest& r) {
    return world->execute(r, Caller{1, 0}, tick, double(tick) * kDt);
  }
  void must(const WorldRequest& r, const char* what) {
    auto result = run(r);
    ASSERT_TRUE(result) << what << ": " << result.error().message();
  }
  uint32_t must_id(const WorldRequest& r, const char* what) {
    auto result = run(r);
    EXPECT_TRUE(result) << what << ": " << result.error().message();
    if (!result) return 0;
    if (auto* s = std::get_if<Spawned>(&*result)) return s->character_id;
    if (auto* l = std::get_if<LayerAdded>(&*result)) return l->layer_id;
    if (auto* g = std::get_if<IkGoalSet>(&*result)) return g->goal_id;
    ADD_FAILURE() << what << ": no id in the answer";
    return 0;
  }
  // Ends the current tick: the update, then the next tick's commands may come.
  SnapshotPtr step() {
    SnapshotPtr snap = world->update(kDt, tick, double(tick) * kDt, false);
    ++tick;
    return snap;
  }

  Config config;
  Metrics metrics;
  AssetCatalog catalog;
  WorkerPool pool{1};
  std::unique_ptr<World> world;
  uint64_t tick = 1;
};

// The character's palette and root in a snapshot, as bytes.
std::string pose_bytes(const Snapshot& snap, uint32_t id) {
  const SnapshotCharacter* sc = snap.find(id);
  if (!sc) return "";
  std::string out(reinterpret_cast<const char*>(&sc->root), sizeof sc->root);
  out.append(reinterpret_cast<const char*>(snap.palettes.data() + sc->palette_offset),
             sc->num_joints * sizeof(anim::PaletteMatrix));
  out.append(reinterpret_cast<const char*>(snap.morphs.data() + sc->morph_offset),
             sc->num_morphs * sizeof(float));
  return out;
}

anim::v1::CharacterState exported(Side& side, uint32_t id) {
  auto result = side.run(ExportCharacters{{id}});
  EXPECT_TRUE(result) << result.error().message();
  anim::v1::CharacterState out;
  if (!result) return out;
  const auto& states = std::get<CharactersExported>(*result).characters;
  EXPECT_EQ(states.size(), 1u);
  if (!states.empty()) to_proto(states[0], &out);
  return out;
}

anim::Expected<WorldResult> import(Side& side, const std::vector<anim::v1::CharacterState>& in) {
  ImportCharacters r;
  for (size_t i = 0; i < in.size(); ++i) {
    auto saved = from_proto(in[i], "states[" + std::to_string(i) + "]");
    if (!saved) return saved.error();
    r.characters.push_back(std::move(*saved));
  }
  return side.run(r);
}

// The definitions both daemons hold for the built-in character.
void define_builtin(Side& side) {
  side.must(
      DefineBlendSpace{"builtin",
                       "move",
                       {"speed"},
                       {{"idle", {0.0f, 0.0f}}, {"walk", {1.4f, 0.0f}}, {"run", {3.0f, 0.0f}}},
                       false},
      "define_blend_space");
  anim::StateMachineDesc m;
  m.name = "upper";
  m.states.resize(2);
  m.states[0].name = "rest";
  m.states[0].motion = "idle";
  m.states[1].name = "waving";
  m.states[1].motion = "wave";
  anim::TransitionDesc go;
  go.from = "rest";
  go.to = "waving";
  go.duration = 0.25f;
  go.conditions.push_back(anim::ConditionDesc{"wave", anim::ConditionOp::kTrigger, 0.0f});
  anim::TransitionDesc back;
  back.from = "waving";
  back.to = "rest";
  back.duration = 0.3f;
  back.exit_time = 0.9f;
  m.transitions = {go, back};
  side.must(DefineStateMachine{"builtin", m}, "define_state_machine");
}

struct Ids {
  uint32_t character = 0, slot = 0, wave = 0, machine = 0, two_bone = 0, fabrik = 0;
};

// The built-in character's whole set-up, on one side at its current tick.
Ids set_up_builtin(Side& s) {
  Ids ids;
  ids.character = s.must_id(SpawnCharacter{"builtin", "walk", {}, false}, "spawn");
  const uint32_t c = ids.character;
  s.must(SetRootMotion{c, anim::RootMotionMode::kExtract, "", false}, "set_root_motion");
  AddLayer lean;
  lean.character = c;
  lean.clip = "lean";
  lean.weight = 0.5f;
  lean.time_source = anim::LayerTimeSource::kBaseNormalized;
  s.must_id(lean, "add_layer lean");
  AddLayer wave;
  wave.character = c;
  wave.clip = "wave";
  wave.blend = anim::LayerBlend::kOverride;
  wave.weight = 0.6f;
  wave.mask.blend_root = "shoulder_r";
  ids.wave = s.must_id(wave, "add_layer wave");
  AddLayer slot;
  slot.character = c;
  slot.blend = anim::LayerBlend::kOverride;
  slot.mask.blend_root = "spine";
  ids.slot = s.must_id(slot, "add_layer slot");
  AddLayer machine;
  machine.character = c;
  machine.blend = anim::LayerBlend::kOverride;
  machine.state_machine = "upper";
  machine.weight = 0.8f;
  machine.mask.blend_root = "shoulder_l";
  ids.machine = s.must_id(machine, "add_layer machine");
  s.must(SetParameter{c, "speed", 0.4f, 0.3f}, "set_parameter");
  SetIkGoal arm;
  arm.character = c;
  arm.root_joint = "upper_arm_l";
  arm.effector_joint = "hand_l";
  arm.solver = anim::IkSolver::kTwoBone;
  arm.target = {0.45f, 1.1f, 0.35f};
  arm.pole = glm::vec3(0.5f, 1.0f, -1.0f);
  arm.weight = 0.9f;
  ids.two_bone = s.must_id(arm, "set_ik_goal two-bone");
  SetIkGoal reach;
  reach.character = c;
  reach.root_joint = "shoulder_r";
  reach.effector_joint = "hand_r";
  reach.solver = anim::IkSolver::kFabrik;
  reach.space = anim::IkSpace::kWorld;
  reach.target = {-0.5f, 1.2f, 0.4f};
  reach.weight = 0.7f;
  reach.max_iterations = 12;
  ids.fabrik = s.must_id(reach, "set_ik_goal fabrik");
  anim::AimIkDesc aim;
  aim.root_joint = "chest";
  aim.end_joint = "head";
  aim.target = {1.0f, 1.6f, 2.0f};
  aim.weight = 0.8f;
  aim.has_pole = true;
  s.must(SetAimIk{c, aim}, "set_aim_ik");
  s.must(SetFootIk{c, anim::FootIkDesc{}}, "set_foot_ik");
  anim::GroundDesc ground;
  ground.point = {0.0f, 0.02f, 0.0f};
  ground.normal = glm::normalize(glm::vec3(0.1f, 1.0f, 0.05f));
  s.must(SetGround{c, ground, 0.9f}, "set_ground");
  // A held pose: the rest pose with the head turned, blending out over half a second.
  const anim::Asset& a = *s.catalog.get()->at("builtin");
  std::vector<anim::Transform> held = a.skeleton.rest_pose;
  held[static_cast<size_t>(a.skeleton.find_joint("head"))].rotation =
      glm::angleAxis(0.6f, glm::vec3(0.0f, 1.0f, 0.0f));
  s.must(SetPose{c, held}, "set_pose");
  return ids;
}

// What happens at step k of the scenario (k counts ticks from the spawn; both sides run the
// same steps after the import).
void drive_builtin(Side& s, const Ids& ids, int k, float jump_duration) {
  const uint32_t c = ids.character;
  switch (k) {
    case 2:
      s.must(BlendOutPose{c, 0.5f}, "blend_out_pose");
      break;
    case 5:
      s.must(CrossfadeClip{c, "run", 0.3f, true, 1.0f, true, false, anim::BlendCurve::kLinear},
             "crossfade run");
      break;
    case 10:
      s.must(PlayMontage{c,
                         ids.slot,
                         "jump",
                         1.0f,
                         0.1f,
                         0.2f,
                         0.0f,
                         {{"start", 0.0f, "loop"}, {"loop", 0.4f * jump_duration, "loop"}}},
             "play_montage");
      break;
    case 15:
      s.must(SetParameter{c, "speed", 2.2f, 0.5f}, "set_parameter");
      s.must(CrossfadeClip{c, "move", 0.4f, true, 1.0f, true, false, anim::BlendCurve::kLinear},
             "crossfade move");
      break;
    case 20:
      s.must(SetTrigger{c, "wave", true}, "set_trigger");
      break;
    case 30:
      s.must(
          CrossfadeClip{c, "walk", 0.5f, true, 1.0f, false, false, anim::BlendCurve::kSmoothStep},
          "crossfade walk");
      break;
    // (the export happens at step 40: mid-fade, mid-blend-out of nothing, montage looping)
    case 50:
      s.must(MoveIkGoal{c, ids.two_bone, {0.3f, 1.3f, 0.45f}, 0.6f}, "move goal");
      s.must(MoveAimTarget{c, {-1.0f, 1.5f, 2.0f}, std::nullopt}, "move aim");
      break;
    case 60:
      s.must(CrossfadeClip{c, "run", 0.25f, true, 1.2f, true, true, anim::BlendCurve::kLinear},
             "crossfade run (markers)");
      s.must(SetParameter{c, "speed", 1.0f, 0.2f}, "set_parameter");
      break;
    case 80:
      s.must(JumpToSection{c, ids.slot, "start"}, "jump_to_section");
      s.must(UpdateLayer{c, ids.wave, 0.3f, std::nullopt, std::nullopt}, "update_layer");
      break;
    case 100: {
      anim::GroundDesc g;
      g.kind = anim::GroundDesc::Kind::kFootSamples;
      g.heights = {0.03f, -0.02f};
      s.must(SetGround{c, g, std::nullopt}, "set_ground samples");
      s.must(SetTrigger{c, "wave", true}, "set_trigger");
      break;
    }
    case 130:
      s.must(StopMontage{c, ids.slot, 0.3f}, "stop_montage");
      s.must(CrossfadeClip{c, "move", 0.3f, true, 1.0f, false, false, anim::BlendCurve::kLinear},
             "crossfade move");
      break;
    case 160:
      s.must(SetCharacterSpeed{c, 0.8f}, "set_speed");
      s.must(ClearIkGoal{c, ids.fabrik}, "clear_ik_goal");
      break;
    case 200:
      s.must(PlayMontage{c, ids.slot, "wave", 1.5f, 0.2f, 0.2f, 0.0f, {}}, "play_montage");
      s.must(CrossfadeClip{c, "idle", 0.6f, true, 1.0f, false, false, anim::BlendCurve::kLinear},
             "crossfade idle");
      break;
    case 250:
      s.must(SetParameter{c, "speed", 3.0f, 0.0f}, "set_parameter");
      s.must(CrossfadeClip{c, "move", 0.2f, true, 1.0f, true, false, anim::BlendCurve::kLinear},
             "crossfade move");
      break;
    default:
      break;
  }
}

TEST(WorldCharacterState, ARestoredCopyAnimatesBitForBitForThreeHundredTicks) {
  auto make = [] { return std::make_shared<anim::Asset>(anim::make_builtin_character()); };
  Side a(make()), b(make());
  define_builtin(a);
  define_builtin(b);
  // B has a character already: the copy gets another id there.
  b.must(SpawnCharacter{"builtin", "idle", {}, true}, "spawn on B");
  const anim::Asset& asset = *a.catalog.get()->at("builtin");
  const float jump = asset.clips[static_cast<size_t>(asset.find_clip("jump"))].duration;

  const Ids on_a = set_up_builtin(a);
  constexpr int kExportStep = 40;
  for (int k = 0; k < kExportStep; ++k) {
    drive_builtin(a, on_a, k, jump);
    a.step();
  }
  // Mid-fade (step 30's half-second crossfade), the montage looping, the parameter easing.
  const anim::v1::CharacterState state = exported(a, on_a.character);
  ASSERT_GE(state.animator().main().fades_size(), 1);
  const std::string bytes = state.SerializeAsString();
  anim::v1::CharacterState sent;
  ASSERT_TRUE(sent.ParseFromString(bytes));

  auto made = import(b, {sent});
  ASSERT_TRUE(made) << made.error().message();
  Ids on_b = on_a;
  on_b.character = std::get<CharactersImported>(*made).character_ids.at(0);
  EXPECT_NE(on_b.character, on_a.character);

  // Restored exactly: B's state, exported at once, is A's.
  const anim::v1::CharacterState again = exported(b, on_b.character);
  EXPECT_EQ(again.animator().SerializeAsString(), state.animator().SerializeAsString());

  int differing = 0, moved = 0;
  std::string last;
  for (int k = kExportStep; k < kExportStep + 300; ++k) {
    drive_builtin(a, on_a, k, jump);
    drive_builtin(b, on_b, k, jump);
    const SnapshotPtr pa = a.step(), pb = b.step();
    const std::string ba = pose_bytes(*pa, on_a.character), bb = pose_bytes(*pb, on_b.character);
    ASSERT_FALSE(ba.empty());
    if (ba != bb && differing++ < 3) ADD_FAILURE() << "the poses differ at step " << k;
    moved += ba != last;
    last = ba;
  }
  EXPECT_EQ(differing, 0);
  EXPECT_EQ(moved, 300);  // every tick a new pose: the comparison is not of a still character
}

TEST(WorldCharacterState, TheWireFormIsStable) {
  Side a(std::make_shared<anim::Asset>(anim::make_builtin_character()));
  define_builtin(a);
  const Ids ids = set_up_builtin(a);
  const anim::Asset& asset = *a.catalog.get()->at("builtin");
  const float jump = asset.clips[static_cast<size_t>(asset.find_clip("jump"))].duration;
  for (int k = 0; k < 35; ++k) {
    drive_builtin(a, ids, k, jump);
    a.step();
  }
  const anim::v1::CharacterState once = exported(a, ids.character);
  auto saved = from_proto(once, "state");
  ASSERT_TRUE(saved) << saved.error().message();
  anim::v1::CharacterState twice;
  to_proto(*saved, &twice);
  EXPECT_EQ(twice.SerializeAsString(), once.SerializeAsString());
  EXPECT_EQ(once.version(), anim::kAnimatorStateVersion);
  EXPECT_EQ(once.asset_fingerprint(), asset.fingerprint);
  EXPECT_NE(asset.fingerprint, 0u);
  ASSERT_EQ(once.blend_spaces_size(), 1);
  EXPECT_EQ(once.blend_spaces(0).name(), "move");
  EXPECT_EQ(once.animator().layers(3).machine_driver().machine().name(), "upper");
  EXPECT_EQ(once.animator().layers(2).montage().sections_size(), 2);
  EXPECT_TRUE(once.animator().has_aim());
  EXPECT_TRUE(once.animator().foot_ik().has_desc());
  EXPECT_TRUE(once.animator().has_held_pose());
  EXPECT_EQ(once.animator().goals_size(), 2);
}

TEST(WorldCharacterState, ARefusedImportMakesNothing) {
  auto make = [] { return std::make_shared<anim::Asset>(anim::make_builtin_character()); };
  Side a(make()), b(make());
  define_builtin(a);
  const Ids ids = set_up_builtin(a);
  a.step();
  const anim::v1::CharacterState good = exported(a, ids.character);

  auto refused = [&](const anim::v1::CharacterState& bad, anim::StatusCode code,
                     const std::string& message) {
    const size_t before = b.world->num_characters();
    auto r = import(b, {good, bad});
    ASSERT_FALSE(r) << message;
    EXPECT_EQ(r.error().code(), code) << r.error().message();
    EXPECT_NE(r.error().message().find(message), std::string::npos) << r.error().message();
    EXPECT_EQ(b.world->num_characters(), before);
  };
  // B has neither the blend space nor the machine yet.
  refused(good, anim::StatusCode::kFailedPrecondition,
          "states[0].blend_spaces[0]: asset 'builtin' has no blend space 'move' here");
  define_builtin(b);
  anim::v1::CharacterState bad = good;
  bad.set_version(anim::kAnimatorStateVersion + 1);
  refused(bad, anim::StatusCode::kFailedPrecondition, "states[1].version 2 is newer");
  bad = good;
  bad.set_asset("fox");
  refused(bad, anim::StatusCode::kNotFound, "unknown asset 'fox'");
  bad = good;
  bad.set_asset_fingerprint(good.asset_fingerprint() ^ 1);
  refused(bad, anim::StatusCode::kFailedPrecondition,
          "states[1].asset_fingerprint: asset 'builtin'");
  bad = good;
  bad.mutable_animator()->mutable_layers(3)->mutable_machine_driver()->mutable_machine()->set_name(
      "lower");
  refused(bad, anim::StatusCode::kFailedPrecondition, "has no state machine named 'lower'");
  bad = good;
  bad.mutable_blend_spaces(0)->set_fingerprint(1);
  refused(bad, anim::StatusCode::kFailedPrecondition,
          "blend space 'move' is defined differently here");
  bad = good;
  bad.mutable_animator()->mutable_main()->mutable_base()->set_time(std::nanf(""));
  refused(bad, anim::StatusCode::kInvalidArgument, "main.base.time");
  bad = good;
  bad.mutable_animator()->mutable_main()->mutable_base()->set_clip(99);
  refused(bad, anim::StatusCode::kInvalidArgument, "main.base.clip");
  bad = good;
  bad.mutable_animator()->mutable_layers(0)->set_time_source(
      static_cast<anim::v1::LayerTimeSource>(7));
  refused(bad, anim::StatusCode::kInvalidArgument, "layers[0].time_source: has an unknown value");
  // A blend space the target has but the state does not name.
  b.must(
      DefineBlendSpace{
          "builtin", "move2", {"speed"}, {{"idle", {0.0f, 0.0f}}, {"run", {3.0f, 0.0f}}}, false},
      "define_blend_space move2");
  bad = good;
  bad.mutable_animator()->mutable_main()->mutable_base()->set_clip(-1);
  bad.mutable_animator()->mutable_main()->mutable_base()->set_space(1);
  refused(bad, anim::StatusCode::kInvalidArgument,
          "states[1].animator.main.base.space: 1 names no blend space of the state");
  // And the good one alone goes in, with the ids and weights the World keeps.
  const size_t before = b.world->num_characters();
  auto ok = import(b, {good});
  ASSERT_TRUE(ok) << ok.error().message();
  EXPECT_EQ(b.world->num_characters(), before + 1);
  const uint32_t id = std::get<CharactersImported>(*ok).character_ids.at(0);
  b.must(UpdateLayer{id, ids.wave, 0.2f, std::nullopt, std::nullopt}, "update_layer on the copy");
  b.must(MoveIkGoal{id, ids.two_bone, {0.1f, 1.0f, 0.2f}, std::nullopt}, "move goal on the copy");
}

// A real asset, when ../shared is there: crossfades, an override layer, a montage, two-bone
// IK and root motion on the glTF Fox.
TEST(WorldCharacterState, TheFoxRestoredAnimatesBitForBit) {
  ANIMD_REQUIRE_SHARED();
  auto load = [] {
    auto fox = anim::load_gltf(animtest::shared_path("assets/Fox/glTF-Binary/Fox.glb"));
    EXPECT_TRUE(fox) << fox.error().message();
    auto asset = std::make_shared<anim::Asset>(std::move(*fox));
    asset->name = "fox";
    return asset;
  };
  Side a(load()), b(load());
  const anim::Asset& asset = *a.catalog.get()->at("fox");
  ASSERT_GE(asset.clips.size(), 3u);
  EXPECT_EQ(asset.fingerprint, b.catalog.get()->at("fox")->fingerprint);
  const anim::Skeleton& sk = asset.skeleton;
  // The deepest joint and its two ancestors make the two-bone chain.
  int deepest = 0, depth_of = 0;
  for (int j = 0; j < sk.num_joints(); ++j) {
    int d = 0;
    for (int p = sk.parents[j]; p >= 0; p = sk.parents[p]) ++d;
    if (d > depth_of) deepest = j, depth_of = d;
  }
  ASSERT_GE(depth_of, 3);
  const int mid = sk.parents[deepest], top = sk.parents[mid];
  const std::string clip0 = asset.clips[0].name, clip1 = asset.clips[1].name,
                    clip2 = asset.clips[2].name;
  const float duration1 = asset.clips[1].duration;

  const uint32_t c = a.must_id(SpawnCharacter{"fox", clip0, {}, false}, "spawn");
  a.must(SetRootMotion{c, anim::RootMotionMode::kExtract, "", false}, "root motion");
  AddLayer over;
  over.character = c;
  over.clip = clip2;
  over.blend = anim::LayerBlend::kOverride;
  over.weight = 0.5f;
  over.mask.blend_root = sk.names[static_cast<size_t>(top)];
  a.must_id(over, "override layer");
  AddLayer slot;
  slot.character = c;
  slot.blend = anim::LayerBlend::kOverride;
  const uint32_t slot_id = a.must_id(slot, "slot");
  SetIkGoal goal;
  goal.character = c;
  goal.root_joint = sk.names[static_cast<size_t>(top)];
  goal.effector_joint = sk.names[static_cast<size_t>(deepest)];
  goal.solver = anim::IkSolver::kTwoBone;
  goal.target = {10.0f, 40.0f, 20.0f};
  goal.weight = 0.7f;
  a.must_id(goal, "two-bone goal");
  auto drive = [&](Side& s, uint32_t id, int k) {
    if (k == 3)
      s.must(CrossfadeClip{id, clip1, 0.5f, true, 1.0f, true, false, anim::BlendCurve::kLinear},
             "crossfade");
    if (k == 8) s.must(PlayMontage{id, slot_id, clip2, 1.0f, 0.2f, 0.2f, 0.0f, {}}, "montage");
    if (k == 60)
      s.must(CrossfadeClip{id, clip0, 0.3f, true, 1.0f, false, false, anim::BlendCurve::kLinear},
             "crossfade back");
    if (k == 150) s.must(PlayClip{id, clip1, true, 1.0f, 0.5f * duration1}, "play");
  };
  for (int k = 0; k < 20; ++k) {
    drive(a, c, k);
    a.step();
  }
  const anim::v1::CharacterState state = exported(a, c);
  auto made = import(b, {state});
  ASSERT_TRUE(made) << made.error().message();
  const uint32_t copy = std::get<CharactersImported>(*made).character_ids.at(0);
  int differing = 0;
  for (int k = 20; k < 320; ++k) {
    drive(a, c, k);
    drive(b, copy, k);
    const SnapshotPtr pa = a.step(), pb = b.step();
    if (pose_bytes(*pa, c) != pose_bytes(*pb, copy) && differing++ < 3)
      ADD_FAILURE() << "the poses differ at step " << k;
  }
  EXPECT_EQ(differing, 0);
}

}  // namespace world_character_state_test
}  // namespace animd
