// animctl's asset commands: `load` (a daemon path or an uploaded file), `mesh` (a summary of
// get_asset_data) and `events` (a clip's animation events).
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "args.h"
#include "cli_commands.h"
#include "format.h"

namespace animctl {

namespace {

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

}  // namespace

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

void add_load(CLI::App& app, Plan& plan) {
  struct Opts {
    std::string path, name, skin, attach_to, clip_name;
    std::optional<float> bvh_scale;
    bool upload = false;
    bool shared = false;
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
  sub->add_flag("--shared", o->shared,
                "with tokens: let every control token use the asset (default: this token's)");
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
    load->set_shared(o->shared);
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

}  // namespace animctl
