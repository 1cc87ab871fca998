// animctl's state machine subcommands (docs/protocol.md, "State machines"): `machine define
// ASSET FILE` sends one define_state_machine per machine of an `.animgraph.json` file,
// `machine start ID NAME [--state S]` and `machine stop ID` run and stop one on a character,
// `machine layer ID NAME [...]` runs one in a layer (remove it with `additive ID remove`),
// `trigger ID NAME [--clear]` sets or clears a trigger, `state ID` shows where the machines
// are, with the character's parameters and triggers.
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

#include "anim/v1/state_machine.pb.h"
#include "animjson/json_message.h"
#include "args.h"
#include "cli_commands.h"

namespace animctl {

namespace {

// The machines of an `.animgraph.json` file (a StateMachineFile in protobuf's JSON form).
anim::v1::StateMachineFile read_machine_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError("machine define: cannot read '" + path + "'");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw UsageError("machine define: cannot read '" + path + "'");
  anim::v1::StateMachineFile file;
  if (std::string error = animjson::parse_json_message(text, file); !error.empty())
    throw UsageError("machine define: " + path + ": " + error);
  if (file.state_machines_size() == 0)
    throw UsageError("machine define: " + path + " has no state_machines");
  return file;
}

std::string fixed3(float v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", static_cast<double>(v));
  return text;
}

// One machine's line: the base's (GetStateReply) or a layer's (MachineLayerState).
template <typename Machine>
void print_machine(const Machine& s, std::ostream& out) {
  out << "machine " << s.machine() << ": state " << s.state() << " (normalized time "
      << fixed3(s.state_time()) << ")";
  if (s.has_transition()) {
    const auto& t = s.transition();
    out << ", transition " << t.index() << " from " << t.from() << " to " << t.to() << " "
        << fixed3(t.elapsed()) << " / " << fixed3(t.duration()) << " s";
  }
  out << "\n";
}

void print_state(const anim::v1::GetStateReply& s, std::ostream& out) {
  if (s.machine().empty())
    out << "no state machine runs on the base\n";
  else
    print_machine(s, out);
  for (const auto& layer : s.layers()) {
    out << "layer " << layer.layer_id() << ": ";
    print_machine(layer, out);
  }
  for (const auto& p : s.parameters())
    out << "parameter " << p.name() << " = " << fixed3(p.value()) << "\n";
  for (const auto& t : s.triggers())
    out << "trigger " << t.name() << (t.set() ? " set" : " clear") << "\n";
}

}  // namespace

