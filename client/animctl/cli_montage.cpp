// animctl's montage subcommands (docs/animation.md, "Montages"): `montage ID slot` adds a slot
// (an override layer without a clip), `montage ID play SLOT CLIP` plays a clip once in it
// (with `--section NAME:START[:NEXT]` sections), `montage ID stop SLOT` blends it out,
// `montage ID jump SLOT SECTION` moves it to a section.
#include <string>
#include <vector>

#include "args.h"
#include "cli_commands.h"

namespace animctl {

namespace {

// "NAME:START[:NEXT]" -> a section (START in seconds into the clip).
anim::v1::MontageSection parse_section(const std::string& text) {
  const size_t colon = text.find(':');
  if (colon == std::string::npos || colon == 0)
    throw UsageError("--section: '" + text + "' is not NAME:START[:NEXT]");
  const size_t second = text.find(':', colon + 1);
  anim::v1::MontageSection s;
  s.set_name(text.substr(0, colon));
  s.set_start_time(
      parse_float("--section " + s.name() + " start",
                  text.substr(colon + 1, second == std::string::npos ? std::string::npos
                                                                     : second - colon - 1)));
  if (second != std::string::npos) {
    if (second + 1 == text.size())
      throw UsageError("--section: '" + text + "' has an empty NEXT (leave out the ':')");
    s.set_next(text.substr(second + 1));
  }
  return s;
}

}  // namespace

void add_montage(CLI::App& app, Plan& plan) {
  auto id = store<std::string>();
  CLI::App* sub = id_command(app, "montage", "Add a montage slot, play or stop a montage", *id);
  sub->require_subcommand(1);

  struct SlotOpts {
    std::string mask_root, mask_joints, weight;
  };
  auto s = store<SlotOpts>();
  CLI::App* slot = sub->add_subcommand("slot", "Add a slot: an override layer for montages");
  slot->add_option("--mask-root", s->mask_root, "only this joint and its subtree");
  slot->add_option("--mask-joints", s->mask_joints, "per-joint weights JOINT=W,JOINT=W");
  slot->add_option("--weight", s->weight, "0..1: scales its montages (default 1)");
  slot->callback([id, s, &plan] {
    plan.command = "montage slot";
    auto* layer = plan.request.mutable_add_layer();
    layer->set_character_id(parse_id("character id", *id));
    layer->set_blend(anim::v1::LAYER_BLEND_OVERRIDE);
    if (!s->weight.empty()) layer->set_weight(parse_float_in("--weight", s->weight, 0.0f, 1.0f));
    if (!s->mask_root.empty()) layer->mutable_mask()->set_blend_root(s->mask_root);
    if (!s->mask_joints.empty())
      parse_joint_weights("--mask-joints", s->mask_joints,
                          *layer->mutable_mask()->mutable_joint_weights());
    plan.print_human = [](const Reply& r, std::ostream& out) {
      out << "added slot " << r.add_layer().layer_id() << " (" << tick_of(r) << ")\n";
    };
  });

  struct PlayOpts {
    std::string slot, clip, rate, blend_in, blend_out, start;
    std::vector<std::string> sections;
  };
  auto p = store<PlayOpts>();
  CLI::App* play = sub->add_subcommand("play", "Play a clip once in a slot");
  play->add_option("slot", p->slot, "slot id (from montage slot)")->required();
  play->add_option("clip", p->clip, "the clip")->required();
  play->add_option("--rate", p->rate, "clip seconds per second, > 0 (default 1)");
  play->add_option("--blend-in", p->blend_in, "seconds to full weight (default 0)");
  play->add_option("--blend-out", p->blend_out, "seconds to 0 at the clip's end (default 0)");
  play->add_option("--start", p->start, "seconds into the clip (default 0)");
  play->add_option("--section", p->sections,
                   "a section NAME:START[:NEXT] (START in seconds; NEXT: the section played "
                   "after it, itself to loop; none: the montage ends with it); repeatable, in "
                   "clip order, the first at 0");
  play->callback([id, p, &plan] {
    plan.command = "montage play";
    auto* req = plan.request.mutable_play_montage();
    req->set_character_id(parse_id("character id", *id));
    req->set_slot(parse_id("slot id", p->slot));
    req->set_clip(p->clip);
    if (!p->rate.empty()) req->set_rate(parse_float("--rate", p->rate));
    if (!p->blend_in.empty()) req->set_blend_in(parse_float("--blend-in", p->blend_in));
    if (!p->blend_out.empty()) req->set_blend_out(parse_float("--blend-out", p->blend_out));
    if (!p->start.empty()) req->set_start_time(parse_float("--start", p->start));
    for (const auto& text : p->sections) *req->add_sections() = parse_section(text);
    plan.print_human = [](const Reply& r, std::ostream& out) {
      out << "playing (" << tick_of(r) << ")\n";
    };
  });

  struct StopOpts {
    std::string slot, blend_out;
  };
  auto t = store<StopOpts>();
  CLI::App* stop = sub->add_subcommand("stop", "Blend out the montage playing in a slot");
  stop->add_option("slot", t->slot, "slot id")->required();
  stop->add_option("--blend-out", t->blend_out, "seconds to 0 (default 0)");
  stop->callback([id, t, &plan] {
    plan.command = "montage stop";
    auto* req = plan.request.mutable_stop_montage();
    req->set_character_id(parse_id("character id", *id));
    req->set_slot(parse_id("slot id", t->slot));
    if (!t->blend_out.empty()) req->set_blend_out(parse_float("--blend-out", t->blend_out));
    plan.print_human = [](const Reply& r, std::ostream& out) {
      out << "stopping (" << tick_of(r) << ")\n";
    };
  });

  struct JumpOpts {
    std::string slot, section;
  };
  auto j = store<JumpOpts>();
  CLI::App* jump = sub->add_subcommand("jump", "Move the montage in a slot to a section's start");
  jump->add_option("slot", j->slot, "slot id")->required();
  jump->add_option("section", j->section, "the section's name (montage play --section)")
      ->required();
  jump->callback([id, j, &plan] {
    plan.command = "montage jump";
    auto* req = plan.request.mutable_jump_to_section();
    req->set_character_id(parse_id("character id", *id));
    req->set_slot(parse_id("slot id", j->slot));
    req->set_section(j->section);
    plan.print_human = [](const Reply& r, std::ostream& out) {
      out << "jumped (" << tick_of(r) << ")\n";
    };
  });
}

}  // namespace animctl
