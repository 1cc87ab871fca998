// Server (server.h): what the daemon does before it serves: the assets of --assets and the
// state machine files beside them, then the saved state of --state-dir (assets journal,
// characters, and the fleet time restoring them took).
#include <fstream>

#include <spdlog/spdlog.h>

#include "anim/loaders/builtin_character.h"
#include "app/server.h"
#include "assets/asset_loading.h"
#include "persist/asset_journal.h"
#include "persist/state_saver.h"
#include "protocol/request_convert_state_machine.h"
#include "tick/tick_numbering.h"
#include "world/world.h"

namespace animd {

namespace fs = std::filesystem;

bool Server::load_assets() {
  auto builtin = std::make_shared<anim::Asset>(anim::make_builtin_character());
  builtin->name = "builtin";
  builtin->source = "builtin";
  if (auto s = world_->add_asset(builtin); !s) {
    spdlog::error("built-in character: {}", s.message());
    return false;
  }
  if (config_.assets_dir.empty()) return true;
  std::error_code ec;
  if (!fs::is_directory(config_.assets_dir, ec)) {
    spdlog::error("--assets {}: not a directory", config_.assets_dir);
    return false;
  }
  asset_root_ = fs::absolute(config_.assets_dir, ec);
  // The state machine files beside the asset files: those not read are said so at the end.
  std::set<fs::path> graphs_seen;
  for (const auto& path : scan_asset_dir(asset_root_)) {
    // Lexical: a file reached through an operator's symlink keeps the name it has in the root.
    const std::string rel = path.lexically_relative(asset_root_).string();
    const fs::path graph = state_machine_file_of(path);
    graphs_seen.insert(graph);
    const bool has_graph = fs::exists(graph, ec);
    const std::string graph_rel = graph.lexically_relative(asset_root_).string();
    anim::GltfLimits limits;
    limits.max_working_bytes = config_.max_load_bytes;
    auto loaded = load_asset_file(path, "", rel, LoadRequest{}, asset_root_, limits);
    if (!loaded) {
      spdlog::error("asset {} not loaded: {}", rel, loaded.error().message());
      if (has_graph) spdlog::warn("{} not read: its asset {} did not load", graph_rel, rel);
      continue;
    }
    const std::string name = loaded->name;
    const size_t joints = static_cast<size_t>(loaded->skeleton.num_joints());
    const size_t clips = loaded->clips.size();
    if (auto s = world_->add_asset(std::make_shared<anim::Asset>(std::move(*loaded))); !s) {
      spdlog::warn("asset {} skipped: {}", rel, s.message());
      if (has_graph) spdlog::warn("{} not read: its asset {} was skipped", graph_rel, rel);
      continue;
    }
    spdlog::info("asset '{}' loaded from {} ({} joints, {} clips)", name, rel, joints, clips);
    if (has_graph) load_state_machines(graph, graph_rel, name);
  }
  for (const auto& graph : scan_state_machine_files(asset_root_))
    if (!graphs_seen.contains(graph))
      spdlog::warn("{} not read: no .glb, .gltf, .md5mesh or .bvh file beside it has its stem",
                   graph.lexically_relative(asset_root_).string());
  return true;
}

void Server::load_state_machines(const fs::path& path, const std::string& rel,
                                 const std::string& asset) {
  // Like a bad asset file, a bad state machine file is logged and skipped as a whole: the
  // asset stays loaded, with none of the file's machines.
  auto refuse = [&](const std::string& why) {
    spdlog::error("{}: {} (none of its state machines defined; asset '{}' loaded without them)",
                  rel, why, asset);
  };
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (ec) return refuse("cannot read: " + ec.message());
  if (size > kMaxStateMachineFileBytes)
    return refuse("the file has " + std::to_string(size) + " bytes, more than " +
                  std::to_string(kMaxStateMachineFileBytes));
  std::ifstream in(path, std::ios::binary);
  std::string text(static_cast<size_t>(size), '\0');
  if (!in || !in.read(text.data(), static_cast<std::streamsize>(text.size())))
    return refuse("cannot read the file");
  auto machines = state_machine_file_from_json(text);
  if (!machines) return refuse(machines.error().message());
  if (auto s = world_->add_state_machines(asset, *machines); !s) return refuse(s.message());
  spdlog::info("asset '{}': {} state machine(s) defined from {}", asset, machines->size(), rel);
}

bool Server::restore_state() {
  if (config_.state_dir.empty()) return true;
  std::error_code ec;
  fs::create_directories(config_.state_dir, ec);
  if (ec || !fs::is_directory(config_.state_dir, ec)) {
    spdlog::error("--state-dir {}: cannot make the folder: {}", config_.state_dir,
                  ec ? ec.message() : "not a directory");
    return false;
  }
  // The first tick the loop will run is at least the next one on the fleet clock.
  const TickSchedule schedule(config_.tick_epoch, config_.tick_rate);
  uint64_t tick = schedule.tick_at(WallClock::now()) + 1;
  // The assets and definitions first: the characters' states name them.
  journal_ =
      std::make_unique<AssetJournal>(fs::path(config_.state_dir) / "assets.journal", metrics_);
  journal_->replay(*world_, catalog_, asset_root_, config_, tick);
  saver_ = std::make_unique<StateSaver>(config_, metrics_);
  saver_->restore(*world_, tick);
  // Replaying and restoring took fleet time too (seconds for thousands of characters in a slow
  // build): the characters make it up, so that they are at the tick the loop starts with, in
  // passes while each is shorter than the one before, at most the restore's own limit in all.
  // A daemon that updates its characters slower than real time cannot: what is left is lost,
  // and said.
  const auto most = static_cast<uint64_t>(config_.tick_rate * 5.0);
  uint64_t made_up = 0, last_step = UINT64_MAX, behind = 0;
  while (world_->num_characters() > 0) {
    const uint64_t now = schedule.tick_at(WallClock::now()) + 1;
    behind = now > tick ? now - tick : 0;
    if (behind <= 1 || behind >= last_step || made_up >= most) break;
    const uint64_t step = std::min(behind, most - made_up);
    world_->advance_all(step);
    made_up += step;
    last_step = step;
    tick += step;
  }
  if (made_up > 0)
    spdlog::info("state: the characters made up {} tick(s) the restore took", made_up);
  if (behind > 1)
    spdlog::warn(
        "state: the characters are {} tick(s) behind the fleet clock: restoring them took "
        "longer than they could make up (slower than real time here, or more than 5 s)",
        behind);
  world_->set_asset_changes(journal_.get());
  return true;
}

}  // namespace animd
