// The animload run. One driver thread (the caller's) schedules commands as Poisson arrivals
// and sends them with call_async, so many requests are in flight per connection and a slow
// reply never slows the offered load (no coordinated omission). Replies and stream frames are
// measured on each connection's I/O thread.
#include "runner.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <memory>
#include <mutex>
#include <random>
#include <thread>

#include "animclient/client.h"
#include "recorder.h"

namespace animload {

namespace {

using namespace std::chrono;
using anim::v1::Reply;
using anim::v1::Request;
using anim::v1::StreamFrame;
using animclient::Client;
using animclient::Error;
using animclient::Result;

// What the run needs to know about one asset to drive its characters.
struct AssetPlan {
  std::string name;
  std::vector<std::string> base_clips;  // for play and crossfade
  std::vector<std::string> all_clips;   // for --cycle-every, in the asset's order
  std::string additive_clip;
  std::string ik_root, ik_effector;
  anim::v1::Vec3 ik_center;  // targets are drawn in a ball around the effector's pose (model space)
  float ik_radius = 0.1f;
  bool ik_ready = false;
};

struct Character {
  uint32_t id = 0;
  size_t asset = 0;
  // 0: none; -1: a request that creates one is in flight; > 0: the id the daemon gave.
  std::atomic<int64_t> layer{0};
  std::atomic<int64_t> goal{0};
};

struct Connection {
  std::unique_ptr<Client> client;
  std::mutex mutex;  // guards `characters` while spawn replies arrive
  std::vector<std::unique_ptr<Character>> characters;
  std::atomic<int> inflight{0};
};

// Counts completions of a batch of async calls and waits (bounded) for all of them.
class Batch {
 public:
  void add() {
    std::lock_guard lock(mutex_);
    ++outstanding_;
  }
  void done() {
    std::lock_guard lock(mutex_);
    if (--outstanding_ == 0) cv_.notify_all();
  }
  bool wait(milliseconds timeout) {
    std::unique_lock lock(mutex_);
    return cv_.wait_for(lock, timeout, [&] { return outstanding_ == 0; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  int64_t outstanding_ = 0;
};

double ms_since(steady_clock::time_point t0) {
  return duration<double, std::milli>(steady_clock::now() - t0).count();
}

anim::v1::IkSolver solver_of(const std::string& name) {
  if (name == "ccd") return anim::v1::IK_SOLVER_CCD;
  if (name == "two-bone") return anim::v1::IK_SOLVER_TWO_BONE;
  return anim::v1::IK_SOLVER_FABRIK;
}

// Picks the IK chain of `skeleton` (or checks the one given): a hand when there is one, else
// the deepest leaf, with its grandparent as the chain root (three joints, fit for every solver).
std::string choose_chain(const anim::v1::SkeletonData& skeleton, const std::string& given,
                         AssetPlan& plan) {
  const auto& names = skeleton.joint_names();
  const auto& parents = skeleton.parents();
  auto index_of = [&](const std::string& name) -> int {
    for (int i = 0; i < names.size(); ++i)
      if (names[i] == name) return i;
    return -1;
  };
  auto parent = [&](int i) { return i >= 0 && i < parents.size() ? parents[i] : -1; };
  if (!given.empty()) {
    const size_t dots = given.find("..");
    if (dots == std::string::npos) return "--ik-chain: '" + given + "' is not ROOT..EFFECTOR";
    const int root = index_of(given.substr(0, dots));
    const int effector = index_of(given.substr(dots + 2));
    if (root < 0 || effector < 0)
      return "--ik-chain: asset " + plan.name + " has no joint named in '" + given + "'";
    int j = effector;
    while (j >= 0 && j != root) j = parent(j);
    if (j != root)
      return "--ik-chain: in asset " + plan.name + ", " + names[effector] +
             " does not descend from " + names[root];
    plan.ik_root = names[root];
    plan.ik_effector = names[effector];
    return {};
  }
  auto depth = [&](int i) {
    int d = 0;
    for (int j = parent(i); j >= 0 && d < names.size(); j = parent(j)) ++d;
    return d;
  };
  int best = -1;
  for (int i = 0; i < names.size(); ++i) {
    if (depth(i) < 2) continue;
    const bool hand =
        names[i].find("hand") != std::string::npos || names[i].find("Hand") != std::string::npos;
    if (hand) {
      best = i;
      break;
    }
    if (best < 0 || depth(i) > depth(best)) best = i;
  }
  if (best < 0) return {};  // too shallow for IK: the IK share of the mix is skipped
  plan.ik_effector = names[best];
  plan.ik_root = names[parent(parent(best))];
  return {};
}

class Run {
 public:
  Run(const Options& o, Summary& s, std::ostream& progress, std::ostream& err)
      : o_(o), summary_(s), progress_(progress), err_(err), rng_(o.seed) {}

  int execute() {
    summary_.options = o_;
    if (int code = connect(); code >= 0) return code;
    if (int code = prepare_assets(); code >= 0) return finish(code);
    if (int code = spawn(); code >= 0) return finish(code);
    prepare_ik_targets();
    subscribe();
    drive();
    teardown();
    return finish(recorder_.errors > 0 ? kExitErrors : kExitOk);
  }

 private:
  int connect() {
    animclient::ClientOptions co;
    co.host = o_.host;
    co.port = o_.port;
    co.auth_token = o_.token;
    co.tls = o_.tls.tls;
    co.ca_file = o_.tls.ca_file;
    co.cert_file = o_.tls.cert_file;
    co.key_file = o_.tls.key_file;
    co.server_name = o_.tls.server_name;
    co.request_timeout = milliseconds(o_.request_timeout_ms);
    co.decode_compact = !o_.skip_decode;
    for (int i = 0; i < o_.connections; ++i) {
      auto client = Client::connect(co);
      if (!client) {
        err_ << "animload: connection " << i + 1 << " of " << o_.connections << ": "
             << client.error().to_string() << "\n";
        return kExitConnect;
      }
      connections_.push_back(std::make_unique<Connection>());
      connections_.back()->client = std::move(client.value());
    }
    return -1;
  }

  int prepare_assets() {
    Client& client = *connections_.front()->client;
    auto listed = client.list_assets();
    if (!listed) {
      err_ << "animload: list_assets: " << listed.error().to_string() << "\n";
      return kExitConnect;
    }
    for (const std::string& name : o_.assets) {
      const anim::v1::AssetInfo* info = nullptr;
      for (const auto& a : listed->assets())
        if (a.name() == name) info = &a;
      if (!info) {
        std::string known;
        for (const auto& a : listed->assets()) known += (known.empty() ? "" : ", ") + a.name();
        err_ << "animload: unknown asset '" << name << "'; the daemon has: " << known << "\n";
        return kExitUsage;
      }
      AssetPlan plan;
      plan.name = name;
      auto has_clip = [&](const std::string& clip) {
        return std::any_of(info->clips().begin(), info->clips().end(),
                           [&](const auto& c) { return c.name() == clip; });
      };
      if (!o_.additive_clip.empty()) {
        if (!has_clip(o_.additive_clip)) {
          err_ << "animload: --additive-clip: asset " << name << " has no clip '"
               << o_.additive_clip << "'\n";
          return kExitUsage;
        }
        plan.additive_clip = o_.additive_clip;
      } else if (has_clip("lean")) {
        plan.additive_clip = "lean";
      } else if (!info->clips().empty()) {
        plan.additive_clip = info->clips().rbegin()->name();
      }
      for (const auto& c : info->clips())
        if (c.name() != plan.additive_clip || info->clips_size() == 1)
          plan.base_clips.push_back(c.name());
      for (const auto& c : info->clips()) plan.all_clips.push_back(c.name());

      auto data = client.get_asset_data(name, /*skip_mesh=*/true);
      if (!data) {
        err_ << "animload: get_asset_data " << name << ": " << data.error().to_string() << "\n";
        return kExitConnect;
      }
      if (std::string problem = choose_chain(data->skeleton(), o_.ik_chain, plan);
          !problem.empty()) {
        err_ << "animload: " << problem << "\n";
        return kExitUsage;
      }
      assets_.push_back(std::move(plan));
    }
    return -1;
  }

  int spawn() {
    const int per = o_.characters_per_connection;
    const int total = o_.characters > 0 ? o_.characters : o_.connections * per;
    const int side = grid_side();
    Batch& batch = spawn_batch_;
    for (int c = 0; c < o_.connections; ++c) {
      Connection& conn = *connections_[c];
      for (int k = 0; k < per && c * per + k < total; ++k) {
        const int g = c * per + k;
        const size_t asset = static_cast<size_t>(g) % assets_.size();
        const AssetPlan& plan = assets_[asset];
        Request request;
        auto* spawn = request.mutable_spawn();
        spawn->set_asset(plan.name);
        if (o_.cycle_every_s > 0 && !plan.all_clips.empty())
          spawn->set_clip(plan.all_clips.front());
        else if (!plan.base_clips.empty())
          spawn->set_clip(plan.base_clips[pick(plan.base_clips.size())]);
        auto* at = spawn->mutable_root()->mutable_translation();
        at->set_x(static_cast<float>((g % side - side / 2) * o_.spacing));
        at->set_z(static_cast<float>((g / side - side / 2) * o_.spacing));
        batch.add();
        const auto t0 = steady_clock::now();
        conn.client->call_async(request, [this, &conn, &batch, asset, t0](Result<Reply> r) {
          if (recorder_.reply("spawn", ms_since(t0), r, false) && r->has_spawn()) {
            auto character = std::make_unique<Character>();
            character->id = r->spawn().character_id();
            character->asset = asset;
            std::lock_guard lock(conn.mutex);
            conn.characters.push_back(std::move(character));
          }
          batch.done();
        });
      }
    }
    batch.wait(milliseconds(o_.request_timeout_ms) + seconds(5));
    for (auto& conn : connections_) {
      std::lock_guard lock(conn->mutex);
      for (auto& ch : conn->characters) all_.push_back({conn.get(), ch.get()});
    }
    summary_.characters_spawned = all_.size();
    if (all_.empty() && total > 0) {
      err_ << "animload: no character could be spawned\n";
      return kExitConnect;
    }
    return -1;
  }

  // The effector's current position per asset, so that IK targets are reachable-ish.
  void prepare_ik_targets() {
    for (size_t a = 0; a < assets_.size(); ++a) {
      AssetPlan& plan = assets_[a];
      if (plan.ik_effector.empty()) continue;
      auto it = std::find_if(all_.begin(), all_.end(),
                             [&](const auto& e) { return e.second->asset == a; });
      if (it == all_.end()) continue;
      anim::v1::QueryPoseRequest query;
      query.set_character_id(it->second->id);
      query.add_joint_names(plan.ik_root);
      query.add_joint_names(plan.ik_effector);
      query.set_space(anim::v1::SPACE_MODEL);
      auto pose = it->first->client->query_pose(query);
      if (!pose || pose->joints_size() != 2) {
        recorder_.error(
            "query_pose " + std::string(pose ? "reply" : animclient::kind_name(pose.error().kind)),
            pose ? "expected 2 joints" : pose.error().to_string());
        continue;
      }
      const auto& root = pose->joints(0).position();
      const auto& effector = pose->joints(1).position();
      plan.ik_center = effector;
      const float dx = effector.x() - root.x(), dy = effector.y() - root.y(),
                  dz = effector.z() - root.z();
      plan.ik_radius = std::max(0.01f, 0.25f * std::sqrt(dx * dx + dy * dy + dz * dz));
      plan.ik_ready = true;
    }
  }

  void subscribe() {
    for (int c = 0; c < o_.subscribers; ++c) {
      Connection& conn = *connections_[c];
      // The callback runs on the connection's I/O thread right after the frame was read (and
      // decoded): the growth of the stream byte counter since the last one is its wire size.
      conn.client->set_frame_callback(
          [this, client = conn.client.get(), last = uint64_t{0}](const StreamFrame& frame) mutable {
            const uint64_t now = client->counters().stream_bytes_received;
            recorder_.frame(frame, now - last);
            last = now;
          });
      anim::v1::SubscribeRequest request;
      request.set_rate_divisor(static_cast<uint32_t>(o_.rate_divisor));
      request.set_encoding(o_.encoding == "float" ? anim::v1::ENCODING_FLOAT_3X4
                                                  : anim::v1::ENCODING_COMPACT);
      if (o_.subscribe_all) {
        request.set_all_characters(true);
      } else if (o_.region_characters > 0) {
        *request.mutable_region() = region_of(c);
      } else {
        std::lock_guard lock(conn.mutex);
        if (conn.characters.empty()) continue;
        for (const auto& ch : conn.characters) request.add_character_ids(ch->id);
      }
      const auto t0 = steady_clock::now();
      Request envelope;
      *envelope.mutable_subscribe() = request;
      recorder_.reply("subscribe", ms_since(t0), conn.client->call(envelope), false);
    }
  }

  // The spawn grid (spawn()): `side` x `side` positions, `spacing` apart, centred on 0.
  int grid_side() const {
    const double total = o_.characters > 0
                             ? static_cast<double>(o_.characters)
                             : static_cast<double>(o_.connections) * o_.characters_per_connection;
    return std::max(1, static_cast<int>(std::ceil(std::sqrt(total))));
  }

  // Subscriber `c`'s region: a sphere of area about region_characters grid cells, centred in
  // cell c of a k x k split of the grid.
  anim::v1::Region region_of(int c) const {
    const int k = std::max(1, static_cast<int>(std::ceil(std::sqrt(o_.subscribers))));
    const double extent = grid_side() * o_.spacing;  // the grid's width in metres
    const double cell = extent / k;
    const double low = -(grid_side() / 2) * o_.spacing;
    anim::v1::Region r;
    auto* sphere = r.mutable_sphere();
    sphere->mutable_center()->set_x(static_cast<float>(low + (c % k + 0.5) * cell));
    sphere->mutable_center()->set_z(static_cast<float>(low + (c / k + 0.5) * cell));
    const double area =
        o_.region_characters * std::max(o_.spacing, 0.01) * std::max(o_.spacing, 0.01);
    sphere->set_radius(static_cast<float>(std::sqrt(area / 3.14159265358979)));
    r.set_outer_margin(0.0f);
    r.set_outer_rate_divisor(0);
    return r;
  }

  size_t pick(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng_); }
  float uniform(float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(rng_); }

  enum class Kind { kPlay, kCrossfade, kAdditive, kIk, kQuery };

  void drive() {
    const double per_character =
        o_.play_rate + o_.crossfade_rate + o_.additive_rate + o_.ik_rate + o_.query_rate;
    const double total_rate = per_character * static_cast<double>(all_.size());
    std::discrete_distribution<int> kind_of(
        {o_.play_rate, o_.crossfade_rate, o_.additive_rate, o_.ik_rate, o_.query_rate});
    std::exponential_distribution<double> gap(total_rate > 0 ? total_rate : 1.0);

    uint64_t start_tick = 0;
    if (o_.ticks > 0) {
      auto stats = connections_.front()->client->stats();
      if (stats) start_tick = stats->tick();
      recorder_.note_tick(start_tick);
    }
    const bool poll_ticks = o_.ticks > 0 && o_.subscribers == 0;
    const auto start = steady_clock::now();
    const auto limit = start + duration_cast<steady_clock::duration>(duration<double>(
                                   o_.ticks > 0 ? o_.max_duration_s : o_.duration_s));
    recorder_.measuring = true;

    auto next_command = start;
    const auto cycle = duration_cast<steady_clock::duration>(duration<double>(o_.cycle_every_s));
    auto next_cycle = start + cycle;
    size_t cycles = 0;
    size_t spread_sent = 0;  // --cycle-spread: crossfades sent so far
    auto next_progress = start + milliseconds(500);
    auto next_tick_check = start;
    uint64_t last_sent = 0, last_frames = 0, last_chars = 0;
    auto last_progress = start;
    while (true) {
      const auto now = steady_clock::now();
      if (now >= limit) break;
      if (o_.ticks > 0) {
        if (poll_ticks && now >= next_tick_check) {
          if (auto stats = connections_.front()->client->stats())
            recorder_.note_tick(stats->tick());
          next_tick_check = now + milliseconds(100);
        }
        if (recorder_.latest_tick >= start_tick + o_.ticks) break;
      }
      if (now >= next_progress) {
        if (!o_.quiet) {
          const double dt = duration<double>(now - last_progress).count();
          char line[256];
          std::snprintf(
              line, sizeof line,
              "\r%6.1f s  commands %7.1f/s  frames %7.1f/s  characters %9.0f/s  tick-to-client p50 "
              "%6.2f ms  errors %llu   ",
              duration<double>(now - start).count(),
              static_cast<double>(recorder_.sent - last_sent) / dt,
              static_cast<double>(recorder_.frames - last_frames) / dt,
              static_cast<double>(recorder_.character_frames - last_chars) / dt,
              recorder_.recent_frame_p50(),
              static_cast<unsigned long long>(recorder_.errors.load()));
          progress_ << line << std::flush;
          showed_progress_ = true;
        }
        last_sent = recorder_.sent;
        last_frames = recorder_.frames;
        last_chars = recorder_.character_frames;
        last_progress = now;
        next_progress = now + milliseconds(500);
      }
      if (o_.cycle_every_s > 0 && o_.cycle_spread && !all_.empty()) {
        // Character k's crossfade of cycle c (0, 1, ...) is due at start + (c + k / N) x cycle.
        const double due = duration<double>(now - start).count() / o_.cycle_every_s *
                           static_cast<double>(all_.size());
        for (; static_cast<double>(spread_sent) < due; ++spread_sent) {
          const auto& [conn, ch] = all_[spread_sent % all_.size()];
          cycle_clip(*conn, *ch, spread_sent / all_.size() + 1);
        }
      } else if (o_.cycle_every_s > 0 && now >= next_cycle) {
        ++cycles;
        for (const auto& [conn, ch] : all_) cycle_clip(*conn, *ch, cycles);
        next_cycle += cycle;
      }
      if (total_rate <= 0) {
        std::this_thread::sleep_for(milliseconds(5));
        continue;
      }
      if (now < next_command) {
        std::this_thread::sleep_until(std::min({next_command, next_progress, limit}));
        continue;
      }
      // Behind schedule by more than 100 ms (the daemon or this host is saturated): do not
      // burst to catch up; the achieved rate in the report shows the shortfall.
      if (now - next_command > milliseconds(100)) next_command = now;
      next_command += duration_cast<steady_clock::duration>(duration<double>(gap(rng_)));
      const auto& [conn, ch] = all_[pick(all_.size())];
      issue(*conn, *ch, static_cast<Kind>(kind_of(rng_)));
    }
    recorder_.measuring = false;
    summary_.elapsed_s = duration<double>(steady_clock::now() - start).count();
    if (showed_progress_) progress_ << "\n";

    if (auto stats = connections_.front()->client->stats()) {
      summary_.have_server_stats = true;
      summary_.server_stats = {{"tick", stats->tick()},
                               {"tick_rate_hz", stats->tick_rate_hz()},
                               {"characters", stats->characters()},
                               {"sessions", stats->sessions()},
                               {"subscriptions", stats->subscriptions()},
                               {"tick_time_p50_us", stats->tick_time_p50_us()},
                               {"tick_time_p99_us", stats->tick_time_p99_us()},
                               {"tick_time_max_us", stats->tick_time_max_us()},
                               {"tick_overruns", stats->tick_overruns()},
                               {"bytes_out", stats->bytes_out()},
                               {"stream_frames_sent", stats->stream_frames_sent()},
                               {"stream_frames_dropped", stats->stream_frames_dropped()},
                               {"requests", stats->requests()},
                               {"request_errors", stats->request_errors()},
                               {"worker_threads", stats->worker_threads()}};
    }
  }

  // --cycle-every: the character crossfades (0.5 s) to its asset's clip number `cycle` (mod
  // the clip count), so every character goes A -> B -> A ... in step.
  void cycle_clip(Connection& conn, Character& ch, size_t cycle) {
    const AssetPlan& plan = assets_[ch.asset];
    if (plan.all_clips.size() < 2) return;
    Request request;
    auto* fade = request.mutable_crossfade();
    fade->set_character_id(ch.id);
    fade->set_clip(plan.all_clips[cycle % plan.all_clips.size()]);
    fade->set_duration(0.5f);
    ++conn.inflight;
    recorder_.count_sent("crossfade");
    const auto t0 = steady_clock::now();
    conn.client->call_async(request, [this, &conn, t0](Result<Reply> r) {
      recorder_.reply("crossfade", ms_since(t0), r);
      --conn.inflight;
    });
  }

  void issue(Connection& conn, Character& ch, Kind kind) {
    if (conn.inflight >= o_.max_inflight) {
      ++recorder_.skipped;
      return;
    }
    const AssetPlan& plan = assets_[ch.asset];
    Request request;
    std::string type;
    // What to do with the character's layer/goal state when the reply arrives.
    enum class After { kNothing, kLayerCreated, kGoalCreated } after = After::kNothing;
    switch (kind) {
      case Kind::kPlay: {
        if (plan.base_clips.empty()) return void(++recorder_.skipped);
        type = "play";
        auto* play = request.mutable_play();
        play->set_character_id(ch.id);
        play->set_clip(plan.base_clips[pick(plan.base_clips.size())]);
        break;
      }
      case Kind::kCrossfade: {
        if (plan.base_clips.empty()) return void(++recorder_.skipped);
        type = "crossfade";
        auto* fade = request.mutable_crossfade();
        fade->set_character_id(ch.id);
        fade->set_clip(plan.base_clips[pick(plan.base_clips.size())]);
        fade->set_duration(uniform(0.1f, 0.4f));
        break;
      }
      case Kind::kAdditive: {
        if (plan.additive_clip.empty()) return void(++recorder_.skipped);
        const int64_t layer = ch.layer.load();
        if (layer < 0) return void(++recorder_.skipped);  // its add is still in flight
        if (layer == 0) {
          type = "additive_add";
          ch.layer = -1;
          after = After::kLayerCreated;
          auto* add = request.mutable_add_layer();
          add->set_character_id(ch.id);
          add->set_clip(plan.additive_clip);
          add->set_weight(uniform(0.2f, 1.0f));
        } else if (uniform(0.0f, 1.0f) < 0.8f) {
          type = "additive_update";
          auto* update = request.mutable_update_layer();
          update->set_character_id(ch.id);
          update->set_layer_id(static_cast<uint32_t>(layer));
          update->set_weight(uniform(0.0f, 1.0f));
        } else {
          type = "additive_remove";
          ch.layer = 0;  // later commands on this connection arrive after the remove
          auto* remove = request.mutable_remove_layer();
          remove->set_character_id(ch.id);
          remove->set_layer_id(static_cast<uint32_t>(layer));
        }
        break;
      }
      case Kind::kQuery: {
        type = "query_pose";
        auto* q = request.mutable_query_pose();
        q->set_character_id(ch.id);
        // Replies to tick commands name the tick after the newest published one: one back.
        const uint64_t latest = recorder_.latest_tick.load();
        if (pick(2) == 0 && latest > 32) q->set_tick(latest - 1 - pick(30));
        break;
      }
      case Kind::kIk: {
        if (!plan.ik_ready) return void(++recorder_.skipped);
        const int64_t goal = ch.goal.load();
        if (goal < 0) return void(++recorder_.skipped);
        if (goal > 0 && uniform(0.0f, 1.0f) < 0.2f) {
          type = "ik_clear";
          ch.goal = 0;
          request.mutable_clear_ik_goal()->set_character_id(ch.id);
          request.mutable_clear_ik_goal()->set_goal_id(static_cast<uint32_t>(goal));
          break;
        }
        auto* set = request.mutable_set_ik_goal();
        set->set_character_id(ch.id);
        set->set_root_joint(plan.ik_root);
        set->set_effector_joint(plan.ik_effector);
        set->set_solver(solver_of(o_.ik_solver));
        set->set_space(anim::v1::SPACE_MODEL);
        auto* target = set->mutable_target();
        target->set_x(plan.ik_center.x() + uniform(-plan.ik_radius, plan.ik_radius));
        target->set_y(plan.ik_center.y() + uniform(-plan.ik_radius, plan.ik_radius));
        target->set_z(plan.ik_center.z() + uniform(-plan.ik_radius, plan.ik_radius));
        set->set_weight(uniform(0.5f, 1.0f));
        if (goal == 0) {
          type = "ik_set";
          ch.goal = -1;
          after = After::kGoalCreated;
        } else {
          type = "ik_move";
          set->set_goal_id(static_cast<uint32_t>(goal));
        }
        break;
      }
    }
    ++conn.inflight;
    recorder_.count_sent(type);
    const auto t0 = steady_clock::now();
    conn.client->call_async(request, [this, &conn, &ch, type, after, t0](Result<Reply> r) {
      const bool ok = recorder_.reply(type, ms_since(t0), r);
      if (after == After::kLayerCreated)
        ch.layer = ok && r->has_add_layer() ? r->add_layer().layer_id() : 0;
      if (after == After::kGoalCreated)
        ch.goal = ok && r->has_set_ik_goal() ? r->set_ik_goal().goal_id() : 0;
      --conn.inflight;
    });
  }

  void teardown() {
    // Let in-flight commands finish (bounded by the reply timeout).
    const auto deadline = steady_clock::now() + milliseconds(o_.request_timeout_ms) + seconds(1);
    auto inflight = [&] {
      int n = 0;
      for (auto& conn : connections_) n += conn->inflight;
      return n;
    };
    while (inflight() > 0 && steady_clock::now() < deadline)
      std::this_thread::sleep_for(milliseconds(5));

    for (int c = 0; c < o_.subscribers; ++c) {
      connections_[c]->client->unsubscribe(0);
      connections_[c]->client->set_frame_callback(nullptr);
    }
    for (auto& conn : connections_)
      summary_.dropped_locally += conn->client->counters().frames_dropped_locally;

    Batch& batch = despawn_batch_;
    std::atomic<uint64_t>& despawned = despawned_;
    for (const auto& [conn, ch] : all_) {
      Request request;
      request.mutable_despawn()->set_character_id(ch->id);
      batch.add();
      const auto t0 = steady_clock::now();
      conn->client->call_async(request, [this, &batch, &despawned, t0](Result<Reply> r) {
        if (recorder_.reply("despawn", ms_since(t0), r, false)) ++despawned;
        batch.done();
      });
    }
    batch.wait(milliseconds(o_.request_timeout_ms) + seconds(5));
    summary_.characters_despawned = despawned;
  }

  int finish(int code) {
    // Close every connection before the summary: late callbacks then have nothing to touch.
    for (auto& conn : connections_) conn->client.reset();
    recorder_.fill(summary_);
    return code;
  }

  const Options& o_;
  Summary& summary_;
  std::ostream& progress_;
  std::ostream& err_;
  std::mt19937_64 rng_;
  Recorder recorder_;
  std::vector<AssetPlan> assets_;
  std::vector<std::unique_ptr<Connection>> connections_;
  std::vector<std::pair<Connection*, Character*>> all_;  // every spawned character
  bool showed_progress_ = false;
  // Members, not locals: a callback that outlives a timed-out wait must still find them.
  Batch spawn_batch_, despawn_batch_;
  std::atomic<uint64_t> despawned_{0};
};

}  // namespace

int run(const Options& options, Summary& summary, std::ostream& progress, std::ostream& err) {
  Run run(options, summary, progress, err);
  return run.execute();
}

}  // namespace animload
