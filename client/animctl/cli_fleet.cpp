// animctl's commands that move characters between daemons: export (their states, as JSON),
// import (characters from such a file) and migrate (to another daemon, alive).
#include <fstream>
#include <iterator>
#include <string>

#include "animjson/json_message.h"
#include "args.h"
#include "cli_commands.h"
#include "format.h"

namespace animctl {

namespace {

// "host:port" split and checked.
std::pair<std::string, uint32_t> parse_host_port(const std::string& what, const std::string& text) {
  const size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size())
    throw UsageError(what + ": '" + text + "' is not HOST:PORT");
  const uint64_t port = parse_u64(what + " port", text.substr(colon + 1));
  if (port == 0 || port > 65535)
    throw UsageError(what + ": port " + std::to_string(port) + " is outside 1..65535");
  return {text.substr(0, colon), static_cast<uint32_t>(port)};
}

void add_ids(const std::string& what, const std::vector<std::string>& texts,
             google::protobuf::RepeatedField<uint32_t>* out) {
  for (const std::string& t : texts)
    for (const std::string& id : parse_list(what, t)) out->Add(parse_id(what, id));
}

}  // namespace

void add_export(CLI::App& app, Plan& plan) {
  auto ids = store<std::vector<std::string>>();
  CLI::App* sub = app.add_subcommand(
      "export", "Print characters' whole states (export_characters) as JSON, for `import`");
  sub->add_option("ids", *ids, "character ids (space- or comma-separated)")->required();
  sub->callback([ids, &plan] {
    plan.command = "export";
    add_ids("ids", *ids, plan.request.mutable_export_characters()->mutable_character_ids());
    // The reply's JSON is what `import` reads, for people too.
    plan.print_human = [](const Reply& r, std::ostream& out) {
      out << to_json(r.export_characters()) << "\n";
    };
    plan.print_json = plan.print_human;
  });
}

void add_import(CLI::App& app, Plan& plan) {
  auto file = store<std::string>();
  CLI::App* sub =
      app.add_subcommand("import", "New characters from a file `export` wrote (import_characters)");
  sub->add_option("file", *file, "JSON of `animctl export`")->required();
  sub->callback([file, &plan] {
    plan.command = "import";
    std::ifstream in(*file, std::ios::binary);
    if (!in) throw UsageError("import: cannot read '" + *file + "'");
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    anim::v1::ExportCharactersReply states;
    if (std::string error = animjson::parse_json_message(text, states); !error.empty())
      throw UsageError("import: " + *file + ": " + error);
    if (states.states_size() == 0) throw UsageError("import: " + *file + " holds no states");
    *plan.request.mutable_import_characters()->mutable_states() = states.states();
    plan.print_human = [](const Reply& r, std::ostream& out) {
      out << "imported characters";
      for (uint32_t id : r.import_characters().character_ids()) out << " " << id;
      out << " (" << tick_of(r) << ")\n";
    };
  });
}

void add_migrate(CLI::App& app, Plan& plan) {
  struct Opts {
    std::vector<std::string> ids;
    std::string to, token, deadline_ms = "0";
    bool tls = false;
  };
  auto o = store<Opts>();
  CLI::App* sub = app.add_subcommand(
      "migrate", "Move characters to another daemon, alive (migrate); waits for the move");
  sub->add_option("ids", o->ids, "character ids (space- or comma-separated)")->required();
  sub->add_option("--to", o->to, "the target daemon, HOST:PORT as this daemon reaches it")
      ->required();
  sub->add_option("--target-token", o->token, "the target's control token");
  sub->add_flag("--target-tls", o->tls, "speak TLS to the target (checked by --peer-ca-file)");
  sub->add_option("--deadline-ms", o->deadline_ms, "how long it may take (0: the daemon's 10 s)");
  sub->callback([o, &plan] {
    plan.command = "migrate";
    auto* m = plan.request.mutable_migrate();
    add_ids("ids", o->ids, m->mutable_character_ids());
    const auto [host, port] = parse_host_port("--to", o->to);
    m->mutable_target()->set_host(host);
    m->mutable_target()->set_port(port);
    m->mutable_target()->set_token(o->token);
    m->mutable_target()->set_tls(o->tls);
    const uint64_t ms = parse_u64("--deadline-ms", o->deadline_ms);
    if (ms > 60000) throw UsageError("--deadline-ms: at most 60000");
    m->set_deadline_ms(static_cast<uint32_t>(ms));
    plan.print_human = [](const Reply& r, std::ostream& out) {
      out << "moved to " << r.migrate().target() << " as";
      for (uint32_t id : r.migrate().character_ids()) out << " " << id;
      out << " from tick " << r.migrate().tick() << "\n";
    };
  });
}

}  // namespace animctl
