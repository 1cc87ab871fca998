#include "app/server.h"

#include <fstream>
#include <set>

#include <google/protobuf/stubs/logging.h>
#include <spdlog/spdlog.h>

#include "animops/ops.h"
#include "app/web_viewer.h"
#include "base/thread_affinity.h"
#include "base/thread_name.h"
#include "base/worker_pool.h"
#include "net/listen_fds.h"
#include "net/origin_check.h"
#include "net/tls_context.h"
#include "persist/asset_journal.h"
#include "persist/state_saver.h"
#include "session/session.h"
#include "stream/encode_stage.h"
#include "tick/tick_loop.h"
#include "world/world.h"

namespace animd {

namespace asio = boost::asio;
namespace fs = std::filesystem;

namespace {
// Messages of one kind logged per minute before the rest are only counted.
constexpr size_t kLogBurst = 20;

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string log_key(const std::string& key) {
  std::string out;
  for (char c : key) {
    const bool digit = c >= '0' && c <= '9';
    if (!digit)
      out += c;
    else if (out.empty() || out.back() != '#')
      out += '#';
  }
  return out;
}

// protobuf's own complaints (e.g. one per invalid UTF-8 string in a hostile request) would go
// to stderr unlimited: route them through spdlog, rate-limited like everything a peer causes.
Server* g_protobuf_log_server = nullptr;
void protobuf_log(google::protobuf::LogLevel level, const char* file, int line,
                  const std::string& message) {
  if (!g_protobuf_log_server) return;
  const auto lvl =
      level >= google::protobuf::LOGLEVEL_ERROR ? spdlog::level::err : spdlog::level::warn;
  g_protobuf_log_server->log(
      lvl, std::string("protobuf: ") + file,
      "protobuf (" + std::string(file) + ":" + std::to_string(line) + "): " + message);
}
}  // namespace

void Server::log(spdlog::level::level_enum level, const std::string& key, const std::string& line) {
  if (!spdlog::should_log(level)) return;
  if (log_limiter_.allow(log_key(key), steady_seconds())) spdlog::log(level, "{}", line);
}

Server::Server(Config config, Metrics& metrics)
    : config_(std::move(config)),
      metrics_(metrics),
      inbound_budget_(config_.max_inbound_bytes_total),
      stream_budget_(config_.max_stream_bytes_total),
      log_limiter_(kLogBurst, 60.0, [](const std::string& line) { spdlog::warn("{}", line); }),
      ops_(std::make_unique<animops::Ops>(io_, config_.ops,
                                          animops::BuildInfo{ANIMD_VERSION, ANIMD_BUILD_TYPE})),
      work_(io_.get_executor()),
      acceptor_(io_),
      signals_(io_, SIGINT, SIGTERM),
      hup_(io_, SIGHUP),
      summary_timer_(io_),
      stop_strand_(asio::make_strand(io_)),
      stop_timer_(stop_strand_),
      loader_(config_.loader_threads, "animd-load") {}

Server::~Server() {
  if (tick_) tick_->stop();
  loader_.stop();
  migrator_.stop();
  if (g_protobuf_log_server == this) {
    google::protobuf::SetLogHandler(nullptr);
    g_protobuf_log_server = nullptr;
  }
}

bool Server::init() {
  g_protobuf_log_server = this;
  google::protobuf::SetLogHandler(&protobuf_log);
  if (auto s = auth_.configure(
          AuthConfig{config_.control_tokens, config_.observe_tokens, config_.token_file});
      !s) {
    spdlog::error("{}", s.message());
    return false;
  }
  if (auth_.enabled())
    spdlog::info("auth: every request needs a token (control or observe role)");
  else if (config_.address != "127.0.0.1" && config_.address != "::1" &&
           config_.address != "localhost")
    spdlog::warn(
        "auth: no token configured and listening on {}: anyone who can connect may "
        "drive every character (see docs/security.md)",
        config_.address);
  // The web viewer and its WebSocket endpoint live on the HTTP port (docs/web-viewer.md).
  animops::UpgradeHandler upgrade;
  upgrade.check = [this](const animops::UpgradeHandler::Request& r, const std::string& peer,
                         bool tls) { return check_websocket(r, peer, tls); };
  upgrade.take = [this](animops::UpgradeHandler::Stream s, animops::UpgradeHandler::Request r) {
    take_websocket(std::move(s), std::move(r));
  };
  // With TLS on, the HTTP port also speaks TLS (https, wss) to clients that start with a
  // TLS hello, with the TCP port's context (certificate, client-certificate rules).
  if (config_.tls.enabled()) {
    auto made = make_server_tls_context(config_.tls);
    if (!made) {
      spdlog::error("{}", made.error().message());
      return false;
    }
    tls_ = std::move(made.value());
  }
  ops_->serve_web(web_viewer_files(), "/ws", std::move(upgrade), tls_);
  // What peers cause on the HTTP port is rate-limited like everything else they cause.
  ops_->set_peer_log(
      [this](animops::PeerLogLevel level, const std::string& key, const std::string& line) {
        log(level == animops::PeerLogLevel::kWarn ? spdlog::level::warn : spdlog::level::info, key,
            line);
      });
  // With --agones-counter, Agones learns how many characters live here out of how many.
  ops_->set_agones_capacity([this] { return static_cast<int64_t>(metrics_.characters.load()); },
                            static_cast<int64_t>(config_.max_characters));
  // Operations first: probes answer "not ready" while assets load.
  if (auto err = ops_->start(); !err.empty()) {
    spdlog::error("{}", err);
    return false;
  }
  ops_->metrics().set_collector([this](animops::Metrics& om) {
    const Metrics& m = metrics_;
    om.characters.set(m.characters.load());
    om.sessions.set(m.sessions.load());
    om.subscriptions.set(m.subscriptions.load());
    om.assets.set(m.assets.load());
    om.bytes_in.set_total(m.bytes_in.load());
    om.ticks_skipped.set_total(m.ticks_skipped.load());
    om.reduced_rate_characters.set(m.reduced_rate_characters.load());
    om.detail_skipped_characters.set(m.detail_skipped_characters.load());
    om.character_updates_skipped.set_total(m.character_updates_skipped.load());
    om.placement_misses.set_total(m.placement_misses.load());
    om.clock_steps_forward.set_total(m.clock_steps_forward.load());
    om.clock_steps_back.set_total(m.clock_steps_back.load());
    om.migrations_committed.set_total(m.migrations_committed.load());
    om.migrations_failed.set_total(m.migrations_failed.load());
    om.characters_migrated_out.set_total(m.characters_migrated_out.load());
    om.characters_migrated_in.set_total(m.characters_migrated_in.load());
    om.state_saves.set_total(m.state_saves.load());
    om.state_save_failures.set_total(m.state_save_failures.load());
    om.state_save_bytes.set(static_cast<int64_t>(m.state_save_bytes.load()));
    om.state_save_us.set(static_cast<int64_t>(m.state_save_us.load()));
    om.memory_history_bytes.set(static_cast<int64_t>(m.history_bytes.load()));
    om.memory_snapshot_bytes.set(static_cast<int64_t>(m.snapshot_bytes.load()));
    om.memory_quant_frame_bytes.set(static_cast<int64_t>(m.quant_frame_bytes.load()));
    om.memory_stream_bytes.set(static_cast<int64_t>(stream_budget_.used()));
    om.memory_request_bytes.set(static_cast<int64_t>(inbound_budget_.used()));
    om.bytes_out.set_total(m.bytes_out.load());
    om.stream_frames_sent.set_total(m.stream_frames_sent.load());
    om.stream_frames_dropped.set_total(m.stream_frames_dropped.load());
    om.requests.set_total(m.requests.load());
    om.events_fired.set_total(m.events_fired.load());
    om.events_overflowed.set_total(m.events_overflowed.load());
    om.events_sent.set_total(m.events_sent.load());
    om.events_dropped.set_total(m.events_dropped.load());
    for (int code = 1; code < static_cast<int>(m.request_errors_by_code.size()); ++code)
      om.set_request_errors_total(code, m.request_errors_by_code[code].load());
  });
  pool_ = std::make_unique<WorkerPool>(config_.workers,
                                       std::chrono::microseconds(config_.tick_slice_us),
                                       config_.tick_yield, config_.pin_tick_threads);
  if (pool_->pin_failures() > 0)
    spdlog::warn("{} of the tick workers could not keep to their CPUs (sched_setaffinity)",
                 pool_->pin_failures());
  else if (pool_->pinned()) {
    std::string workers;
    for (size_t i = 1; i < pool_->cpus().size(); ++i)
      workers += (i > 1 ? "," : "") + std::to_string(pool_->cpus()[i]);
    spdlog::info("tick threads pinned: the tick thread to CPU {}, its workers to CPU {}",
                 pool_->cpus().front(), workers);
  } else if (config_.pin_tick_threads && pool_->threads() >= 2)
    spdlog::info(
        "tick threads not pinned: {} of them, and the process may use {} CPUs (pinned only "
        "when they are as many)",
        pool_->threads(), allowed_cpus().size());
  world_ = std::make_unique<World>(config_, metrics_, catalog_, *pool_);
  // When the tick's threads are as many as the cores, the encode stage waits for each tick to
  // end, and sessions hold back the frames they would encode themselves: the tick has the
  // cores first, and the rest the time between ticks.
  tick_fills_cores_ =
      pool_->threads() >= static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (config_.encode_threads > 0) {
    stage_ = std::make_unique<EncodeStage>(
        config_.encode_threads, config_.encode_idle,
        tick_fills_cores_ ? &metrics_.tick_running : nullptr,
        [this](uint64_t) { asio::post(io_, [this] { wake_sessions(); }); }, &metrics_.stage_busy);
    // Its threads quantize each tick they take, between ticks (quantize_work.h); a tick
    // they got too little CPU for is given up rather than finished inside the next tick.
    world_->set_quantize_after_tick(true);
    world_->set_abandon_late_quantization(true);
  }
  history_ = world_->history();
  hit_volumes_ = world_->hit_volumes();
  if (!load_assets()) return false;
  if (!restore_state()) return false;
  for (int i = 0; i < config_.spawn_builtin; ++i) {
    auto id = world_->spawn_unowned("builtin", "walk");
    if (!id) {
      spdlog::error("--spawn-builtin: {}", id.error().message());
      return false;
    }
  }
  if (!listen()) return false;
  port_ = acceptor_.local_endpoint().port();
  if (!config_.port_file.empty()) {
    // Written to a temporary name and renamed, so a reader never sees a partial number.
    const std::string tmp = config_.port_file + ".tmp";
    {
      std::ofstream f(tmp, std::ios::trunc);
      f << port_ << "\n";
    }
    std::error_code fec;
    fs::rename(tmp, config_.port_file, fec);
    if (fec) {
      spdlog::error("--port-file {}: {}", config_.port_file, fec.message());
      return false;
    }
  }
  spdlog::info("animd listening on {}:{}{}{}", listen_address_, port_, tls_ ? " (TLS)" : "",
               socket_passed_ ? " (socket passed by systemd)" : "");
  return true;
}

bool Server::listen() {
  boost::system::error_code ec;
  const ListenFds passed_fds = take_listen_fds();
  if (!passed_fds.error.empty()) {
    spdlog::error("socket activation: {}", passed_fds.error);
    return false;
  }
  if (!passed_fds.fds.empty()) {
    if (passed_fds.fds.size() > 1)
      spdlog::warn("socket activation: {} sockets passed; animd serves the first (fd {})",
                   passed_fds.fds.size(), passed_fds.fds.front());
    const int fd = passed_fds.fds.front();
    sockaddr_storage addr{};
    socklen_t len = sizeof(addr);
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    acceptor_.assign(addr.ss_family == AF_INET6 ? asio::ip::tcp::v6() : asio::ip::tcp::v4(), fd,
                     ec);
    if (ec) {
      spdlog::error("socket activation: fd {}: {}", fd, ec.message());
      return false;
    }
    listen_address_ = acceptor_.local_endpoint().address().to_string();
    socket_passed_ = true;
    return true;
  }
  const auto address = asio::ip::make_address(config_.address, ec);
  if (ec) {
    spdlog::error("--address {}: {}", config_.address, ec.message());
    return false;
  }
  const asio::ip::tcp::endpoint endpoint(address, config_.port);
  acceptor_.open(endpoint.protocol(), ec);
  if (!ec) acceptor_.set_option(asio::ip::tcp::acceptor::reuse_address(true), ec);
  if (!ec) acceptor_.bind(endpoint, ec);
  if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    spdlog::error("cannot listen on {}:{}: {}", config_.address, config_.port, ec.message());
    return false;
  }
  listen_address_ = config_.address;
  return true;
}

