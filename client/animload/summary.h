#pragma once
// What one animload run measured, and its renderings (human text, JSON).

#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "options.h"

namespace animload {

// Percentiles of a set of samples (nearest-rank; all 0 when empty).
struct Distribution {
  uint64_t count = 0;
  double p50 = 0, p99 = 0, max = 0, mean = 0;
};
Distribution distribution_of(std::vector<double> samples);

struct Summary {
  Options options;
  double elapsed_s = 0;  // the measured run phase (after spawning and subscribing)

  uint64_t characters_spawned = 0;
  uint64_t characters_despawned = 0;

  // The command mix of the run phase (spawn, subscribe and despawn are not counted here;
  // their failures are counted in errors).
  uint64_t commands_sent = 0;
  uint64_t commands_ok = 0;
  uint64_t commands_skipped = 0;  // not sent: in-flight limit reached or layer/goal pending
  std::map<std::string, uint64_t> commands_by_type;  // "play", "crossfade", ...
  Distribution reply_latency_ms;
  Distribution query_latency_ms;  // the query_pose share of reply_latency_ms

  uint64_t frames = 0;             // stream frames received in the run phase
  uint64_t character_frames = 0;   // sum of characters over those frames
  uint64_t stream_bytes = 0;       // bytes of those frames on the wire (with framing)
  Distribution tick_to_client_ms;  // arrival wall clock - StreamFrame.server_unix_time_us
  uint64_t dropped_by_server = 0;  // sum of StreamFrame.dropped_since_last
  uint64_t dropped_locally = 0;    // client queue overflow
  uint64_t first_tick = 0, last_tick = 0;

  uint64_t errors = 0;
  std::map<std::string, uint64_t> errors_by_kind;     // "play NOT_FOUND", "crossfade timeout"
  std::map<std::string, std::string> error_examples;  // first message per kind

  bool have_server_stats = false;
  nlohmann::json server_stats;  // the daemon's StatsReply at the end of the run phase
};

nlohmann::json to_json(const Summary& summary);
void print_summary(const Summary& summary, std::ostream& out);

}  // namespace animload
