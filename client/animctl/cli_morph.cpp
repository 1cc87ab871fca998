// animctl's morph target command (docs/animation.md, "Morph targets"): `morph ID NAME=VALUE...
// [--over SECONDS]` overrides the named targets' weights, `morph ID --clear [NAME...]
// [--over SECONDS]` hands them (none named: all) back to the clips. A name is a target's
// ("Surprised"), "set/target", or a number: the target's index in the character's weights.
#include <cctype>
#include <cstdint>
#include <string>
#include <vector>

#include "args.h"
#include "cli_commands.h"

namespace animctl {

namespace {

bool is_index(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

void name_target(anim::v1::MorphWeight& w, const std::string& name) {
  if (is_index(name)) {
    const uint64_t index = parse_u64("morph: target index", name);
    if (index > UINT32_MAX) throw UsageError("morph: target index " + name + " is too large");
    w.set_index(static_cast<uint32_t>(index));
  } else
    w.set_name(name);
}

}  // namespace

void add_morph(CLI::App& app, Plan& plan) {
  auto id = store<std::string>();
  auto entries = store<std::vector<std::string>>();
  auto over = store<std::string>();
  auto clear = store<bool>();
  CLI::App* morph = id_command(
      app, "morph",
      "Set morph target weights (NAME=VALUE...), or hand them back to the clips (--clear)", *id);
  morph->add_option("targets", *entries,
                    "NAME=VALUE to set (VALUE in [-1, 2]); with --clear, the NAMEs to release "
                    "(none: all). NAME: a target, set/target, or an index");
  morph->add_option("--over", *over, "blend time in seconds (default 0: at the next tick)");
  morph->add_flag("--clear", *clear, "hand the targets back to the clips");
  morph->callback([id, entries, over, clear, &plan] {
    plan.command = "morph";
    const uint32_t character = parse_id("character id", *id);
    const float blend = over->empty() ? 0.0f : parse_float("--over", *over);
    if (*clear) {
      auto* req = plan.request.mutable_clear_morph_weights();
      req->set_character_id(character);
      req->set_blend_time(blend);
      for (const std::string& name : *entries) {
        if (name.find('=') != std::string::npos)
          throw UsageError("morph --clear: '" + name + "' has a value; name targets only");
        name_target(*req->add_targets(), name);
      }
      plan.print_human = [](const Reply& r, std::ostream& out) {
        out << "morph weights released (" << tick_of(r) << ")\n";
      };
      return;
    }
    if (entries->empty()) throw UsageError("morph: give NAME=VALUE pairs, or --clear");
    auto* req = plan.request.mutable_set_morph_weights();
    req->set_character_id(character);
    req->set_blend_time(blend);
    for (const std::string& entry : *entries) {
      const size_t eq = entry.find('=');
      if (eq == std::string::npos || eq == 0)
        throw UsageError("morph: '" + entry + "' is not NAME=VALUE");
      auto* w = req->add_weights();
      name_target(*w, entry.substr(0, eq));
      w->set_value(parse_float("morph: " + entry.substr(0, eq), entry.substr(eq + 1)));
    }
    plan.print_human = [](const Reply& r, std::ostream& out) {
      out << "morph weights set (" << tick_of(r) << ")\n";
    };
  });
}

}  // namespace animctl