int Server::run() {
  tick_ = std::make_unique<TickLoop>(
      config_, *world_, commands_, metrics_, [this](const SnapshotPtr& s) { publish(s); },
      [this](const SnapshotPtr& s) { deliver(s); },
      [this](std::chrono::nanoseconds d, std::chrono::nanoseconds p) { ops_->on_tick(d, p); });
  tick_->start();
  signals_.async_wait([this](boost::system::error_code ec, int sig) {
    if (ec) return;
    spdlog::info("signal {} received: shutting down", sig);
    asio::post(stop_strand_, [this] { do_stop(); });
  });
  wait_signals();
  accept();
  schedule_summary();
  metrics_.ready.store(true);
  ops_->ready("serving " + std::to_string(metrics_.assets.load()) + " assets on " +
              config_.address + ":" + std::to_string(port_));
  std::vector<std::thread> threads;
  for (int i = 1; i < config_.io_threads; ++i)
    threads.emplace_back([this, i] {
      name_this_thread("animd-net-" + std::to_string(i));
      io_.run();
    });
  io_.run();
  for (auto& t : threads) t.join();
  loader_.stop();
  migrator_.stop();
  spdlog::info("animd stopped");
  return 0;
}

// SIGHUP: re-read --token-file (a bad file keeps the tokens in force).
void Server::wait_signals() {
  hup_.async_wait([this](boost::system::error_code ec, int) {
    if (ec) return;
    if (config_.token_file.empty())
      spdlog::info("SIGHUP: no --token-file to reload");
    else if (auto s = auth_.reload(); !s)
      spdlog::error("SIGHUP: tokens not reloaded, the previous ones stay in force: {}",
                    s.message());
    else
      spdlog::info("SIGHUP: tokens reloaded from {}", config_.token_file);
    wait_signals();
  });
}

