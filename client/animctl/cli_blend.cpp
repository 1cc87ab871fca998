// animctl's blend-space subcommands: `blend-space` defines one on an asset, `param` sets a
// character's parameter (docs/animation.md, "Blend spaces"). play / crossfade name a blend
// space like a clip.
#include <memory>
#include <string>
#include <vector>

#include "args.h"
#include "cli.h"

namespace animctl {

namespace {

// CLIP@X or CLIP@X,Y (the clip name may hold anything before the last '@').
anim::v1::BlendSpaceSample parse_sample(const std::string& text) {
  const size_t at = text.rfind('@');
  if (at == std::string::npos || at == 0)
    throw UsageError("--sample: '" + text + "' is not CLIP@X or CLIP@X,Y");
  anim::v1::BlendSpaceSample s;
  s.set_clip(text.substr(0, at));
  const std::string where = text.substr(at + 1);
  const size_t comma = where.find(',');
  s.set_x(parse_float("--sample " + s.clip() + " x", where.substr(0, comma)));
  if (comma != std::string::npos)
    s.set_y(parse_float("--sample " + s.clip() + " y", where.substr(comma + 1)));
  return s;
}

}  // namespace

void add_blend_commands(CLI::App& app, Plan& plan) {
  struct DefineOpts {
    std::string asset, name;
    std::vector<std::string> axes, samples;
    bool sync_markers = false;
  };
  auto d = std::make_shared<DefineOpts>();
  CLI::App* def = app.add_subcommand(
      "blend-space", "Define a 1D or 2D blend space on an asset (play / crossfade it by name)");
  def->add_option("asset", d->asset, "asset name")->required();
  def->add_option("name", d->name, "the blend space's name (not a clip's)")->required();
  def->add_option("--axis", d->axes, "a parameter name: once for 1D, twice (x then y) for 2D")
      ->required();
  def->add_option("--sample", d->samples, "a clip at a point, CLIP@X (1D) or CLIP@X,Y (2D)")
      ->required();
  def->add_flag("--sync-markers", d->sync_markers,
                "keep the samples on the leading sample's foot plants (needs foot IK)");
  def->callback([d, &plan] {
    plan.command = "blend-space";
    if (d->axes.size() > 2) throw UsageError("blend-space: at most two --axis");
    auto* req = plan.request.mutable_define_blend_space();
    req->set_asset(d->asset);
    req->set_name(d->name);
    for (const auto& a : d->axes) req->add_axes(a);
    for (const auto& s : d->samples) *req->add_samples() = parse_sample(s);
    req->set_sync_markers(d->sync_markers);
    plan.print_human = [](const anim::v1::Reply& r, std::ostream& out) {
      out << "defined";
      if (r.define_blend_space().triangles() > 0)
        out << " (" << r.define_blend_space().triangles() << " triangles)";
      out << " (tick " << r.tick() << ")\n";
    };
  });

  struct ParamOpts {
    std::string id, name, value, smoothing;
  };
  auto p = std::make_shared<ParamOpts>();
  CLI::App* param = app.add_subcommand("param", "Set a character's blend-space parameter");
  param->add_option("id", p->id, "character id (from spawn)")->required();
  param->add_option("name", p->name, "parameter name (a blend space's axis)")->required();
  param->add_option("value", p->value, "the value")->required();
  param->add_option("--smoothing", p->smoothing,
                    "seconds to cover about 90% of the change (default 0: at once)");
  param->callback([p, &plan] {
    plan.command = "param";
    auto* req = plan.request.mutable_set_parameter();
    req->set_character_id(parse_id("character id", p->id));
    req->set_name(p->name);
    req->set_value(parse_float("value", p->value));
    if (!p->smoothing.empty())
      req->set_smoothing(parse_float_in("--smoothing", p->smoothing, 0.0f, 3600.0f));
  });
}

}  // namespace animctl
