#pragma once
// Server: owns everything of a running daemon: the Asio io_context and its network
// threads, the acceptor, the sessions, the loader thread, the World and its tick loop,
// the metrics. run() blocks until SIGINT/SIGTERM (or stop()) and returns the exit code.
//
// Operations add-ons (server/ops: HTTP metrics, health, systemd notify, Agones) hook in
// through metrics() (atomic counters, `ready`) and io_context() (to run their own servers
// on the same network threads).

#include <atomic>
#include <filesystem>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include <utility>  // before Asio: boost 1.74's awaitable.hpp needs std::exchange in C++20

#include <boost/asio.hpp>

#include <spdlog/common.h>

#include "animops/http_endpoint.h"
#include "assets/asset_catalog.h"
#include "assets/asset_loader.h"
#include "base/byte_budget.h"
#include "base/config.h"
#include "base/log_limiter.h"
#include "base/metrics.h"
#include "history/hit_volume_table.h"
#include "history/pose_history.h"
#include "session/auth.h"
#include "session/session_host.h"
#include "world/command.h"

namespace animops {
class Ops;
}
namespace animd {

class Session;
class EncodeStage;
class AssetJournal;
class StateSaver;
class TickLoop;
class World;
class WorkerPool;

class Server final : public SessionHost {
 public:
  Server(Config config, Metrics& metrics);
  ~Server();

  // Loads assets, binds the listening socket, writes --port-file, logs the listening line.
  // Returns false (after logging why) when the daemon cannot start.
  bool init();
  // Runs until stopped. Returns the process exit code.
  int run();
  // Graceful stop (any thread): stop accepting, finish the current tick, flush pending
  // writes within --shutdown-timeout, then run() returns.
  void stop();

  const Config& config() const override { return config_; }
  Metrics& metrics() override { return metrics_; }
  AssetCatalog& catalog() override { return catalog_; }
  CommandQueue& commands() override { return commands_; }
  AssetLoader& loader() override { return loader_; }
  Migrator& migrator() override { return migrator_; }
  boost::asio::io_context& io_context() { return io_; }
  animops::Ops& ops() { return *ops_; }
  const std::filesystem::path& asset_root() const override { return asset_root_; }
  const Authenticator& auth() const override { return auth_; }
  // Daemon-wide budgets: request bytes being received, stream bytes queued (all sessions).
  ByteBudget& inbound_budget() override { return inbound_budget_; }
  ByteBudget& stream_budget() override { return stream_budget_; }
  LogLimiter& log_limiter() { return log_limiter_; }
  const PoseHistory& history() const override { return *history_; }
  const HitVolumeTable& hit_volumes() const override { return *hit_volumes_; }
  uint16_t port() const { return port_; }
  bool encode_staged() const override { return stage_ != nullptr; }
  StageTicks stage_ticks() const override;
  bool tick_holds_cores() const override {
    return tick_fills_cores_ && metrics_.tick_running.load(std::memory_order_acquire);
  }
  bool shutting_down() const override { return shutting_down_.load(std::memory_order_relaxed); }

  void remove_session(uint64_t id) override;
  void log(spdlog::level::level_enum level, const std::string& key,
           const std::string& line) override;

  // The WebSocket endpoint (/ws on the HTTP port; docs/web-viewer.md), called by the HTTP
  // endpoint on the connection's strand: check_websocket() refuses (origin, TLS, connection
  // limits) with an HTTP status and reason, take_websocket() makes the Session.
  animops::UpgradeHandler::Refusal check_websocket(const animops::UpgradeHandler::Request& request,
                                                   const std::string& peer_address, bool tls);
  void take_websocket(animops::UpgradeHandler::Stream stream,
                      animops::UpgradeHandler::Request request);

