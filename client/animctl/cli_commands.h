#pragma once
// Internal to animctl's command line: the per-command registration functions that
// add_commands (cli.cpp) calls in --help order, and the small helpers the command files share.
// Each add_* adds one subcommand (or a group under one name) whose callback fills the Plan.

#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "plan.h"

namespace animctl {

using anim::v1::Reply;

inline std::string tick_of(const Reply& reply) {
  return "tick " + std::to_string(reply.tick());
}

// Option storage lives as long as the App (captured by the subcommand's callback).
template <class T>
std::shared_ptr<T> store() {
  return std::make_shared<T>();
}

// A subcommand whose first positional argument is a character id.
inline CLI::App* id_command(CLI::App& app, const char* name, const char* help, std::string& id) {
  CLI::App* sub = app.add_subcommand(name, help);
  sub->add_option("id", id, "character id (from spawn)")->required();
  return sub;
}

// Driving characters (cli_character.cpp).
void add_spawn(CLI::App& app, Plan& plan);
void add_despawn(CLI::App& app, Plan& plan);
void add_significance(CLI::App& app, Plan& plan);
void add_play(CLI::App& app, Plan& plan);
void add_crossfade(CLI::App& app, Plan& plan);
void add_speed(CLI::App& app, Plan& plan);
void add_root(CLI::App& app, Plan& plan);
void add_root_motion(CLI::App& app, Plan& plan);
void add_additive(CLI::App& app, Plan& plan);
// Montages (cli_montage.cpp).
void add_montage(CLI::App& app, Plan& plan);
// Held poses (cli_held_pose.cpp).
void add_held_pose(CLI::App& app, Plan& plan);
// Morph target weights (cli_morph.cpp).
void add_morph(CLI::App& app, Plan& plan);
// State machines: machine define/start/stop, trigger, state (cli_machine.cpp).
void add_machine(CLI::App& app, Plan& plan);
void add_trigger(CLI::App& app, Plan& plan);
void add_state(CLI::App& app, Plan& plan);

// IK goals, aim and foot IK (cli_ik.cpp).
void add_ik(CLI::App& app, Plan& plan);
void add_aim(CLI::App& app, Plan& plan);
void add_feet(CLI::App& app, Plan& plan);

// Queries and inspection: pose, hits, hit volumes, listings (cli_query.cpp).
void add_pose(CLI::App& app, Plan& plan);
void add_raycast(CLI::App& app, Plan& plan);
void add_overlap(CLI::App& app, Plan& plan);
void add_hit_volumes(CLI::App& app, Plan& plan);
void add_listing(CLI::App& app, Plan& plan);

// Assets: loading, mesh summary, clip events (cli_assets.cpp).
void add_events(CLI::App& app, Plan& plan);
void add_load(CLI::App& app, Plan& plan);
void add_mesh(CLI::App& app, Plan& plan);

// Moving characters: export, import, migrate (cli_fleet.cpp).
void add_export(CLI::App& app, Plan& plan);
void add_import(CLI::App& app, Plan& plan);
void add_migrate(CLI::App& app, Plan& plan);

// The streaming watch/subscribe command (cli_watch.cpp).
void add_watch(CLI::App& app, Plan& plan);

}  // namespace animctl
