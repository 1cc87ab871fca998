#pragma once
// What animhostile watches on the daemon while the attack runs: its resident memory
// (/proc/PID/status VmRSS, when --daemon-pid is given) every 100 ms, and its stats (tick time
// p99, overruns, sessions) every second over a connection of its own.

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "animclient/client.h"
#include "options.h"

namespace animhostile {

// VmRSS of `pid` in KiB; nullopt when the process (or the line) is gone.
std::optional<uint64_t> read_vmrss_kib(pid_t pid);

struct ProbeResult {
  bool rss_sampled = false;
  uint64_t rss_start_kib = 0;  // before the attack
  uint64_t rss_peak_kib = 0;   // highest sample during the attack
  uint64_t rss_end_kib = 0;    // after the attack stopped and the hostile sockets closed
  std::vector<std::pair<double, uint64_t>> rss_timeline_kib;  // (s since start, KiB), every 1 s
  uint64_t stats_answered = 0;  // stats requests the probe connection got an answer to
  uint64_t stats_failed = 0;    // ... and did not (timeout, disconnect)
  double tick_p99_us_max = 0;   // highest tick_time_p99_us seen during the attack
  double tick_p99_us_end = 0;   // from the stats after the attack
  double tick_max_us_max = 0;   // highest tick_time_max_us seen
  uint64_t overruns_start = 0;
  uint64_t overruns_end = 0;
  uint32_t sessions_max = 0;        // highest `sessions` seen (good + hostile + probe)
  bool daemon_alive_after = false;  // a fresh connection's stats request was answered after
  std::string after_error;          // why not
};

class DaemonProbe {
 public:
  explicit DaemonProbe(const Options& options) : options_(options) {}
  ~DaemonProbe();

  // Connects the stats connection and takes the "before" figures. False with `error` when the
  // daemon does not answer.
  bool setup(std::string& error);
  // Samples on a thread of its own until stop is set.
  void start(const std::atomic<bool>& stop, std::chrono::steady_clock::time_point t0);
  // Joins the sampler, then (the attack being over) takes the "after" figures over a fresh
  // connection: that the daemon still answers is one of the results.
  ProbeResult finish();

 private:
  void sample_stats();
  const Options& options_;
  std::unique_ptr<animclient::Client> client_;
  std::thread thread_;
  ProbeResult result_;
};

}  // namespace animhostile