 private:
  // Registers the session `make` builds under the connection limits (--max-connections,
  // --max-connections-per-address). Returns null and sets `refused` when over a limit.
  std::shared_ptr<Session> open_session(
      const std::string& address, const std::function<std::shared_ptr<Session>(uint64_t)>& make,
      std::string& refused);
  // The refusal open_session() would give now (no side effect).
  std::string connection_limit_reached(const std::string& address);
  bool load_assets();
  // --state-dir: makes the folder, makes the journaled asset changes again, restores the
  // saved characters. False (after logging why) when the folder cannot be made.
  bool restore_state();
  // Binds the listening socket, or takes the one systemd passed (LISTEN_FDS).
  bool listen();
  // Defines the state machines of the file `path` (named `rel` in messages) on `asset`, all
  // or none; a bad file is logged and changes nothing (docs/operations.md, "State machine
  // files").
  void load_state_machines(const std::filesystem::path& path, const std::string& rel,
                           const std::string& asset);
  void accept();
  void wait_signals();
  // Tick thread. publish: within the tick, to the encode stage (its threads give way to the
  // tick's). deliver: after the tick, to the sessions (it wakes network threads).
  void publish(const std::shared_ptr<const struct Snapshot>& snapshot);
  void deliver(const std::shared_ptr<const struct Snapshot>& snapshot);
  // Network thread: tells every session the encode stage prepared a snapshot.
  void wake_sessions();
  void schedule_summary();
  void do_stop();
  void finish_stop();  // once every session is gone (or the drain deadline passed)

  Config config_;
  // The TLS server context (--tls-cert, ...), made by init(); null = plain TCP. Every
  // session's Transport refers to it.
  std::shared_ptr<boost::asio::ssl::context> tls_;
  Metrics& metrics_;
  Authenticator auth_;
  ByteBudget inbound_budget_;
  ByteBudget stream_budget_;
  LogLimiter log_limiter_;
  std::filesystem::path asset_root_;
  boost::asio::io_context io_;
  // After io_ (destroyed before it): HTTP endpoint and Agones client run on io_.
  std::unique_ptr<animops::Ops> ops_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_;
  boost::asio::ip::tcp::acceptor acceptor_;
  boost::asio::signal_set signals_;
  boost::asio::signal_set hup_;  // SIGHUP: reload tokens
  boost::asio::steady_timer summary_timer_;
  // Shutdown (do_stop, finish_stop and stop_timer_) runs on this strand: a signal, stop(),
  // the last session leaving and the backstop timer arrive on any of the network threads.
  boost::asio::strand<boost::asio::io_context::executor_type> stop_strand_;
  boost::asio::steady_timer stop_timer_;
  AssetLoader loader_;
  CommandQueue commands_;
  // After commands_ (it queues each migration's outcome there). Stopped once the network
  // threads are: a migration in flight then ends within its deadline.
  Migrator migrator_{commands_, 2};
  AssetCatalog catalog_;
  std::unique_ptr<WorkerPool> pool_;
  std::unique_ptr<World> world_;
  std::shared_ptr<const PoseHistory> history_;         // world_->history(), outliving the World
  std::shared_ptr<const HitVolumeTable> hit_volumes_;  // world_->hit_volumes(), likewise
  // Before tick_ (destroyed after it): the tick offers it every snapshot.
  std::unique_ptr<EncodeStage> stage_;
  bool tick_fills_cores_ = false;  // set by init(), before any session
  // --state-dir: the asset journal (replayed at init(), then told of each asset change) and
  // the characters' saver (restores at init(), captures after each tick, saves all on stop).
  // Before tick_ (destroyed after it).
  std::unique_ptr<AssetJournal> journal_;
  std::unique_ptr<StateSaver> saver_;
  std::unique_ptr<TickLoop> tick_;
  std::mutex sessions_mutex_;
  std::unordered_map<uint64_t, std::shared_ptr<Session>> sessions_;
  std::unordered_map<std::string, uint32_t> per_address_;  // open connections by peer address
  uint64_t next_session_id_ = 1;
  uint16_t port_ = 0;
  std::string listen_address_;  // as logged: --address, or the passed socket's
  bool socket_passed_ = false;  // the listening socket came from systemd (LISTEN_FDS)
  std::atomic<bool> shutting_down_{false};
  bool stop_finished_ = false;  // io threads only
};

}  // namespace animd
