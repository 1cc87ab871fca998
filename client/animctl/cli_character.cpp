// animctl's commands that drive characters: spawn, despawn, play, crossfade, speed, root,
// root-motion and additive layers. Each turns its arguments into one Request (validated here,
// so a bad value exits with code 2 before anything is sent).
#include <string>
#include <vector>

#include "args.h"
#include "cli_commands.h"

namespace animctl {

void add_spawn(CLI::App& app, Plan& plan) {
  struct Opts {
    std::string asset, clip, at, yaw;
    bool owned = false;
  };
  auto o = store<Opts>();
  CLI::App* sub = app.add_subcommand("spawn", "Spawn a character of an asset");
  sub->add_option("asset", o->asset, "asset name (see `animctl assets`); builtin is always there")
      ->required();
  sub->add_option("--clip", o->clip, "clip to start playing (looping)");
  sub->add_option("--at", o->at, "world position x,y,z");
  sub->add_option("--rot-deg", o->yaw, "yaw about +Y in degrees");
  sub->add_flag("--owned", o->owned,
                "owned by this token instead of shared: others may not drive it, and it is "
                "despawned once no connection with the token is left (after the daemon's grace "
                "period). Each animctl run is one connection, so shared is the default");
  sub->callback([o, &plan] {
    plan.command = "spawn";
    auto* spawn = plan.request.mutable_spawn();
    spawn->set_shared(!o->owned);
    spawn->set_asset(o->asset);
    spawn->set_clip(o->clip);
    if (!o->at.empty()) *spawn->mutable_root()->mutable_translation() = parse_vec3("--at", o->at);
    if (!o->yaw.empty())
      *spawn->mutable_root()->mutable_rotation() = yaw_quat(parse_float("--rot-deg", o->yaw));
    plan.print_human = [asset = o->asset](const Reply& r, std::ostream& out) {
      out << "spawned character " << r.spawn().character_id() << " (asset " << asset << ") at tick "
          << r.spawn().tick() << "\n";
    };
  });
}

void add_despawn(CLI::App& app, Plan& plan) {
  auto id = store<std::string>();
  CLI::App* sub = id_command(app, "despawn", "Remove a character", *id);
  sub->callback([id, &plan] {
    plan.command = "despawn";
    plan.request.mutable_despawn()->set_character_id(parse_id("character id", *id));
  });
}

void add_significance(CLI::App& app, Plan& plan) {
  struct Opts {
    std::vector<std::string> ids;
    std::string value;
    bool clear = false;
  };
  auto o = store<Opts>();
  CLI::App* sub = app.add_subcommand(
      "significance",
      "Set how much characters matter to the update-rate budget (0..1; 1: every tick), or "
      "--clear to go back to what watches them");
  sub->add_option("ids", o->ids, "character ids")->required();
  auto* value = sub->add_option("--set", o->value, "significance in [0, 1]");
  auto* clear = sub->add_flag("--clear", o->clear, "drop the override");
  value->excludes(clear);
  sub->callback([o, &plan] {
    plan.command = "significance";
    auto* req = plan.request.mutable_set_significance();
    for (const auto& id : o->ids) req->add_character_ids(parse_id("character id", id));
    if (o->clear) {
      req->set_clear(true);
    } else if (o->value.empty()) {
      throw CLI::ValidationError("significance", "give --set VALUE or --clear");
    } else {
      req->set_significance(parse_float_in("--set", o->value, 0.0f, 1.0f));
    }
  });
}

void add_play(CLI::App& app, Plan& plan) {
  struct Opts {
    std::string id, clip, speed, start;
    bool no_loop = false;
  };
  auto o = store<Opts>();
  CLI::App* sub = id_command(app, "play", "Cut to a clip (no fade)", o->id);
  sub->add_option("clip", o->clip, "clip name")->required();
  sub->add_flag("--no-loop", o->no_loop, "hold the last frame instead of looping");
  sub->add_option("--speed", o->speed, "clip rate multiplier (negative plays in reverse)");
  sub->add_option("--start", o->start, "start time in seconds");
  sub->callback([o, &plan] {
    plan.command = "play";
    auto* play = plan.request.mutable_play();
    play->set_character_id(parse_id("character id", o->id));
    play->set_clip(o->clip);
    if (o->no_loop) play->set_loop(false);
    if (!o->speed.empty()) play->set_speed(parse_float("--speed", o->speed));
    if (!o->start.empty()) play->set_start_time(parse_float_in("--start", o->start, 0.0f, 1e9f));
  });
}

void add_crossfade(CLI::App& app, Plan& plan) {
  struct Opts {
    std::string id, clip, duration, speed;
    bool sync = false, no_loop = false;
  };
  auto o = store<Opts>();
  CLI::App* sub = id_command(app, "crossfade", "Fade to a clip over DURATION seconds", o->id);
  sub->add_option("clip", o->clip, "clip name")->required();
  sub->add_option("duration", o->duration, "fade duration in seconds (>= 0)")->required();
  sub->add_flag("--sync", o->sync, "start at the current clip's normalized time");
  sub->add_flag("--no-loop", o->no_loop, "hold the target clip's last frame");
  sub->add_option("--speed", o->speed, "target clip rate multiplier");
  sub->callback([o, &plan] {
    plan.command = "crossfade";
    auto* fade = plan.request.mutable_crossfade();
    fade->set_character_id(parse_id("character id", o->id));
    fade->set_clip(o->clip);
    fade->set_duration(parse_float_in("duration", o->duration, 0.0f, 1e6f));
    fade->set_sync_normalized_time(o->sync);
    if (o->no_loop) fade->set_loop(false);
    if (!o->speed.empty()) fade->set_speed(parse_float("--speed", o->speed));
  });
}

void add_speed(CLI::App& app, Plan& plan) {
  struct Opts {
    std::string id, speed;
  };
  auto o = store<Opts>();
  CLI::App* sub = id_command(app, "speed", "Set a character's playback speed", o->id);
  sub->add_option("speed", o->speed, "multiplier (may be negative)")->required();
  sub->callback([o, &plan] {
    plan.command = "speed";
    plan.request.mutable_set_speed()->set_character_id(parse_id("character id", o->id));
    plan.request.mutable_set_speed()->set_speed(parse_float("speed", o->speed));
  });
}

void add_root(CLI::App& app, Plan& plan) {
  struct Opts {
    std::string id, pos, yaw, scale;
  };
  auto o = store<Opts>();
  CLI::App* sub = id_command(app, "root", "Place a character in the world", o->id);
  sub->add_option("--pos", o->pos, "world position x,y,z")->required();
  sub->add_option("--rot-deg", o->yaw, "yaw about +Y in degrees (default 0)");
  sub->add_option("--scale", o->scale, "uniform scale (default 1)");
  sub->callback([o, &plan] {
    plan.command = "root";
    auto* set = plan.request.mutable_set_root();
    set->set_character_id(parse_id("character id", o->id));
    *set->mutable_root()->mutable_translation() = parse_vec3("--pos", o->pos);
    *set->mutable_root()->mutable_rotation() =
        yaw_quat(o->yaw.empty() ? 0.0f : parse_float("--rot-deg", o->yaw));
    if (!o->scale.empty()) {
      const float s = parse_float("--scale", o->scale);
      if (s == 0.0f) throw UsageError("--scale: must not be 0");
      auto* scale = set->mutable_root()->mutable_scale();
      scale->set_x(s);
      scale->set_y(s);
      scale->set_z(s);
    }
  });
}

void add_root_motion(CLI::App& app, Plan& plan) {
  struct Opts {
    std::string id, mode, joint;
    bool vertical = false;
  };
  auto o = store<Opts>();
  CLI::App* sub = id_command(app, "root-motion",
                             "Root motion on (the root moves as the clips travel) or off", o->id);
  sub->add_option("mode", o->mode, "on or off")->required();
  sub->add_option("--joint", o->joint,
                  "joint whose travel moves the root (default: the root joint)");
  sub->add_flag("--vertical", o->vertical, "height changes move the root too");
  sub->callback([o, &plan] {
    plan.command = "root-motion";
    auto* rm = plan.request.mutable_set_root_motion();
    rm->set_character_id(parse_id("character id", o->id));
    if (o->mode == "on")
      rm->set_mode(anim::v1::ROOT_MOTION_EXTRACT);
    else if (o->mode == "off")
      rm->set_mode(anim::v1::ROOT_MOTION_OFF);
    else
      throw UsageError("root-motion: mode must be on or off, not '" + o->mode + "'");
    if ((!o->joint.empty() || o->vertical) && o->mode == "off")
      throw UsageError("root-motion off takes neither --joint nor --vertical");
    rm->set_joint(o->joint);
    rm->set_extract_vertical(o->vertical);
  });
}

void add_additive(CLI::App& app, Plan& plan) {
  auto id = store<std::string>();
  CLI::App* sub =
      id_command(app, "additive", "Add, update or remove a layer (additive or override)", *id);
  sub->require_subcommand(1);

  struct AddOpts {
    std::string clip, weight, mask_root, mask_joints, time = "own", param, speed, ref, ref_time,
                                                      blend = "additive";
  };
  auto a = store<AddOpts>();
  CLI::App* add = sub->add_subcommand("add", "Add a layer playing an additive clip");
  add->add_option("clip", a->clip, "the additive clip")->required();
  add->add_option("--weight", a->weight, "0..1 (default 1)");
  add->add_option("--mask-root", a->mask_root, "only this joint and its subtree");
  add->add_option("--mask-joints", a->mask_joints, "per-joint weights JOINT=W,JOINT=W");
  add->add_option("--time", a->time, "time source: own | base | param (default own)");
  add->add_option("--param", a->param, "normalized time 0..1 for --time param");
  add->add_option("--speed", a->speed, "own clock rate (default 1)");
  add->add_option("--reference", a->ref, "reference clip (default: the layer's clip)");
  add->add_option("--reference-time", a->ref_time, "seconds into the reference clip (default 0)");
  add->add_option("--blend", a->blend,
                  "additive (adds the clip's delta) | override (replaces inside the mask)");
  add->callback([id, a, &plan] {
    plan.command = "additive add";
    auto* layer = plan.request.mutable_add_layer();
    layer->set_character_id(parse_id("character id", *id));
    layer->set_clip(a->clip);
    if (!a->weight.empty()) layer->set_weight(parse_float_in("--weight", a->weight, 0.0f, 1.0f));
    if (!a->mask_root.empty()) layer->mutable_mask()->set_blend_root(a->mask_root);
    if (!a->mask_joints.empty())
      parse_joint_weights("--mask-joints", a->mask_joints,
                          *layer->mutable_mask()->mutable_joint_weights());
    layer->set_time_source(parse_time_source(a->time));
    if (!a->param.empty()) layer->set_parameter(parse_float_in("--param", a->param, 0.0f, 1.0f));
    if (!a->speed.empty()) layer->set_speed(parse_float("--speed", a->speed));
    layer->set_reference_clip(a->ref);
    if (a->blend == "override")
      layer->set_blend(anim::v1::LAYER_BLEND_OVERRIDE);
    else if (a->blend != "additive")
      throw UsageError("--blend: additive or override, not '" + a->blend + "'");
    if (!a->ref_time.empty())
      layer->set_reference_time(parse_float_in("--reference-time", a->ref_time, 0.0f, 1e9f));
    plan.print_human = [](const Reply& r, std::ostream& out) {
      out << "added layer " << r.add_layer().layer_id() << " (" << tick_of(r) << ")\n";
    };
  });

  struct UpdateOpts {
    std::string layer, weight, speed, param;
  };
  auto u = store<UpdateOpts>();
  CLI::App* update = sub->add_subcommand("update", "Change a layer's weight, speed or parameter");
  update->add_option("layer", u->layer, "layer id (from additive add)")->required();
  update->add_option("--weight", u->weight, "0..1");
  update->add_option("--speed", u->speed, "own clock rate");
  update->add_option("--param", u->param, "normalized time 0..1");
  update->callback([id, u, &plan] {
    plan.command = "additive update";
    auto* layer = plan.request.mutable_update_layer();
    layer->set_character_id(parse_id("character id", *id));
    layer->set_layer_id(parse_id("layer id", u->layer));
    if (u->weight.empty() && u->speed.empty() && u->param.empty())
      throw UsageError("additive update: give at least one of --weight, --speed, --param");
    if (!u->weight.empty()) layer->set_weight(parse_float_in("--weight", u->weight, 0.0f, 1.0f));
    if (!u->speed.empty()) layer->set_speed(parse_float("--speed", u->speed));
    if (!u->param.empty()) layer->set_parameter(parse_float_in("--param", u->param, 0.0f, 1.0f));
  });

  auto r = store<std::string>();
  CLI::App* remove = sub->add_subcommand("remove", "Remove a layer");
  remove->add_option("layer", *r, "layer id")->required();
  remove->callback([id, r, &plan] {
    plan.command = "additive remove";
    plan.request.mutable_remove_layer()->set_character_id(parse_id("character id", *id));
    plan.request.mutable_remove_layer()->set_layer_id(parse_id("layer id", *r));
  });
}

}  // namespace animctl
