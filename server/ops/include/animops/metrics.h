#pragma once
// Metrics: the daemon's counters, gauges and tick-duration histogram, exposed through
// prometheus-cpp: Metrics is a prometheus::Collectable (so it can also be registered in any
// prometheus-cpp Registry), and render() is prometheus-cpp's TextSerializer (text exposition
// format 0.0.4) over Collect(), served by GET /metrics.
//
// Every value is a std::atomic of our own, so the tick thread, network threads and the HTTP
// scrape may touch them concurrently without locks (prometheus::Histogram::Observe takes a
// mutex; the tick thread must not). Updating a metric never allocates. Collecting allocates
// (it builds prometheus::MetricFamily values) and runs on the HTTP thread only.
//
// The set of metrics is fixed (all named animd_*); see docs/operations.md for each one.

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

namespace animops {

// A monotonically increasing count (Prometheus "counter").
class Counter {
 public:
  void inc(uint64_t n = 1) { v_.fetch_add(n, std::memory_order_relaxed); }
  // Mirrors a total kept elsewhere (e.g. the daemon's own atomic). The caller guarantees
  // it never decreases; a smaller value is ignored so the exported counter stays monotonic.
  void set_total(uint64_t total);
  uint64_t value() const { return v_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> v_{0};
};

// A value that goes up and down (Prometheus "gauge"); whole numbers (counts of things).
class Gauge {
 public:
  void set(int64_t v) { v_.store(v, std::memory_order_relaxed); }
  void add(int64_t d) { v_.fetch_add(d, std::memory_order_relaxed); }
  int64_t value() const { return v_.load(std::memory_order_relaxed); }

 private:
  std::atomic<int64_t> v_{0};
};

// The tick-duration histogram. Bucket upper bounds are in seconds, chosen around a 60 Hz
// tick (16.7 ms budget): fine below the budget, a few coarse ones above it for overruns.
class TickHistogram {
 public:
  static constexpr std::array<double, 11> kUpperBoundsSeconds = {
      0.0005, 0.001, 0.002, 0.004, 0.006, 0.008, 0.010, 0.0125, 0.0167, 0.025, 0.050};

  // Records one tick. Negative durations count as 0.
  void observe(std::chrono::nanoseconds duration);

  // Cumulative count of observations <= kUpperBoundsSeconds[i] (i < size) or of all
  // observations (i == size, the +Inf bucket).
  uint64_t cumulative(size_t i) const;
  uint64_t count() const { return cumulative(kUpperBoundsSeconds.size()); }
  double sum_seconds() const { return static_cast<double>(sum_ns()) / 1e9; }
  // Sum of all observations in whole nanoseconds (exact; the exposition converts once).
  uint64_t sum_ns() const { return sum_ns_.load(std::memory_order_relaxed); }

 private:
  // Non-cumulative: per_bucket_[i] counts observations in (bound[i-1], bound[i]];
  // the last slot counts those above every bound.
  std::array<std::atomic<uint64_t>, kUpperBoundsSeconds.size() + 1> per_bucket_{};
  std::atomic<uint64_t> sum_ns_{0};
};

// Facts about the binary, exported as animd_build_info{...} 1.
struct BuildInfo {
  std::string version;     // e.g. "0.1.0" (the CMake project version)
  std::string build_type;  // e.g. "Release"
};

// Number of request_errors_total{code=...} series: anim.v1.StatusCode 0..9 plus "OTHER"
// for codes this build does not know (a newer daemon part talking to an older ops lib).
inline constexpr int kStatusCodeCount = 11;

// Why the HTTP endpoint refused a request or closed a connection it had not served
// (animd_http_refusals_total{reason}; docs/operations.md, "The HTTP endpoint").
enum class HttpRefusal {
  kHost,             // Host header not allowed (--http-allowed-host): 403
  kAddressLimit,     // connection refused: its address at --http-max-connections-per-address
  kConnectionLimit,  // connection refused: every slot and the operations reserve busy
  kIdleEvicted,      // a connection without a complete request closed to make room
  kHeaderTimeout,    // no complete request header within --http-header-timeout
  kReserveOnly,      // a reserve connection asked for something other than the probes: 503
};
inline constexpr int kHttpRefusalCount = 6;
// Label value: "host", "address_limit", "connection_limit", "idle_evicted",
// "header_timeout", "reserve_only".
std::string_view http_refusal_label(HttpRefusal reason);

// Label value for a status code: "INVALID_ARGUMENT", ... (anim.v1.StatusCode without the
// STATUS_ prefix); "OTHER" for codes outside 1..9. Code 0 (OK) is not an error: "OK".
std::string_view status_code_label(int code);

class Metrics : public prometheus::Collectable {
 public:
  explicit Metrics(BuildInfo build = {});