void Server::stop() {
  asio::post(stop_strand_, [this] { do_stop(); });
}

void Server::do_stop() {
  if (shutting_down_.exchange(true)) return;
  metrics_.ready.store(false);
  ops_->stopping();
  boost::system::error_code ec;
  acceptor_.close(ec);
  signals_.cancel(ec);
  hup_.cancel(ec);
  summary_timer_.cancel();
  tick_->stop();                    // finishes the current tick; queued commands get UNAVAILABLE
  if (journal_) journal_->flush();  // the assets the characters' states name, first
  if (saver_) {
    if (auto s = saver_->save_all(*world_, metrics_.tick.load()); !s)
      spdlog::error("state: the last save failed, the previous one stays: {}", s.message());
  }
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(config_.shutdown_timeout_s));
  {
    std::lock_guard lock(sessions_mutex_);
    for (auto& [id, s] : sessions_) s->drain(deadline);
  }
  work_.reset();  // run() returns once the sessions are gone
  // Backstop: whatever is still pending after the deadline is abandoned.
  stop_timer_.expires_at(deadline + std::chrono::milliseconds(500));
  stop_timer_.async_wait([this](boost::system::error_code e) {
    if (e) return;
    finish_stop();
    io_.stop();
  });
  std::lock_guard lock(sessions_mutex_);
  if (sessions_.empty()) asio::post(stop_strand_, [this] { finish_stop(); });
}

