#include "session/command_table.h"

#include <array>

#include "protocol/character_state_convert.h"
#include "protocol/request_convert_caps.h"
#include "protocol/request_convert_characters.h"
#include "protocol/request_convert_clips.h"
#include "protocol/request_convert_fleet.h"
#include "protocol/request_convert_hits.h"
#include "protocol/request_convert_ik.h"
#include "protocol/request_convert_montage.h"
#include "protocol/request_convert_morph.h"
#include "protocol/request_convert_pose.h"
#include "protocol/request_convert_state_machine.h"
#include "protocol/request_convert_stream.h"
#include "session/session.h"

namespace animd {

namespace {

using R = anim::v1::Request;
using Converted = anim::Expected<WorldRequest>;
constexpr Role kObserve = Role::kObserve;
constexpr Role kControl = Role::kControl;

}  // namespace

const char* route_name(Route route) {
  switch (route) {
    case Route::kSession:
      return "session";
    case Route::kLoader:
      return "loader";
    case Route::kHistory:
      return "history";
    case Route::kTick:
      return "tick";
  }
  return "?";
}

std::span<const CommandSpec> command_table() {
  // The table. Keep it in .proto field order, one entry per command. (A friend of Session:
  // the handlers are its own.)
  static constexpr std::array kCommands{
      CommandSpec{R::kListAssets, "list_assets", kObserve, Route::kSession, nullptr,
                  &Session::answer_list_assets},
      CommandSpec{R::kLoadAsset, "load_asset", kControl, Route::kLoader, nullptr,
                  &Session::handle_load},
      CommandSpec{R::kGetAssetData, "get_asset_data", kObserve, Route::kSession, nullptr,
                  &Session::answer_asset_data},
      CommandSpec{R::kSpawn, "spawn", kControl, Route::kTick,
                  [](const R& r) { return spawn_request(r.spawn()); }, &Session::queue_for_tick},
      CommandSpec{
          R::kDespawn, "despawn", kControl, Route::kTick,
          [](const R& r) { return Converted(DespawnCharacter{r.despawn().character_id()}); },
          &Session::queue_for_tick},
      CommandSpec{R::kSetRoot, "set_root", kControl, Route::kTick,
                  [](const R& r) { return set_root_request(r.set_root()); },
                  &Session::queue_for_tick},
      CommandSpec{R::kPlay, "play", kControl, Route::kTick,
                  [](const R& r) { return play_request(r.play()); }, &Session::queue_for_tick},
      CommandSpec{R::kCrossfade, "crossfade", kControl, Route::kTick,
                  [](const R& r) { return crossfade_request(r.crossfade()); },
                  &Session::queue_for_tick},
      CommandSpec{R::kSetSpeed, "set_speed", kControl, Route::kTick,
                  [](const R& r) { return set_speed_request(r.set_speed()); },
                  &Session::queue_for_tick},
      CommandSpec{R::kAddLayer, "add_layer", kControl, Route::kTick,
                  [](const R& r) { return add_layer_request(r.add_layer()); },
                  &Session::queue_for_tick},
      CommandSpec{R::kUpdateLayer, "update_layer", kControl, Route::kTick,
                  [](const R& r) { return update_layer_request(r.update_layer()); },
                  &Session::queue_for_tick},
      CommandSpec{R::kRemoveLayer, "remove_layer", kControl, Route::kTick,
                  [](const R& r) {
                    return Converted(
                        RemoveLayer{r.remove_layer().character_id(), r.remove_layer().layer_id()});
                  },
                  &Session::queue_for_tick},
      CommandSpec{R::kSetIkGoal, "set_ik_goal", kControl, Route::kTick,
                  [](const R& r) { return set_ik_goal_request(r.set_ik_goal()); },
                  &Session::queue_for_tick},
      CommandSpec{R::kClearIkGoal, "clear_ik_goal", kControl, Route::kTick,
                  [](const R& r) {
                    return Converted(
                        ClearIkGoal{r.clear_ik_goal().character_id(), r.clear_ik_goal().goal_id()});
                  },
                  &Session::queue_for_tick},
      // Answered from the history; a character the history does not have goes to the tick, for
      // the World to say why.
      CommandSpec{R::kQueryPose, "query_pose", kObserve, Route::kHistory,
                  [](const R& r) { return query_pose_request(r.query_pose()); },
                  &Session::handle_query_pose},
      CommandSpec{R::kListCharacters, "list_characters", kObserve, Route::kTick,
                  [](const R&) { return Converted(ListCharacters{}); }, &Session::queue_for_tick},
      CommandSpec{R::kSubscribe, "subscribe", kObserve, Route::kTick,
                  [](const R& r) { return subscribe_request(r.subscribe()); },
                  &Session::handle_subscribe},
      CommandSpec{
          R::kUnsubscribe, "unsubscribe", kObserve, Route::kTick,
          [](const R& r) { return Converted(Unsubscribe{r.unsubscribe().subscription_id()}); },
          &Session::handle_unsubscribe},
      CommandSpec{R::kStats, "stats", kObserve, Route::kTick,
                  [](const R&) { return Converted(GetStats{}); }, &Session::queue_for_tick},
      CommandSpec{R::kUnloadAsset, "unload_asset", kControl, Route::kTick,
                  [](const R& r) { return Converted(UnloadAsset{r.unload_asset().asset()}); },
                  &Session::queue_for_tick},
      // The World keeps its own copy of the region (which characters are watched when ticks
      // degrade), and the camera (significance); the session's region moves when the World's
      // answer comes back.
      CommandSpec{R::kUpdateSubscription, "update_subscription", kObserve, Route::kTick,
                  [](const R& r) { return update_subscription_request(r.update_subscription()); },
                  &Session::queue_for_tick},
      CommandSpec{R::kSetRootMotion, "set_root_motion", kControl, Route::kTick,
                  [](const R& r) { return set_root_motion_request(r.set_root_motion()); },
                  &Session::queue_for_tick},
      CommandSpec{R::kAddClipEvents, "add_clip_events", kControl, Route::kTick,
                  [](const R& r) { return add_clip_events_request(r.add_clip_events()); },
                  &Session::queue_for_tick},
      CommandSpec{R::kRaycast, "raycast", kObserve, Route::kHistory, nullptr,
                  &Session::handle_hit_query},
      CommandSpec{R::kOverlapSphere, "overlap_sphere", kObserve, Route::kHistory, nullptr,
                  &Session::handle_hit_query},
      CommandSpec{R::kSetHitVolumes, "set_hit_volumes", kControl, Route::kTick,
                  [](const R& r) { return set_hit_volumes_request(r.set_hit_volumes()); },
                  &Session::queue_for_tick},
      CommandSpec{R::kGetHitVolumes, "get_hit_volumes", kObserve, Route::kTick,
                  [](const R& r) { return Converted(GetHitVolumes{r.get_hit_volumes().asset()}); },
                  &Session::queue_for_tick},
      CommandSpec{R::kSetAimIk, "set_aim_ik", kControl, Route::kTick,
                  [](const R& r) { return set_aim_ik_request(r.set_aim_ik()); },
                  &Session::queue_for_tick},
      CommandSpec{R::kMoveAimTarget, "move_aim_target", kControl, Route::kTick,
                  [](const R& r) { return move_aim_target_request(r.move_aim_target()); },
                  &Session::queue_for_tick},
      CommandSpec{R::kClearAimIk, "clear_aim_ik", kControl, Route::kTick,
                  [](const R& r) { return Converted(ClearAimIk{r.clear_aim_ik().character_id()}); },
                  &Session::queue_for_tick},
      CommandSpec{R::kSetFootIk, "set_foot_ik", kControl, Route::kTick,
                  [](const R& r) { return set_foot_ik_request(r.set_foot_ik()); },
                  &Session::queue_for_tick},
      CommandSpec{R::kSetGround, "set_ground", kControl, Route::kTick,
                  [](const R& r) { return set_ground_request(r.set_ground()); },
                  &Session::queue_for_tick},
      CommandSpec{
          R::kClearFootIk, "clear_foot_ik", kControl, Route::kTick,
          [](const R& r) { return Converted(ClearFootIk{r.clear_foot_ik().character_id()}); },
          &Session::queue_for_tick},
      CommandSpec{R::kDefineBlendSpace, "define_blend_space", kControl, Route::kTick,
                  [](const R& r) { return define_blend_space_request(r.define_blend_space()); },
                  &Session::queue_for_tick},
      CommandSpec{R::kSetParameter, "set_parameter", kControl, Route::kTick,
                  [](const R& r) { return set_parameter_request(r.set_parameter()); },
                  &Session::queue_for_tick},
      CommandSpec{R::kPlayMontage, "play_montage", kControl, Route::kTick,
                  [](const R& r) { return play_montage_request(r.play_montage()); },
                  &Session::queue_for_tick},
      CommandSpec{R::kStopMontage, "stop_montage", kControl, Route::kTick,
                  [](const R& r) { return stop_montage_request(r.stop_montage()); },
                  &Session::queue_for_tick},
      CommandSpec{R::kJumpToSection, "jump_to_section", kControl, Route::kTick,
                  [](const R& r) { return jump_to_section_request(r.jump_to_section()); },
                  &Session::queue_for_tick},
      CommandSpec{R::kDefineStateMachine, "define_state_machine", kControl, Route::kTick,
                  [](const R& r) { return define_state_machine_request(r.define_state_machine()); },
                  &Session::queue_for_tick},
      CommandSpec{R::kStartStateMachine, "start_state_machine", kControl, Route::kTick,
                  [](const R& r) { return start_state_machine_request(r.start_state_machine()); },
                  &Session::queue_for_tick},
      CommandSpec{R::kStopStateMachine, "stop_state_machine", kControl, Route::kTick,
                  [](const R& r) {
                    return Converted(StopStateMachine{r.stop_state_machine().character_id()});
                  },
                  &Session::queue_for_tick},
      CommandSpec{R::kSetTrigger, "set_trigger", kControl, Route::kTick,
                  [](const R& r) { return set_trigger_request(r.set_trigger()); },
                  &Session::queue_for_tick},
      // A read, like list_characters: answered by the tick from the character's Animator.
      CommandSpec{
          R::kGetState, "get_state", kObserve, Route::kTick,
          [](const R& r) { return Converted(GetMachineState{r.get_state().character_id()}); },
          &Session::queue_for_tick},
      CommandSpec{R::kSetPose, "set_pose", kControl, Route::kTick,
                  [](const R& r) { return set_pose_request(r.set_pose()); },
                  &Session::queue_for_tick},
      CommandSpec{R::kBlendOutPose, "blend_out_pose", kControl, Route::kTick,
                  [](const R& r) { return blend_out_pose_request(r.blend_out_pose()); },
                  &Session::queue_for_tick},
      CommandSpec{R::kSetMorphWeights, "set_morph_weights", kControl, Route::kTick,
                  [](const R& r) { return set_morph_weights_request(r.set_morph_weights()); },
                  &Session::queue_for_tick},
      CommandSpec{R::kClearMorphWeights, "clear_morph_weights", kControl, Route::kTick,
                  [](const R& r) { return clear_morph_weights_request(r.clear_morph_weights()); },
                  &Session::queue_for_tick},
      CommandSpec{R::kExportCharacters, "export_characters", kObserve, Route::kTick,
                  [](const R& r) { return export_characters_request(r.export_characters()); },
                  &Session::queue_for_tick},
      CommandSpec{R::kImportCharacters, "import_characters", kControl, Route::kTick,
                  [](const R& r) { return import_characters_request(r.import_characters()); },
                  &Session::queue_for_tick},
      CommandSpec{R::kMigrate, "migrate", kControl, Route::kTick,
                  [](const R& r) { return migrate_request(r.migrate()); },
                  &Session::handle_migrate},
      CommandSpec{R::kCommitMigration, "commit_migration", kControl, Route::kTick,
                  [](const R& r) { return commit_migration_request(r.commit_migration()); },
                  &Session::queue_for_tick},
      CommandSpec{R::kSetSignificance, "set_significance", kControl, Route::kTick,
                  [](const R& r) { return set_significance_request(r.set_significance()); },
                  &Session::queue_for_tick},
  };
  return kCommands;
}

const CommandSpec* find_command(anim::v1::Request::CommandCase command) {
  for (const CommandSpec& spec : command_table())
    if (spec.command == command) return &spec;
  return nullptr;
}

Role required_role(const anim::v1::Request& request) {
  const CommandSpec* spec = find_command(request.command_case());
  return spec ? spec->role : Role::kControl;
}

anim::Expected<WorldRequest> to_world_request(const anim::v1::Request& request) {
  // Before anything reads a list: the converters rely on it.
  if (auto s = check_repeated_field_caps(request); !s) return s;
  const CommandSpec* spec = find_command(request.command_case());
  if (!spec || !spec->convert)
    return anim::Status(anim::StatusCode::kUnimplemented, "the world does not handle this request");
  return spec->convert(request);
}

}  // namespace animd
