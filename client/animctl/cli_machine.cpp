// animctl's state machine subcommands (docs/protocol.md, "State machines"): `machine define
// ASSET FILE` sends one define_state_machine per machine of an `.animgraph.json` file,
// `machine start ID NAME [--state S]` and `machine stop ID` run and stop one on a character,
// `trigger ID NAME [--clear]` sets or clears a trigger, `state ID` shows where the machine is.
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

void print_state(const anim::v1::GetStateReply& s, std::ostream& out) {
  if (s.machine().empty()) {
    out << "no state machine runs\n";
    return;
  }
  out << "machine " << s.machine() << ": state " << s.state() << " (normalized time "
      << fixed3(s.state_time()) << ")";
  if (s.has_transition()) {
    const auto& t = s.transition();
    out << ", transition " << t.index() << " from " << t.from() << " to " << t.to() << " "
        << fixed3(t.elapsed()) << " / " << fixed3(t.duration()) << " s";
  }
  out << "\n";
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