void Server::finish_stop() {
  if (stop_finished_) return;
  stop_finished_ = true;
  stop_timer_.cancel();
  ops_->shutdown();  // Agones /shutdown (bounded), HTTP endpoint closed: run() can return
}

void Server::accept() {
  acceptor_.async_accept(asio::make_strand(io_), [this](boost::system::error_code ec,
                                                        asio::ip::tcp::socket socket) {
    if (ec) {
      if (ec == asio::error::operation_aborted || shutting_down()) return;
      spdlog::warn("accept failed: {}", ec.message());
    } else {
      boost::system::error_code e;
      const auto remote = socket.remote_endpoint(e);
      const std::string address = e ? std::string("?") : remote.address().to_string();
      std::string refused;
      auto session = open_session(
          address,
          [&](uint64_t id) {
            return std::make_shared<Session>(
                *this, tls_ ? Transport(std::move(socket), *tls_) : Transport(std::move(socket)),
                id, address);
          },
          refused);
      if (!session) socket.close(e);
      if (session) session->start();
    }
    if (!shutting_down()) accept();
  });
}

std::string Server::connection_limit_reached(const std::string& address) {
  // sessions_mutex_ held.
  if (sessions_.size() >= config_.max_connections)
    return "--max-connections (" + std::to_string(config_.max_connections) + ") reached";
  if (auto it = per_address_.find(address);
      it != per_address_.end() && it->second >= config_.max_connections_per_address)
    return "--max-connections-per-address (" + std::to_string(config_.max_connections_per_address) +
           ") reached for " + address;
  return {};
}

