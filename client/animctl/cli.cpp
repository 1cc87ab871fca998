// animctl's command line as a whole: the global options (daemon address, auth, TLS, output)
// and the table of subcommands, registered in the order --help lists them. The commands
// themselves live in cli_*.cpp by purpose (see cli_commands.h).
#include "cli.h"

#include "cli_commands.h"

namespace animctl {

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
  add_significance(app, plan);
  add_play(app, plan);
  add_crossfade(app, plan);
  add_speed(app, plan);
  add_root(app, plan);
  add_root_motion(app, plan);
  add_events(app, plan);
  add_blend_commands(app, plan);
  add_additive(app, plan);
  add_montage(app, plan);
  add_held_pose(app, plan);
  add_morph(app, plan);
  add_machine(app, plan);
  add_trigger(app, plan);
  add_state(app, plan);
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
  add_export(app, plan);
  add_import(app, plan);
  add_migrate(app, plan);
}

}  // namespace animctl
