#pragma once
// What a session needs from the daemon that hosts it (app/server.h implements it): the
// settings, the shared state it reads (asset catalog, pose history, hit volumes), where it
// sends work (command queue, loader threads), the daemon-wide budgets and counters. All
// methods are safe on any network thread.

#include <cstdint>
#include <filesystem>
#include <string>

#include <spdlog/common.h>

#include "assets/asset_catalog.h"
#include "assets/asset_loader.h"
#include "base/byte_budget.h"
#include "base/config.h"
#include "base/metrics.h"
#include "fleet/migrator.h"
#include "history/hit_volume_table.h"
#include "history/pose_history.h"
#include "session/auth.h"
#include "world/command.h"

namespace animd {

class SessionHost {
 public:
  virtual ~SessionHost() = default;

  virtual const Config& config() const = 0;
  virtual Metrics& metrics() = 0;
  virtual const Authenticator& auth() const = 0;
  // The published assets (list_assets, get_asset_data, and what load_asset attaches to).
  virtual AssetCatalog& catalog() = 0;
  // The folder load_asset paths are confined to (--asset-root).
  virtual const std::filesystem::path& asset_root() const = 0;
  // Requests for the next tick.
  virtual CommandQueue& commands() = 0;
  // The loader threads (load_asset).
  virtual AssetLoader& loader() = 0;
  // The threads that carry migrations to other daemons (migrate).
  virtual Migrator& migrator() = 0;
  // The World's pose history (published per tick): query_pose is answered from it.
  virtual const PoseHistory& history() const = 0;
  // The World's hit volumes in force: raycast and overlap_sphere are answered with them.
  virtual const HitVolumeTable& hit_volumes() const = 0;
  // Request bytes being received by all sessions (--max-inbound-bytes-total).
  virtual ByteBudget& inbound_budget() = 0;
  // Stream bytes queued by all sessions (--max-stream-bytes-total); large replies draw on it.
  virtual ByteBudget& stream_budget() = 0;

  // Whether compact frames are encoded ahead by the encode stage (--encode-threads > 0):
  // sessions then wait briefly for it (StreamSender::encode_compact).
  virtual bool encode_staged() const = 0;
  // EncodeStage::progress_tick() and taken_tick(), 0 without a stage.
  struct StageTicks {
    uint64_t progress = 0;
    uint64_t taken = 0;
  };
  virtual StageTicks stage_ticks() const = 0;
  // True while a tick runs on threads that fill the process's cores: a session holds back a
  // compact frame it would encode itself until the end of the tick delivers the next
  // snapshot.
  virtual bool tick_holds_cores() const = 0;
  virtual bool shutting_down() const = 0;

  // The session `id` has ended (its last handler returned).
  virtual void remove_session(uint64_t id) = 0;
  // Logs `line` at `level` unless messages of its kind (`key`; digits are ignored) exceeded
  // their share this minute.
  virtual void log(spdlog::level::level_enum level, const std::string& key,
                   const std::string& line) = 0;
};

}  // namespace animd