std::shared_ptr<Session> Server::open_session(
    const std::string& address, const std::function<std::shared_ptr<Session>(uint64_t)>& make,
    std::string& refused) {
  std::shared_ptr<Session> session;
  {
    std::lock_guard lock(sessions_mutex_);
    refused = connection_limit_reached(address);
    if (refused.empty()) {
      ++per_address_[address];
      session = make(next_session_id_++);
      sessions_.emplace(session->id(), session);
      metrics_.sessions.store(static_cast<uint32_t>(sessions_.size()));
      metrics_.connections_total.fetch_add(1, std::memory_order_relaxed);
    }
  }
  if (!refused.empty()) {
    metrics_.connections_rejected.fetch_add(1, std::memory_order_relaxed);
    log(spdlog::level::warn, "connection refused: " + refused, "connection refused: " + refused);
  }
  return session;
}

animops::UpgradeHandler::Refusal Server::check_websocket(
    const animops::UpgradeHandler::Request& request, const std::string& peer_address, bool tls) {
  namespace http = boost::beast::http;
  auto refuse = [&](http::status status, std::string why) {
    log(spdlog::level::warn, "websocket refused: " + why,
        "websocket from " + peer_address + " refused: " + why);
    return animops::UpgradeHandler::Refusal{static_cast<unsigned>(status), std::move(why)};
  };
  if (shutting_down())
    return refuse(http::status::service_unavailable, "the daemon is shutting down");
  if (tls_ && !tls)
    // The TCP port takes TLS only: so does the protocol on the HTTP port (docs/web-viewer.md,
    // "TLS"); the page and the probes stay reachable over plain HTTP.
    return refuse(http::status::forbidden,
                  "this daemon serves its protocol over TLS only (--tls-cert): use wss:// "
                  "(the viewer at https://HOST:PORT/view)");
  const auto header = [&](http::field f) {
    const auto it = request.find(f);
    return it == request.end() ? std::string_view()
                               : std::string_view(it->value().data(), it->value().size());
  };
  if (auto why = check_origin(header(http::field::origin), header(http::field::host),
                              config_.ws_allowed_origins);
      !why.empty())
    return refuse(http::status::forbidden, why);
  std::lock_guard lock(sessions_mutex_);
  if (auto why = connection_limit_reached(peer_address); !why.empty())
    return refuse(http::status::service_unavailable, why);
  return {};
}

void Server::take_websocket(animops::UpgradeHandler::Stream stream,
                            animops::UpgradeHandler::Request request) {
  boost::system::error_code e;
  std::string refused;
  asio::ip::tcp::socket& socket =
      stream.index() == 0 ? std::get<0>(stream)
                          : boost::beast::get_lowest_layer(std::get<1>(stream)).socket();
  const auto remote = socket.remote_endpoint(e);
  const std::string address = e ? std::string("?") : remote.address().to_string();
  auto session = open_session(
      address,
      [&](uint64_t id) {
        return std::make_shared<Session>(
            *this,
            stream.index() == 0 ? Transport(std::move(std::get<0>(stream)), std::move(request))
                                : Transport(std::move(std::get<1>(stream)), std::move(request)),
            id, address);
      },
      refused);
  // Over a limit since check_websocket() (another connection came first): cut.
  if (!session) socket.close(e);
  if (session) session->start();
}

Server::StageTicks Server::stage_ticks() const {
  if (!stage_) return {};
  return {stage_->progress_tick(), stage_->taken_tick()};
}

void Server::remove_session(uint64_t id) {
  std::shared_ptr<Session> keep;  // destroyed outside the lock
  {
    std::lock_guard lock(sessions_mutex_);
    auto it = sessions_.find(id);
    if (it == sessions_.end()) return;
    keep = std::move(it->second);
    sessions_.erase(it);
    if (auto a = per_address_.find(keep->peer_address());
        a != per_address_.end() && --a->second == 0)
      per_address_.erase(a);
    metrics_.sessions.store(static_cast<uint32_t>(sessions_.size()));
    // The last session drained: the backstop timer need not hold run() any longer.
    if (shutting_down() && sessions_.empty()) asio::post(stop_strand_, [this] { finish_stop(); });
  }
  Command c;
  c.kind = Command::Kind::kSessionClosed;
  c.session_id = id;
  commands_.push(std::move(c));
}

void Server::publish(const SnapshotPtr& snapshot) {
  if (stage_) stage_->offer(snapshot);
  if (saver_) saver_->after_tick(*world_, snapshot->tick);
}