  // --- gauges: current sizes (set by the daemon, typically once a tick or at scrape) ---
  Gauge characters;     // characters alive in the world
  Gauge sessions;       // open client connections
  Gauge subscriptions;  // active stream subscriptions, all connections
  Gauge assets;         // assets loaded

  // --- counters ---
  Counter ticks;                      // ticks run since start
  Counter tick_overruns;              // ticks that took longer than the tick period
  Counter ticks_skipped;              // tick numbers that never ran (late ticks, clock steps)
  Gauge reduced_rate_characters;      // characters updated less often than every tick
  Gauge detail_skipped_characters;    // characters evaluated without their detail joints
  Counter character_updates_skipped;  // character-ticks shown between two evaluations
  Counter placement_misses;           // character-ticks that did not fit their placement
  Counter clock_steps_forward;        // wall-clock steps forward seen between two ticks
  Counter clock_steps_back;           // ... and back
  Counter migrations_committed;       // migrations that left here, confirmed by their target
  Counter migrations_failed;          // migrations that left here and failed (characters stayed)
  Counter characters_migrated_out;    // characters that left here by migration
  Counter characters_migrated_in;     // characters that arrived here by migration
  Counter state_saves;                // --state-dir: saves written durably
  Counter state_save_failures;        // --state-dir: saves that failed (the previous one stays)
  Gauge state_save_bytes;             // --state-dir: the last save's payload, bytes
  Gauge state_save_us;  // --state-dir: the last save's time to serialize and write, microseconds
  // Bytes held by the daemon's large stores (animd_memory_bytes{store=...}): the pose
  // history, the snapshots made and kept for reuse, their quantized poses, the stream frames
  // queued or kept as spares with the replies (--max-stream-bytes-total) and the request bytes
  // being received (--max-inbound-bytes-total).
  Gauge memory_history_bytes;
  Gauge memory_snapshot_bytes;
  Gauge memory_quant_frame_bytes;
  Gauge memory_stream_bytes;
  Gauge memory_request_bytes;
  Counter bytes_in;               // bytes read from client sockets
  Counter bytes_out;              // bytes written to client sockets
  Counter stream_frames_sent;     // stream frames queued to subscribers
  Counter stream_frames_dropped;  // stream frames dropped because a reader was slow
  Counter requests;               // requests handled, any status
  Counter events_fired;           // animation events crossed by playheads
  Counter events_overflowed;      // ... beyond a character's per-tick limit (not kept)
  Counter events_sent;            // animation events put in stream frames
  Counter events_dropped;         // ... that subscriptions could not keep for their next frame

  TickHistogram tick_duration;

  // Records one tick: ticks_total += 1, the histogram, and tick_overruns_total when
  // `duration` exceeds `period`. Lock-free; call from the tick thread.
  void observe_tick(std::chrono::nanoseconds duration, std::chrono::nanoseconds period);

  // Counts one failed request by its anim.v1.StatusCode value (OK is ignored).
  void count_request_error(int status_code);
  // Mirrors an externally kept per-code error total (monotonic, see Counter::set_total).
  void set_request_errors_total(int status_code, uint64_t total);
  uint64_t request_errors(int status_code) const;

  // Counts one refusal of the HTTP endpoint. Lock-free; any thread.
  void count_http_refusal(HttpRefusal reason) { http_refusals_[static_cast<size_t>(reason)].inc(); }
  uint64_t http_refusals(HttpRefusal reason) const {
    return http_refusals_[static_cast<size_t>(reason)].value();
  }

  // A hook run (under a mutex) at the start of every render(), so that values the daemon
  // keeps in its own stats struct can be copied in just before a scrape.
  void set_collector(std::function<void(Metrics&)> collector);

  // Every metric as prometheus-cpp families, in the order documented in docs/operations.md,
  // with the values as they are now (the collector hook is not run: render() runs it).
  std::vector<prometheus::MetricFamily> Collect() const override;

  // Runs the collector hook, then serializes Collect() with prometheus::TextSerializer. The
  // whole exposition, ending with a newline. Safe to call from any thread.
  std::string render();

 private:
  static size_t error_slot(int status_code);

  BuildInfo build_;
  std::array<Counter, kStatusCodeCount> request_errors_{};
  std::array<Counter, kHttpRefusalCount> http_refusals_{};
  std::mutex collector_mu_;
  std::function<void(Metrics&)> collector_;
};

}  // namespace animops
