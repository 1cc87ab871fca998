// animctl's subcommands: each one turns its arguments into one Request (validated here, so a
// bad value exits with code 2 before anything is sent) and says how to print the reply.
#include "cli.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <sstream>

#include "args.h"
#include "format.h"

namespace animctl {

namespace {

using anim::v1::Reply;

std::string tick_of(const Reply& reply) {
  return "tick " + std::to_string(reply.tick());
}

// Option storage lives as long as the App (captured by the subcommand's callback).
template <class T>
std::shared_ptr<T> store() {
  return std::make_shared<T>();
}

CLI::App* id_command(CLI::App& app, const char* name, const char* help, std::string& id) {
  CLI::App* sub = app.add_subcommand(name, help);
  sub->add_option("id", id, "character id (from spawn)")->required();
  return sub;
}

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

// NAME@TIME[:PAYLOAD] (the payload may hold anything after the first colon).
anim::v1::ClipEventDef parse_event(const std::string& text) {
  const size_t at = text.find('@');
  if (at == std::string::npos || at == 0)
    throw UsageError("--add: '" + text + "' is not NAME@TIME[:PAYLOAD]");
  const size_t colon = text.find(':', at);
  anim::v1::ClipEventDef e;
  e.set_name(text.substr(0, at));
  e.set_time(parse_float(
      "--add " + e.name() + " time",
      text.substr(at + 1, colon == std::string::npos ? std::string::npos : colon - at - 1)));
  if (colon != std::string::npos) e.set_payload(text.substr(colon + 1));
  return e;
}

void add_events(CLI::App& app, Plan& plan) {
  struct Opts {
    std::string asset, clip;
    std::vector<std::string> add;
    bool replace = false;
  };
  auto o = store<Opts>();
  CLI::App* sub = app.add_subcommand(
      "events", "Add animation events to a clip (or set them with --replace); lists them");
  sub->add_option("asset", o->asset, "asset name")->required();
  sub->add_option("clip", o->clip, "clip name")->required();
  sub->add_option("--add", o->add, "an event NAME@TIME[:PAYLOAD], time in seconds; repeatable");
  sub->add_flag("--replace", o->replace, "the clip's events become the --add ones (none: clear)");
  sub->callback([o, &plan] {
    plan.command = "events";
    auto* req = plan.request.mutable_add_clip_events();
    req->set_asset(o->asset);
    req->set_clip(o->clip);
    req->set_replace(o->replace);
    for (const auto& text : o->add) *req->add_events() = parse_event(text);
    plan.print_human = [](const Reply& r, std::ostream& out) {
      const auto& events = r.add_clip_events().events();
      out << events.size() << " event(s) on the clip (" << tick_of(r) << ")\n";
      for (const auto& e : events) {
        char time[32];
        std::snprintf(time, sizeof time, "%.4f", e.time());
        out << "  " << time << "  " << e.name();
        if (!e.payload().empty()) out << "  " << e.payload();
        out << "\n";
      }
    };
  });
}

void add_additive(CLI::App& app, Plan& plan) {
  auto id = store<std::string>();
  CLI::App* sub = id_command(app, "additive", "Add, update or remove an additive layer", *id);
  sub->require_subcommand(1);

  struct AddOpts {
    std::string clip, weight, mask_root, mask_joints, time = "own", param, speed, ref, ref_time;
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

void add_ik(CLI::App& app, Plan& plan) {
  auto id = store<std::string>();
  CLI::App* sub = id_command(app, "ik", "Set or clear an IK goal", *id);
  sub->require_subcommand(1);

  struct SetOpts {
    std::string chain, solver = "fabrik", target, weight, pole, goal, iterations, tolerance, soften;
    bool world = false;
  };
  auto s = store<SetOpts>();
  CLI::App* set = sub->add_subcommand("set", "Set a goal on a chain (or move goal --goal G)");
  set->add_option("--chain", s->chain, "ROOT..EFFECTOR joints, e.g. upper_arm_l..hand_l")
      ->required();
  set->add_option("--solver", s->solver, "fabrik | ccd | two-bone (default fabrik)");
  set->add_option("--target", s->target, "target x,y,z (model space; --world for world)")
      ->required();
  set->add_flag("--world", s->world, "target and pole are in world space");
  set->add_option("--weight", s->weight, "0..1 (default 1)");
  set->add_option("--pole", s->pole, "two-bone: bend toward this point x,y,z");
  set->add_option("--goal", s->goal, "update this existing goal instead of adding one");
  set->add_option("--iterations", s->iterations, "CCD/FABRIK iterations (default 16)");
  set->add_option("--tolerance", s->tolerance, "CCD/FABRIK tolerance (default 1e-4)");
  set->add_option("--soften", s->soften, "two-bone softening 0..1");
  set->callback([id, s, &plan] {
    plan.command = "ik set";
    auto* goal = plan.request.mutable_set_ik_goal();
    goal->set_character_id(parse_id("character id", *id));
    const auto [root, effector] = parse_chain("--chain", s->chain);
    goal->set_root_joint(root);
    goal->set_effector_joint(effector);
    goal->set_solver(parse_solver(s->solver));
    goal->set_space(s->world ? anim::v1::SPACE_WORLD : anim::v1::SPACE_MODEL);
    *goal->mutable_target() = parse_vec3("--target", s->target);
    if (!s->weight.empty()) goal->set_weight(parse_float_in("--weight", s->weight, 0.0f, 1.0f));
    if (!s->pole.empty()) *goal->mutable_pole() = parse_vec3("--pole", s->pole);
    if (!s->goal.empty()) goal->set_goal_id(parse_id("--goal", s->goal));
    if (!s->iterations.empty()) {
      const uint64_t n = parse_u64("--iterations", s->iterations);
      if (n == 0 || n > 1000) throw UsageError("--iterations: must be 1 .. 1000");
      goal->set_max_iterations(static_cast<uint32_t>(n));
    }
    if (!s->tolerance.empty())
      goal->set_tolerance(parse_float_in("--tolerance", s->tolerance, 0.0f, 1e6f));
    if (!s->soften.empty()) goal->set_soften(parse_float_in("--soften", s->soften, 0.0f, 1.0f));
    plan.print_human = [](const Reply& r, std::ostream& out) {
      out << "IK goal " << r.set_ik_goal().goal_id() << " (" << tick_of(r) << ")\n";
    };
  });

  auto g = store<std::string>();
  CLI::App* clear = sub->add_subcommand("clear", "Remove an IK goal");
  clear->add_option("goal", *g, "goal id (from ik set)")->required();
  clear->callback([id, g, &plan] {
    plan.command = "ik clear";
    plan.request.mutable_clear_ik_goal()->set_character_id(parse_id("character id", *id));
    plan.request.mutable_clear_ik_goal()->set_goal_id(parse_id("goal id", *g));
  });
}

// A comma-separated list of floats, each within [lo, hi].
std::vector<float> parse_floats(const std::string& what, const std::string& text, float lo,
                                float hi) {
  std::vector<float> out;
  for (const std::string& item : parse_list(what, text))
    out.push_back(parse_float_in(what, item, lo, hi));
  return out;
}

void add_aim(CLI::App& app, Plan& plan) {
  auto id = store<std::string>();
  CLI::App* sub = id_command(app, "aim", "Set, move or clear the aim (look-at) IK", *id);
  sub->require_subcommand(1);

  struct SetOpts {
    std::string chain, target, weight, forward, up, pole, joint_weights, max_angles;
    bool world = false;
  };
  auto s = store<SetOpts>();
  CLI::App* set = sub->add_subcommand("set", "Aim a chain's last joint at a target");
  set->add_option("--chain", s->chain, "ROOT..END joints, e.g. spine..head")->required();
  set->add_option("--target", s->target, "target point x,y,z (model space; --world for world)")
      ->required();
  set->add_flag("--world", s->world, "target and pole are in world space");
  set->add_option("--weight", s->weight, "0..1 (default 1)");
  set->add_option("--forward", s->forward, "forward axis in the end joint's frame (default 0,0,1)");
  set->add_option("--pole", s->pole, "direction the end joint's up axis leans toward x,y,z");
  set->add_option("--up", s->up, "with --pole: the end joint's up axis (default 0,1,0)");
  set->add_option("--joint-weights", s->joint_weights, "per chain joint, root first: w,w,...");
  set->add_option("--max-angles", s->max_angles, "per chain joint radians 0..pi: a,a,...");
  set->callback([id, s, &plan] {
    plan.command = "aim set";
    auto* aim = plan.request.mutable_set_aim_ik();
    aim->set_character_id(parse_id("character id", *id));
    const auto [root, end] = parse_chain("--chain", s->chain);
    aim->set_root_joint(root);
    aim->set_end_joint(end);
    aim->set_space(s->world ? anim::v1::SPACE_WORLD : anim::v1::SPACE_MODEL);
    *aim->mutable_target() = parse_vec3("--target", s->target);
    if (!s->weight.empty()) aim->set_weight(parse_float_in("--weight", s->weight, 0.0f, 1.0f));
    if (!s->forward.empty()) *aim->mutable_forward_axis() = parse_vec3("--forward", s->forward);
    if (!s->up.empty() && s->pole.empty()) throw UsageError("--up: needs --pole");
    if (!s->pole.empty()) *aim->mutable_pole() = parse_vec3("--pole", s->pole);
    if (!s->up.empty()) *aim->mutable_up_axis() = parse_vec3("--up", s->up);
    if (!s->joint_weights.empty())
      for (float w : parse_floats("--joint-weights", s->joint_weights, 0.0f, 1e6f))
        aim->add_joint_weights(w);
    if (!s->max_angles.empty())
      for (float a : parse_floats("--max-angles", s->max_angles, 0.0f, 3.14159265f))
        aim->add_max_angles(a);
  });

  struct MoveOpts {
    std::string target, weight;
  };
  auto m = store<MoveOpts>();
  CLI::App* move = sub->add_subcommand("move", "Move the aim's target (and weight)");
  move->add_option("--target", m->target, "target point x,y,z (the aim's space)")->required();
  move->add_option("--weight", m->weight, "0..1 (default: unchanged)");
  move->callback([id, m, &plan] {
    plan.command = "aim move";
    auto* mv = plan.request.mutable_move_aim_target();
    mv->set_character_id(parse_id("character id", *id));
    *mv->mutable_target() = parse_vec3("--target", m->target);
    if (!m->weight.empty()) mv->set_weight(parse_float_in("--weight", m->weight, 0.0f, 1.0f));
  });

  CLI::App* clear = sub->add_subcommand("clear", "Remove the aim IK");
  clear->callback([id, &plan] {
    plan.command = "aim clear";
    plan.request.mutable_clear_aim_ik()->set_character_id(parse_id("character id", *id));
  });
}

void add_feet(CLI::App& app, Plan& plan) {
  auto id = store<std::string>();
  CLI::App* sub = id_command(app, "feet", "Set or clear foot IK, or describe the ground", *id);
  sub->require_subcommand(1);

  struct SetOpts {
    std::string left, right, pelvis, sole_offsets, max_tilt, weight, contact_height, contact_speed,
        release_time;
    bool no_lock = false;
  };
  auto s = store<SetOpts>();
  CLI::App* set = sub->add_subcommand("set", "Foot IK on both legs (joints found by name)");
  set->add_option("--left", s->left, "left leg HIP,KNEE,ANKLE (default: found by name)");
  set->add_option("--right", s->right, "right leg HIP,KNEE,ANKLE (default: found by name)");
  set->add_option("--pelvis", s->pelvis, "joint lowered (default: the hips' common ancestor)");
  set->add_option("--sole-offsets", s->sole_offsets, "LEFT,RIGHT ankle heights above the sole");
  set->add_option("--max-tilt", s->max_tilt, "radians 0..1.5 (default 0.6)");
  set->add_option("--weight", s->weight, "0..1 (default 1)");
  set->add_flag("--no-lock", s->no_lock, "do not lock planted feet in place");
  set->add_option("--contact-height", s->contact_height, "stride curves: height threshold");
  set->add_option("--contact-speed", s->contact_speed, "stride curves: speed threshold");
  set->add_option("--release-time", s->release_time, "seconds 0..10 (default 0.2)");
  set->callback([id, s, &plan] {
    plan.command = "feet set";
    auto* f = plan.request.mutable_set_foot_ik();
    f->set_character_id(parse_id("character id", *id));
    const auto leg = [](const char* what, const std::string& text, anim::v1::LegJoints* out) {
      if (text.empty()) return;
      const std::vector<std::string> j = parse_list(what, text);
      if (j.size() != 3) throw UsageError(std::string(what) + ": expected HIP,KNEE,ANKLE");
      out->set_hip(j[0]);
      out->set_knee(j[1]);
      out->set_ankle(j[2]);
    };
    leg("--left", s->left, f->mutable_left());
    leg("--right", s->right, f->mutable_right());
    f->set_pelvis(s->pelvis);
    if (!s->sole_offsets.empty()) {
      const std::vector<float> o = parse_floats("--sole-offsets", s->sole_offsets, 0.0f, 1e6f);
      if (o.size() != 2) throw UsageError("--sole-offsets: expected LEFT,RIGHT");
      f->set_left_sole_offset(o[0]);
      f->set_right_sole_offset(o[1]);
    }
    if (!s->max_tilt.empty())
      f->set_max_tilt(parse_float_in("--max-tilt", s->max_tilt, 0.0f, 1.5f));
    if (!s->weight.empty()) f->set_weight(parse_float_in("--weight", s->weight, 0.0f, 1.0f));
    if (s->no_lock) f->set_lock_feet(false);
    if (!s->contact_height.empty())
      f->set_contact_height(parse_float_in("--contact-height", s->contact_height, 0.0f, 1e6f));
    if (!s->contact_speed.empty())
      f->set_contact_speed(parse_float_in("--contact-speed", s->contact_speed, 0.0f, 1e6f));
    if (!s->release_time.empty())
      f->set_release_time(parse_float_in("--release-time", s->release_time, 0.0f, 10.0f));
  });

  struct GroundOpts {
    std::string point, normal, heights, left_normal, right_normal, weight;
  };
  auto g = store<GroundOpts>();
  CLI::App* ground =
      sub->add_subcommand("ground", "The ground: a plane, or heights under the feet");
  ground->add_option("--point", g->point, "plane: a point x,y,z (world)");
  ground->add_option("--normal", g->normal, "plane: up-facing normal x,y,z (default 0,1,0)");
  ground->add_option("--heights", g->heights, "per foot: LEFT,RIGHT ground heights (world y)");
  ground->add_option("--left-normal", g->left_normal, "per foot: left normal (default 0,1,0)");
  ground->add_option("--right-normal", g->right_normal, "per foot: right normal (default 0,1,0)");
  ground->add_option("--weight", g->weight, "0..1: the foot IK's weight (default: unchanged)");
  ground->callback([id, g, &plan] {
    plan.command = "feet ground";
    auto* r = plan.request.mutable_set_ground();
    r->set_character_id(parse_id("character id", *id));
    const bool plane = !g->point.empty() || !g->normal.empty();
    const bool feet = !g->heights.empty() || !g->left_normal.empty() || !g->right_normal.empty();
    if (plane == feet) throw UsageError("feet ground: give --point/--normal or --heights");
    if (plane) {
      auto* p = r->mutable_plane();
      if (!g->point.empty()) *p->mutable_point() = parse_vec3("--point", g->point);
      if (!g->normal.empty()) *p->mutable_normal() = parse_vec3("--normal", g->normal);
    } else {
      if (g->heights.empty()) throw UsageError("--heights: required with per-foot normals");
      const std::vector<float> h = parse_floats("--heights", g->heights, -1e9f, 1e9f);
      if (h.size() != 2) throw UsageError("--heights: expected LEFT,RIGHT");
      auto* f = r->mutable_feet();
      f->mutable_left()->set_height(h[0]);
      f->mutable_right()->set_height(h[1]);
      if (!g->left_normal.empty())
        *f->mutable_left()->mutable_normal() = parse_vec3("--left-normal", g->left_normal);
      if (!g->right_normal.empty())
        *f->mutable_right()->mutable_normal() = parse_vec3("--right-normal", g->right_normal);
    }
    if (!g->weight.empty()) r->set_weight(parse_float_in("--weight", g->weight, 0.0f, 1.0f));
  });

  CLI::App* clear = sub->add_subcommand("clear", "Remove the foot IK");
  clear->callback([id, &plan] {
    plan.command = "feet clear";
    plan.request.mutable_clear_foot_ik()->set_character_id(parse_id("character id", *id));
  });
}

void add_pose(CLI::App& app, Plan& plan) {
  struct Opts {
    std::string id, tick, joints;
    bool world = false;
  };
  auto o = store<Opts>();
  CLI::App* sub = id_command(app, "pose", "Joint positions at the latest or a past tick", o->id);
  sub->add_option("--tick", o->tick, "a tick still in the daemon's pose history");
  sub->add_option("--joints", o->joints, "joint names a,b,c (default: every joint)");
  sub->add_flag("--world", o->world, "world space (default model space)");
  sub->callback([o, &plan] {
    plan.command = "pose";
    auto* query = plan.request.mutable_query_pose();
    query->set_character_id(parse_id("character id", o->id));
    if (!o->tick.empty()) query->set_tick(parse_u64("--tick", o->tick));
    if (!o->joints.empty())
      for (auto& name : parse_list("--joints", o->joints)) query->add_joint_names(name);
    query->set_space(o->world ? anim::v1::SPACE_WORLD : anim::v1::SPACE_MODEL);
    plan.print_human = [](const Reply& r, std::ostream& out) { print_pose(r.query_pose(), out); };
  });
}

// The optional parts of a hit query: --tick, --ignore.
struct HitQueryOpts {
  std::string tick, ignore;
};
void add_hit_query_options(CLI::App* sub, HitQueryOpts& o) {
  sub->add_option("--tick", o.tick,
                  "a tick still in the daemon's pose history (default: the newest)");
  sub->add_option("--ignore", o.ignore, "character ids to leave out, a,b,c");
}
template <class Request>
void set_hit_query_options(const HitQueryOpts& o, Request& request) {
  if (!o.tick.empty()) request.set_tick(parse_u64("--tick", o.tick));
  if (!o.ignore.empty())
    for (const auto& id : parse_list("--ignore", o.ignore))
      request.add_ignore_character_ids(parse_id("--ignore", id));
}

void add_raycast(CLI::App& app, Plan& plan) {
  struct Opts : HitQueryOpts {
    std::string from, dir, max = "1000";
  };
  auto o = store<Opts>();
  CLI::App* sub = app.add_subcommand(
      "raycast", "The first character joint a ray hits, posed as at the newest or a past tick");
  sub->add_option("--from", o->from, "ray origin x,y,z (world space)")->required();
  sub->add_option("--dir", o->dir, "ray direction x,y,z (world space, not zero)")->required();
  sub->add_option("--max-distance", o->max, "how far the ray reaches (> 0, default 1000)");
  add_hit_query_options(sub, *o);
  sub->callback([o, &plan] {
    plan.command = "raycast";
    auto* ray = plan.request.mutable_raycast();
    *ray->mutable_origin() = parse_vec3("--from", o->from);
    *ray->mutable_direction() = parse_vec3("--dir", o->dir);
    const auto& d = ray->direction();
    if (d.x() == 0.0f && d.y() == 0.0f && d.z() == 0.0f)
      throw UsageError("--dir: must not be 0,0,0");
    const float max = parse_float("--max-distance", o->max);
    if (!(max > 0.0f)) throw UsageError("--max-distance: must be > 0");
    ray->set_max_distance(max);
    set_hit_query_options(*o, *ray);
    plan.print_human = [](const Reply& r, std::ostream& out) { print_raycast(r.raycast(), out); };
  });
}

void add_overlap(CLI::App& app, Plan& plan) {
  struct Opts : HitQueryOpts {
    std::string center, radius;
  };
  auto o = store<Opts>();
  CLI::App* sub = app.add_subcommand(
      "overlap",
      "The characters and joints a sphere overlaps, posed as at the newest or a past tick");
  sub->add_option("--center", o->center, "sphere centre x,y,z (world space)")->required();
  sub->add_option("--radius", o->radius, "sphere radius (>= 0)")->required();
  add_hit_query_options(sub, *o);
  sub->callback([o, &plan] {
    plan.command = "overlap";
    auto* sphere = plan.request.mutable_overlap_sphere();
    *sphere->mutable_center() = parse_vec3("--center", o->center);
    sphere->set_radius(parse_float_in("--radius", o->radius, 0.0f, 1e9f));
    set_hit_query_options(*o, *sphere);
    plan.print_human = [](const Reply& r, std::ostream& out) {
      print_overlap(r.overlap_sphere(), out);
    };
  });
}

void add_hit_volumes(CLI::App& app, Plan& plan) {
  struct Opts {
    std::string asset;
    std::vector<std::string> capsules;
    bool reset = false;
  };
  auto o = store<Opts>();
  CLI::App* sub = app.add_subcommand(
      "hit-volumes", "Show an asset's hit capsules, or set some (--capsule, --reset)");
  sub->add_option("asset", o->asset, "asset name")->required();
  sub->add_option("--capsule", o->capsules,
                  "JOINT:ax,ay,az:bx,by,bz:radius in the joint's space (JOINT a name or #index; "
                  "radius 0 removes the volume); repeatable")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  sub->add_flag("--reset", o->reset, "go back to the capsules fitted at load first");
  sub->callback([o, &plan] {
    if (o->capsules.empty() && !o->reset) {
      plan.command = "hit-volumes";
      plan.request.mutable_get_hit_volumes()->set_asset(o->asset);
      plan.print_human = [](const Reply& r, std::ostream& out) {
        print_hit_volumes(r.hit_volumes(), out);
      };
      return;
    }
    plan.command = "hit-volumes set";
    auto* set = plan.request.mutable_set_hit_volumes();
    set->set_asset(o->asset);
    set->set_reset(o->reset);
    for (const auto& text : o->capsules)
      *set->add_joints() = parse_joint_capsule("--capsule", text);
  });
}

void add_watch(CLI::App& app, Plan& plan) {
  struct Opts {
    std::vector<std::string> ids;
    std::string frames, divisor, joint, near, radius, encoding = "float", min_weight;
    bool all = false, events = false;
  };
  auto o = store<Opts>();
  CLI::App* sub = app.add_subcommand("watch", "Subscribe and print frames as they stream");
  sub->alias("subscribe");
  sub->add_option("ids", o->ids, "character ids (or --all, or --near with --radius)");
  sub->add_flag("--all", o->all, "every character, including ones spawned later");
  sub->add_option("--near", o->near,
                  "X,Y,Z: the characters within --radius metres of this world point (a region "
                  "subscription: they enter and leave as they move)");
  sub->add_option("--radius", o->radius, "metres, with --near");
  sub->add_option("--frames", o->frames, "stop after N frames (default: until Ctrl-C)");
  sub->add_option("--rate-divisor", o->divisor, "every Nth tick (default 1)");
  sub->add_option("--joint", o->joint,
                  "palette joint index whose translation is printed (default 0)");
  sub->add_option("--encoding", o->encoding,
                  "stream encoding: float (3x4 matrices, the default) | compact (quantized, "
                  "delta-coded; decoded here to the same palettes)")
      ->check(CLI::IsMember({"float", "compact"}));
  sub->add_flag("--events", o->events, "also print the animation events the characters fire");
  sub->add_option("--min-weight", o->min_weight,
                  "with --events: only events of clips weighing at least W (0..1) in the pose");
  sub->callback([o, &plan] {
    plan.command = "watch";
    auto* subscribe = plan.request.mutable_subscribe();
    const bool region = !o->near.empty() || !o->radius.empty();
    if (int{!o->ids.empty()} + int{o->all} + int{region} != 1)
      throw UsageError("watch: give character ids, --all, or --near with --radius (one of them)");
    for (const auto& id : o->ids) subscribe->add_character_ids(parse_id("character id", id));
    subscribe->set_all_characters(o->all);
    subscribe->set_encoding(o->encoding == "compact" ? anim::v1::ENCODING_COMPACT
                                                     : anim::v1::ENCODING_FLOAT_3X4);
    if (region) {
      if (o->near.empty() || o->radius.empty())
        throw UsageError("watch: --near and --radius go together");
      auto* sphere = subscribe->mutable_region()->mutable_sphere();
      *sphere->mutable_center() = parse_vec3("--near", o->near);
      const float radius = parse_float("--radius", o->radius);
      if (!(radius > 0.0f)) throw UsageError("--radius: must be > 0");
      sphere->set_radius(radius);
    }
    if (!o->divisor.empty()) {
      const uint64_t d = parse_u64("--rate-divisor", o->divisor);
      if (d == 0 || d > 3600) throw UsageError("--rate-divisor: must be 1 .. 3600");
      subscribe->set_rate_divisor(static_cast<uint32_t>(d));
    }
    if (!o->min_weight.empty() && !o->events) throw UsageError("--min-weight needs --events");
    if (o->events) {
      subscribe->mutable_events()->set_enabled(true);
      if (!o->min_weight.empty())
        subscribe->mutable_events()->set_min_weight(
            parse_float_in("--min-weight", o->min_weight, 0.0f, 1.0f));
    }
    plan.watch = true;
    plan.watch_frames = o->frames.empty() ? 0 : parse_u64("--frames", o->frames);
    if (!o->joint.empty()) {
      const uint64_t joint = parse_u64("--joint", o->joint);
      if (joint > 65535) throw UsageError("--joint: must be 0 .. 65535");
      plan.watch_joint = static_cast<uint32_t>(joint);
    }
  });
}

void add_listing(CLI::App& app, Plan& plan) {
  app.add_subcommand("characters", "List characters")->callback([&plan] {
    plan.command = "characters";
    plan.request.mutable_list_characters();
    plan.print_human = [](const Reply& r, std::ostream& out) {
      print_characters(r.list_characters(), out);
    };
  });
  app.add_subcommand("stats", "Daemon statistics")->callback([&plan] {
    plan.command = "stats";
    plan.request.mutable_stats();
    plan.print_human = [](const Reply& r, std::ostream& out) { print_stats(r.stats(), out); };
  });
  app.add_subcommand("assets", "List loaded assets and their clips")->callback([&plan] {
    plan.command = "assets";
    plan.request.mutable_list_assets();
    plan.print_human = [](const Reply& r, std::ostream& out) {
      print_assets(r.list_assets(), out);
    };
  });
}

void add_load(CLI::App& app, Plan& plan) {
  struct Opts {
    std::string path, name, skin, attach_to, clip_name;
    std::optional<float> bvh_scale;
    bool upload = false;
  };
  auto o = store<Opts>();
  CLI::App* sub = app.add_subcommand("load", "Load an asset into the daemon");
  sub->add_option("path", o->path,
                  "path under the daemon's asset root (.glb, .gltf, .md5mesh, .bvh)")
      ->required();
  sub->add_option("--name", o->name, "asset name (default: the file stem)");
  sub->add_option("--skin", o->skin, "glTF skin name (default: the first skinned mesh's)");
  sub->add_flag("--upload", o->upload,
                "send the local file's bytes (.glb, or .bvh text) instead of a daemon path");
  sub->add_option("--attach-to", o->attach_to,
                  "BVH: retarget the clip onto this loaded asset instead of making a new one");
  sub->add_option("--clip-name", o->clip_name, "BVH: the clip's name (default: the file stem)");
  sub->add_option("--bvh-scale", o->bvh_scale,
                  "BVH: scene units per file unit (default 1; with --attach-to: measured)");
  sub->callback([o, &plan] {
    plan.command = "load";
    auto* load = plan.request.mutable_load_asset();
    const bool bvh = o->path.size() >= 4 && (o->path.substr(o->path.size() - 4) == ".bvh" ||
                                             o->path.substr(o->path.size() - 4) == ".BVH");
    if (o->upload) {
      std::ifstream file(o->path, std::ios::binary);
      if (!file) throw UsageError("load --upload: cannot read '" + o->path + "'");
      std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
      if (bvh) {
        load->set_bvh_data(std::move(bytes));
        // An uploaded clip is named after the local file unless told otherwise.
        if (o->clip_name.empty() && !o->attach_to.empty())
          o->clip_name = std::filesystem::path(o->path).stem().string();
      } else {
        load->set_glb_data(std::move(bytes));
      }
      if (o->name.empty() && o->attach_to.empty())
        throw UsageError("load --upload: --name is required");
    } else {
      load->set_path(o->path);
    }
    load->set_name(o->name);
    load->set_skin_name(o->skin);
    load->set_attach_to(o->attach_to);
    load->set_clip_name(o->clip_name);
    if (o->bvh_scale) load->set_bvh_scale(*o->bvh_scale);
    plan.print_human = [](const Reply& r, std::ostream& out) {
      out << "loaded ";
      print_asset(r.load_asset().asset(), out);
    };
  });
}

void add_mesh(CLI::App& app, Plan& plan) {
  struct Opts {
    std::string asset;
    bool skeleton_only = false;
  };
  auto o = store<Opts>();
  CLI::App* sub =
      app.add_subcommand("mesh", "Summary of an asset's skeleton and mesh (get_asset_data)");
  sub->add_option("asset", o->asset, "asset name")->required();
  sub->add_flag("--skeleton-only", o->skeleton_only, "do not fetch the mesh");
  sub->callback([o, &plan] {
    plan.command = "mesh";
    plan.request.mutable_get_asset_data()->set_asset(o->asset);
    plan.request.mutable_get_asset_data()->set_skip_mesh(o->skeleton_only);
    plan.print_human = [](const Reply& r, std::ostream& out) {
      print_mesh_summary(r.get_asset_data(), false, out);
    };
    plan.print_json = [](const Reply& r, std::ostream& out) {
      print_mesh_summary(r.get_asset_data(), true, out);
    };
  });
}

}  // namespace

void add_global_options(CLI::App& app, GlobalOptions& g) {
  app.add_option("--host", g.host, "daemon host (default 127.0.0.1)")->envname("ANIMD_HOST");
  app.add_option("--port", g.port, "daemon port (default 7450)")->envname("ANIMD_PORT");
  app.add_option("--token", g.token, "auth token for control commands")->envname("ANIMD_TOKEN");
  app.add_option("--timeout", g.timeout_ms, "connect and reply timeout in ms (default 5000)");
  app.add_flag("--json", g.json, "print the reply as JSON (protobuf JSON mapping, snake_case)");
  auto* tls = app.add_flag("--tls", g.tls, "connect with TLS (1.2+), verifying the server")
                  ->envname("ANIMD_TLS");
  app.add_option("--ca", g.ca_file,
                 "PEM CA file the server certificate must chain to "
                 "(default: the system store)")
      ->envname("ANIMD_CA")
      ->needs(tls);
  auto* cert = app.add_option("--cert", g.cert_file, "PEM client certificate (with --key)")
                   ->envname("ANIMD_CERT")
                   ->needs(tls);
  auto* key = app.add_option("--key", g.key_file, "PEM private key of --cert")
                  ->envname("ANIMD_KEY")
                  ->needs(tls);
  cert->needs(key);
  key->needs(cert);
  app.add_option("--server-name", g.server_name,
                 "name the server certificate must carry (default: --host)")
      ->needs(tls);
}

void add_commands(CLI::App& app, Plan& plan) {
  add_spawn(app, plan);
  add_despawn(app, plan);
  add_play(app, plan);
  add_crossfade(app, plan);
  add_speed(app, plan);
  add_root(app, plan);
  add_root_motion(app, plan);
  add_events(app, plan);
  add_blend_commands(app, plan);
  add_additive(app, plan);
  add_ik(app, plan);
  add_aim(app, plan);
  add_feet(app, plan);
  add_pose(app, plan);
  add_raycast(app, plan);
  add_overlap(app, plan);
  add_hit_volumes(app, plan);
  add_watch(app, plan);
  add_listing(app, plan);
  add_load(app, plan);
  add_mesh(app, plan);
}

}  // namespace animctl
