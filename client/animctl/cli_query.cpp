// animctl's query and inspection commands: pose, raycast, overlap, hit-volumes (which also
// sets them), and the characters / stats / assets listings. The replies print through
// format.h.
#include <string>
#include <vector>

#include "args.h"
#include "cli_commands.h"
#include "format.h"

namespace animctl {

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

namespace {

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

}  // namespace

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

}  // namespace animctl
