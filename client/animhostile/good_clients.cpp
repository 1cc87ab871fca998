#include "good_clients.h"

#include <random>
#include <thread>

namespace animhostile {

namespace {

using Clock = std::chrono::steady_clock;
const char* const kClips[] = {"idle", "walk", "run", "wave"};

}  // namespace

struct GoodClients::Worker {
  std::unique_ptr<animclient::Client> client;
  uint32_t character = 0;
  std::thread thread;
  GoodResult result;
  uint64_t seed = 0;

  anim::v1::Request next_request(std::mt19937_64& rng) {
    anim::v1::Request r;
    const char* clip = kClips[rng() % 4];
    switch (rng() % 4) {
      case 0: {
        auto* p = r.mutable_play();
        p->set_character_id(character);
        p->set_clip(clip);
        p->set_loop(true);
        break;
      }
      case 1: {
        auto* c = r.mutable_crossfade();
        c->set_character_id(character);
        c->set_clip(clip);
        c->set_duration(0.3f);
        c->set_loop(true);
        break;
      }
      case 2:
        r.mutable_query_pose()->set_character_id(character);
        break;
      default:
        r.mutable_stats();
        break;
    }
    return r;
  }

  void run(const Options& o, const std::atomic<bool>& stop) {
    std::mt19937_64 rng(seed);
    const auto period = std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double>(1.0 / o.good_rate));
    const auto timeout = std::chrono::milliseconds(o.request_timeout_ms);
    auto next = Clock::now();
    while (!stop.load()) {
      const auto t0 = Clock::now();
      auto reply = client->call(next_request(rng), timeout);
      const auto t1 = Clock::now();
      result.requests_sent++;
      if (reply) {
        result.replies_received++;
        result.latencies_ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
        if (reply->status().code() != anim::v1::STATUS_OK)
          result.errors[animclient::status_code_name(reply->status().code())]++;
      } else {
        result.errors[animclient::kind_name(reply.error().kind)]++;
        if (!client->connected()) break;  // every later call would fail the same way
      }
      next += period;
      const auto now = Clock::now();
      if (next < now) next = now;  // behind (slow replies): do not burst to catch up
      while (!stop.load() && Clock::now() < next)
        std::this_thread::sleep_for(
            std::min<Clock::duration>(next - Clock::now(), std::chrono::milliseconds(50)));
    }
  }
};

GoodClients::GoodClients(const Options& options) : options_(options) {}

GoodClients::~GoodClients() {
  for (auto& w : workers_)
    if (w->thread.joinable()) w->thread.join();
}

bool GoodClients::setup(std::string& error) {
  animclient::ClientOptions co = client_options(options_);
  co.auth_token = options_.token;
  for (int i = 0; i < options_.good; ++i) {
    auto w = std::make_unique<Worker>();
    w->seed = options_.seed * 1000003u + static_cast<uint64_t>(i);
    auto c = animclient::Client::connect(co);
    if (!c) {
      error = "good client " + std::to_string(i) + ": " + c.error().to_string();
      return false;
    }
    w->client = std::move(c.value());
    anim::v1::SpawnRequest spawn;
    spawn.set_asset("builtin");
    spawn.set_clip("walk");
    auto s = w->client->spawn(spawn);
    if (!s) {
      error = "good client " + std::to_string(i) + ": spawn: " + s.error().to_string();
      return false;
    }
    w->character = s->character_id();
    workers_.push_back(std::move(w));
  }
  return true;
}

uint32_t GoodClients::first_character() const {
  return workers_.empty() ? 0 : workers_.front()->character;
}

void GoodClients::start(const std::atomic<bool>& stop) {
  for (auto& w : workers_) {
    Worker* raw = w.get();
    w->thread = std::thread([raw, this, &stop] { raw->run(options_, stop); });
  }
}

GoodResult GoodClients::finish() {
  GoodResult all;
  for (auto& w : workers_) {
    if (w->thread.joinable()) w->thread.join();
    if (w->client && w->client->connected()) (void)w->client->despawn(w->character);
    GoodResult& r = w->result;
    all.requests_sent += r.requests_sent;
    all.replies_received += r.replies_received;
    all.latencies_ms.insert(all.latencies_ms.end(), r.latencies_ms.begin(), r.latencies_ms.end());
    for (const auto& [k, v] : r.errors) all.errors[k] += v;
    all.clients_connected++;
  }
  return all;
}

}  // namespace animhostile
