// animhostile: hostile load beside well-behaved clients; measures what the good ones see.
#include <sys/resource.h>

#include <csignal>

#include <atomic>
#include <fstream>
#include <iostream>
#include <thread>

#include "daemon_probe.h"
#include "good_clients.h"
#include "hostile.h"
#include "options.h"
#include "report.h"

namespace {

constexpr int kExitOk = 0, kExitFailed = 1, kExitSetup = 3;

// Hostile connections need descriptors: raise the soft limit to the hard one.
void raise_fd_limit() {
  rlimit lim{};
  if (::getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < lim.rlim_max) {
    lim.rlim_cur = lim.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &lim);
  }
}

}  // namespace

int main(int argc, char** argv) {
  using namespace animhostile;
  using Clock = std::chrono::steady_clock;
  Options o;
  if (int code = parse_options(argc, argv, o); code >= 0) return code;
  raise_fd_limit();
  // OpenSSL writes with write(), not send(MSG_NOSIGNAL): a TLS connection the daemon closed
  // must give EPIPE (counted as closed by the server), not kill the tool.
  std::signal(SIGPIPE, SIG_IGN);
  auto say = [&](const std::string& line) {
    if (!o.quiet) std::cerr << "animhostile: " << line << std::endl;
  };

  DaemonProbe probe(o);
  GoodClients good(o);
  std::string error;
  if (!probe.setup(error) || !good.setup(error)) {
    std::cerr << "animhostile: setup: " << error << "\n";
    return kExitSetup;
  }
  // Extra characters for the streams to carry (on a connection of their own, despawned after).
  std::unique_ptr<animclient::Client> spawner;
  std::vector<uint32_t> spawned;
  if (o.spawn_characters > 0) {
    animclient::ClientOptions co = animhostile::client_options(o);
    co.auth_token = o.token;
    auto c = animclient::Client::connect(co);
    if (!c) {
      std::cerr << "animhostile: setup: spawner: " << c.error().to_string() << "\n";
      return kExitSetup;
    }
    spawner = std::move(c.value());
    for (int i = 0; i < o.spawn_characters; ++i) {
      auto s = spawner->spawn("builtin", "walk");
      if (!s) {
        std::cerr << "animhostile: setup: spawn " << i << ": " << s.error().to_string() << "\n";
        return kExitSetup;
      }
      spawned.push_back(s->character_id());
    }
  }
  HostileLoad hostile(o, good.first_character() ? good.first_character() : 1);
  if (!hostile.resolve(error) || !hostile.setup_tls(error)) {
    std::cerr << "animhostile: " << error << "\n";
    return kExitSetup;
  }

  say("attacking for " + std::to_string(o.duration_s) + " s: " + std::to_string(o.hostile) +
      " hostile connections, " + std::to_string(o.good) + " good clients");
  std::atomic<bool> stop{false};
  const auto t0 = Clock::now();
  probe.start(stop, t0);
  good.start(stop);
  HostileResult hostile_result;
  std::thread attacker([&] { hostile_result = hostile.run(stop, t0); });
  const auto end =
      t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.duration_s));
  while (Clock::now() < end)
    std::this_thread::sleep_for(
        std::min<Clock::duration>(end - Clock::now(), std::chrono::milliseconds(200)));
  stop = true;
  attacker.join();  // closes every hostile socket
  Report report;
  report.duration_s = std::chrono::duration<double>(Clock::now() - t0).count();
  report.hostile = std::move(hostile_result);
  report.good = good.finish();
  say("attack over; checking the daemon still answers");
  report.daemon = probe.finish();
  for (uint32_t id : spawned) (void)spawner->despawn(id);

  if (o.json)
    std::cout << to_json(o, report).dump(2) << "\n";
  else
    print_text(o, report, std::cout);
  if (!o.json_out.empty()) {
    std::ofstream f(o.json_out);
    f << to_json(o, report).dump(2) << "\n";
    if (!f) {
      std::cerr << "animhostile: cannot write " << o.json_out << "\n";
      return kExitFailed;
    }
  }
  return report.passed() ? kExitOk : kExitFailed;
}