void add_machine(CLI::App& app, Plan& plan) {
  CLI::App* sub = app.add_subcommand("machine", "Define, start or stop state machines");
  sub->require_subcommand(1);

  struct DefineOpts {
    std::string asset, file;
  };
  auto d = store<DefineOpts>();
  CLI::App* define = sub->add_subcommand(
      "define", "Define every state machine of an .animgraph.json file on an asset");
  define->add_option("asset", d->asset, "asset name")->required();
  define->add_option("file", d->file, "a StateMachineFile in protobuf's JSON form")->required();
  define->callback([d, &plan] {
    const anim::v1::StateMachineFile file = read_machine_file(d->file);
    for (int i = 0; i < file.state_machines_size(); ++i) {
      PlanStep step;
      const std::string& name = file.state_machines(i).name();
      step.command = "machine define '" + name + "'";
      auto* req = step.request.mutable_define_state_machine();
      req->set_asset(d->asset);
      *req->mutable_machine() = file.state_machines(i);
      step.print_human = [name](const Reply& r, std::ostream& out) {
        out << "defined state machine '" << name << "' (" << tick_of(r) << ")\n";
      };
      if (i == 0) {
        plan.command = step.command;
        plan.request = std::move(step.request);
        plan.print_human = std::move(step.print_human);
      } else {
        plan.then.push_back(std::move(step));
      }
    }
  });

  struct StartOpts {
    std::string id, name, state;
  };
  auto s = store<StartOpts>();
  CLI::App* start = sub->add_subcommand("start", "Run a state machine on a character's base");
  start->add_option("id", s->id, "character id (from spawn)")->required();
  start->add_option("name", s->name, "the machine (defined on the character's asset)")->required();
  start->add_option("--state", s->state, "the state to start in (default: its entry)");
  start->callback([s, &plan] {
    plan.command = "machine start";
    auto* req = plan.request.mutable_start_state_machine();
    req->set_character_id(parse_id("character id", s->id));
    req->set_machine(s->name);
    req->set_state(s->state);
    plan.print_human = [](const Reply& r, std::ostream& out) {
      out << "started (" << tick_of(r) << ")\n";
    };
  });

  struct LayerOpts {
    std::string id, name, state, weight, mask_root, speed, blend = "override";
  };
  auto l = store<LayerOpts>();
  CLI::App* layer = sub->add_subcommand(
      "layer", "Run a state machine in a new layer (remove it with `additive ID remove`)");
  layer->add_option("id", l->id, "character id (from spawn)")->required();
  layer->add_option("name", l->name, "the machine (defined on the character's asset)")->required();
  layer->add_option("--state", l->state, "the state to start in (default: its entry)");
  layer->add_option("--weight", l->weight, "0..1 (default 1)");
  layer->add_option("--mask-root", l->mask_root, "only this joint and its subtree");
  layer->add_option("--speed", l->speed, "a rate on its clocks (default 1)");
  layer->add_option("--blend", l->blend, "override (default) | additive");
  layer->callback([l, &plan] {
    plan.command = "machine layer";
    auto* req = plan.request.mutable_add_layer();
    req->set_character_id(parse_id("character id", l->id));
    req->set_state_machine(l->name);
    req->set_state(l->state);
    if (!l->weight.empty()) req->set_weight(parse_float_in("--weight", l->weight, 0.0f, 1.0f));
    if (!l->mask_root.empty()) req->mutable_mask()->set_blend_root(l->mask_root);
    if (!l->speed.empty()) req->set_speed(parse_float("--speed", l->speed));
    if (l->blend == "override")
      req->set_blend(anim::v1::LAYER_BLEND_OVERRIDE);
    else if (l->blend != "additive")
      throw UsageError("--blend: override or additive, not '" + l->blend + "'");
    plan.print_human = [](const Reply& r, std::ostream& out) {
      out << "added machine layer " << r.add_layer().layer_id() << " (" << tick_of(r) << ")\n";
    };
  });

  auto stop_id = store<std::string>();
  CLI::App* stop =
      sub->add_subcommand("stop", "Stop the character's state machine (the base keeps playing)");
  stop->add_option("id", *stop_id, "character id (from spawn)")->required();
  stop->callback([stop_id, &plan] {
    plan.command = "machine stop";
    plan.request.mutable_stop_state_machine()->set_character_id(parse_id("character id", *stop_id));
    plan.print_human = [](const Reply& r, std::ostream& out) {
      out << "stopped (" << tick_of(r) << ")\n";
    };
  });
}

void add_trigger(CLI::App& app, Plan& plan) {
  struct Opts {
    std::string id, name;
    bool clear = false;
  };
  auto o = store<Opts>();
  CLI::App* sub = id_command(app, "trigger", "Set (or clear) a state machine trigger", o->id);
  sub->add_option("name", o->name, "the trigger")->required();
  sub->add_flag("--clear", o->clear, "clear it instead");
  sub->callback([o, &plan] {
    plan.command = "trigger";
    auto* req = plan.request.mutable_set_trigger();
    req->set_character_id(parse_id("character id", o->id));
    req->set_name(o->name);
    req->set_clear(o->clear);
    plan.print_human = [clear = o->clear](const Reply& r, std::ostream& out) {
      out << (clear ? "cleared" : "set") << " (" << tick_of(r) << ")\n";
    };
  });
}

void add_state(CLI::App& app, Plan& plan) {
  auto id = store<std::string>();
  CLI::App* sub =
      id_command(app, "state", "Where the character's state machine is: state, transition", *id);
  sub->callback([id, &plan] {
    plan.command = "state";
    plan.request.mutable_get_state()->set_character_id(parse_id("character id", *id));
    plan.print_human = [](const Reply& r, std::ostream& out) { print_state(r.get_state(), out); };
  });
}

}  // namespace animctl
