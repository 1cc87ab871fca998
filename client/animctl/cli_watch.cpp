// animctl's streaming command: `watch` (alias `subscribe`) subscribes to characters, all of
// them or a region, and leaves the Plan set to print frames as they stream (run.cpp).
#include <string>
#include <vector>

#include "args.h"
#include "cli_commands.h"

namespace animctl {

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

}  // namespace animctl
