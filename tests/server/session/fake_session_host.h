#pragma once
// A SessionHost (session/session_host.h) made of the daemon's real parts, without a daemon:
// for testing the session's pieces on their own. Logged lines are kept.

#include <filesystem>
#include <string>
#include <vector>

#include "session/session_host.h"

namespace animd::test {

class FakeSessionHost : public SessionHost {
 public:
  FakeSessionHost() : loader_(1, "test-loader") {}

  const Config& config() const override { return config_; }
  Metrics& metrics() override { return metrics_; }
  const Authenticator& auth() const override { return auth_; }
  AssetCatalog& catalog() override { return catalog_; }
  const std::filesystem::path& asset_root() const override { return asset_root_; }
  CommandQueue& commands() override { return commands_; }
  AssetLoader& loader() override { return loader_; }
  Migrator& migrator() override { return migrator_; }
  const PoseHistory& history() const override { return history_; }
  const HitVolumeTable& hit_volumes() const override { return hit_volumes_; }
  ByteBudget& inbound_budget() override { return inbound_; }
  ByteBudget& stream_budget() override { return outbound_; }
  bool encode_staged() const override { return false; }
  StageTicks stage_ticks() const override { return {}; }
  bool tick_holds_cores() const override { return false; }
  bool shutting_down() const override { return false; }
  void remove_session(uint64_t id) override { removed.push_back(id); }
  void log(spdlog::level::level_enum, const std::string&, const std::string& line) override {
    logged.push_back(line);
  }

  // Takes every queued command.
  std::vector<Command> take_commands() {
    std::vector<Command> out;
    commands_.take(out);
    return out;
  }

  Config config_;
  std::filesystem::path asset_root_;
  std::vector<uint64_t> removed;
  std::vector<std::string> logged;

 private:
  Metrics metrics_;
  Authenticator auth_;
  AssetCatalog catalog_;
  CommandQueue commands_;
  AssetLoader loader_;
  Migrator migrator_{commands_, 1};
  PoseHistory history_{4};
  HitVolumeTable hit_volumes_;
  ByteBudget inbound_{1u << 20};
  ByteBudget outbound_{1u << 20};
};

}  // namespace animd::test
