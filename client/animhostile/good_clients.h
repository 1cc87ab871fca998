#pragma once
// The well-behaved side: --good libanimclient connections, each with one built-in character,
// sending a steady mix (play, crossfade, query_pose, stats) at --good-rate requests per
// second, one request at a time, and timing every reply.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "animclient/client.h"
#include "options.h"

namespace animhostile {

struct GoodResult {
  uint64_t requests_sent = 0;
  uint64_t replies_received = 0;           // any status
  std::vector<double> latencies_ms;        // of every reply received
  std::map<std::string, uint64_t> errors;  // non-OK replies by status ("NOT_FOUND"), transport
                                           // failures by kind ("timeout", "disconnected")
  uint64_t clients_connected = 0;
  uint64_t lost() const { return requests_sent - replies_received; }
};

class GoodClients {
 public:
  explicit GoodClients(const Options& options);
  ~GoodClients();

  // Connects every client and spawns its character (bounded by the request timeout). False
  // with `error` when one fails: nothing has been attacked yet, so that is a setup failure.
  bool setup(std::string& error);
  // The first good character (the query flood asks about it); 0 when there is none.
  uint32_t first_character() const;

  // Starts one thread per client; they run until stop is set (checked before each request).
  void start(const std::atomic<bool>& stop);
  // Joins the threads (each finishes its current request, bounded by the timeout), despawns
  // the characters and merges the figures.
  GoodResult finish();

 private:
  struct Worker;
  const Options& options_;
  std::vector<std::unique_ptr<Worker>> workers_;
};

}  // namespace animhostile