void Server::deliver(const SnapshotPtr& snapshot) {
  std::lock_guard lock(sessions_mutex_);
  for (auto& [id, s] : sessions_) s->offer_snapshot(snapshot);
  for (const MovedNotice& n : snapshot->moved) {
    auto msg = std::make_shared<anim::v1::ServerMessage>();
    auto* moved = msg->mutable_characters_moved();
    moved->set_target(n.target);
    moved->set_tick(n.target_tick);
    moved->mutable_from_ids()->Add(n.from_ids.begin(), n.from_ids.end());
    moved->mutable_to_ids()->Add(n.to_ids.begin(), n.to_ids.end());
    for (uint64_t sid : n.sessions)
      if (auto s = sessions_.find(sid); s != sessions_.end()) s->second->send_notice(msg);
  }
}

void Server::wake_sessions() {
  // Posted outside the lock the tick's publish() takes.
  thread_local std::vector<std::shared_ptr<Session>> sessions;
  {
    std::lock_guard lock(sessions_mutex_);
    sessions.clear();
    for (auto& [id, s] : sessions_) sessions.push_back(s);
  }
  for (auto& s : sessions) s->snapshot_prepared();
  sessions.clear();
}

void Server::schedule_summary() {
  summary_timer_.expires_after(std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(config_.summary_interval_s)));
  summary_timer_.async_wait([this](boost::system::error_code ec) {
    if (ec || shutting_down()) return;
    const Metrics& m = metrics_;
    spdlog::info(
        "summary: tick {}, {} characters, {} sessions, {} subscriptions, tick p50 {:.0f} us "
        "p99 {:.0f} us max {:.0f} us, {} overruns ({} degraded ticks: unwatched characters "
        "at half rate), {} bytes in, {} bytes out, {} frames sent, {} dropped, {} requests ({} "
        "errors)",
        m.tick.load(), m.characters.load(), m.sessions.load(), m.subscriptions.load(),
        m.tick_p50_us.load(), m.tick_p99_us.load(), m.tick_max_us.load(), m.tick_overruns.load(),
        m.degraded_ticks.load(), m.bytes_in.load(), m.bytes_out.load(), m.stream_frames_sent.load(),
        m.stream_frames_dropped.load(), m.requests.load(), m.request_errors.load());
    if (stage_)
      spdlog::info(
          "summary: encode stage: {} snapshots prepared, {} ticks not quantized while it was "
          "busy and {} skipped (a newer one came first): the compact stream ran below the tick "
          "rate; {} ticks quantized inside the tick (the stage busy too long, or a paced "
          "subscription due; {} of them overran); "
          "{} frames encoded by sessions because it was 30 ticks behind (no CPU to spare); "
          "{} characters quantized by the next tick (the stage had not reached them) and {} "
          "ticks' quantization given up (a quarter or more of it untaken); {} "
          "frames of sessions' own encoding held back until a tick ended",
          stage_->prepared(), m.quant_deferred_ticks.load(), stage_->skipped(),
          m.quantized_in_tick.load(), m.overruns_quantized_in_tick.load(), m.stage_fallbacks.load(),
          m.quantized_by_next_tick.load(), m.quant_abandoned_ticks.load(),
          m.frames_held_for_tick.load());
    constexpr double kMiB = 1024.0 * 1024.0;
    spdlog::info(
        "summary: memory: history {:.1f} MiB, snapshots {:.1f} MiB ({} kept), quantized "
        "frames {:.1f} MiB ({} kept), stream queues {:.1f} MiB, request bodies {:.1f} MiB",
        static_cast<double>(m.history_bytes.load()) / kMiB,
        static_cast<double>(m.snapshot_bytes.load()) / kMiB, m.snapshots_kept.load(),
        static_cast<double>(m.quant_frame_bytes.load()) / kMiB, m.quant_frames_kept.load(),
        static_cast<double>(stream_budget_.used()) / kMiB,
        static_cast<double>(inbound_budget_.used()) / kMiB);
    if (saver_)
      spdlog::info("summary: state: {} saves written to {} (the last {} bytes in {} us), {} failed",
                   m.state_saves.load(), saver_->path().string(), m.state_save_bytes.load(),
                   m.state_save_us.load(), m.state_save_failures.load());
    log_limiter_.flush(steady_seconds());
    schedule_summary();
  });
}

}  // namespace animd
