#include "animops/metrics.h"

#include <algorithm>
#include <limits>
#include <utility>

#include <prometheus/client_metric.h>
#include <prometheus/metric_type.h>
#include <prometheus/text_serializer.h>

namespace animops {

namespace {

// Bucket bounds in integer nanoseconds, so that "<= bound" is exact for whole-ns inputs.
constexpr auto kBoundsNs = [] {
  std::array<int64_t, TickHistogram::kUpperBoundsSeconds.size()> ns{};
  for (size_t i = 0; i < ns.size(); ++i) {
    ns[i] = static_cast<int64_t>(TickHistogram::kUpperBoundsSeconds[i] * 1e9 + 0.5);
  }
  return ns;
}();

// Prometheus values are doubles. Whole counts are exact up to 2^53, far beyond what a
// daemon's lifetime reaches; seconds come from integer nanoseconds by one division, so a
// decimal number of ns gives the double nearest that decimal ("0.022", not "0.02200000001").
double seconds_from_ns(uint64_t ns) {
  return static_cast<double>(ns) / 1e9;
}

prometheus::ClientMetric value_metric(prometheus::MetricType type, double v) {
  prometheus::ClientMetric m;
  if (type == prometheus::MetricType::Counter) {
    m.counter.value = v;
  } else {
    m.gauge.value = v;
  }
  return m;
}

prometheus::MetricFamily family(std::string name, std::string help, prometheus::MetricType type,
                                std::vector<prometheus::ClientMetric> metrics) {
  return prometheus::MetricFamily{std::move(name), std::move(help), type, std::move(metrics)};
}

prometheus::MetricFamily gauge(std::string name, std::string help, const Gauge& g) {
  return family(std::move(name), std::move(help), prometheus::MetricType::Gauge,
                {value_metric(prometheus::MetricType::Gauge, static_cast<double>(g.value()))});
}

prometheus::MetricFamily counter(std::string name, std::string help, const Counter& c) {
  return family(std::move(name), std::move(help), prometheus::MetricType::Counter,
                {value_metric(prometheus::MetricType::Counter, static_cast<double>(c.value()))});
}

// Label values of anim.v1.StatusCode 0..10 (types.proto), without the STATUS_ prefix.
constexpr std::array<std::string_view, kStatusCodeCount> kCodeLabels = {
    "OK",        "INVALID_ARGUMENT", "NOT_FOUND",          "FAILED_PRECONDITION",
    "DATA_LOSS", "UNIMPLEMENTED",    "RESOURCE_EXHAUSTED", "UNAUTHENTICATED",
    "INTERNAL",  "UNAVAILABLE",      "PERMISSION_DENIED"};

constexpr std::array<std::string_view, kHttpRefusalCount> kRefusalLabels = {
    "host", "address_limit", "connection_limit", "idle_evicted", "header_timeout", "reserve_only"};

}  // namespace

std::string_view http_refusal_label(HttpRefusal reason) {
  return kRefusalLabels[static_cast<size_t>(reason)];
}

void Counter::set_total(uint64_t total) {
  uint64_t cur = v_.load(std::memory_order_relaxed);
  while (cur < total && !v_.compare_exchange_weak(cur, total, std::memory_order_relaxed)) {
  }
}

void TickHistogram::observe(std::chrono::nanoseconds duration) {
  const int64_t ns = std::max<int64_t>(0, duration.count());
  // Eleven bounds: a short forward walk is cheaper than a binary search here.
  size_t slot = kBoundsNs.size();
  for (size_t i = 0; i < kBoundsNs.size(); ++i) {
    if (ns <= kBoundsNs[i]) {
      slot = i;
      break;
    }
  }
  per_bucket_[slot].fetch_add(1, std::memory_order_relaxed);
  sum_ns_.fetch_add(static_cast<uint64_t>(ns), std::memory_order_relaxed);
}

uint64_t TickHistogram::cumulative(size_t i) const {
  uint64_t total = 0;
  for (size_t k = 0; k <= i && k < per_bucket_.size(); ++k) {
    total += per_bucket_[k].load(std::memory_order_relaxed);
  }
  return total;
}

std::string_view status_code_label(int code) {
  if (code >= 0 && code < kStatusCodeCount) return kCodeLabels[static_cast<size_t>(code)];
  return "OTHER";
}

Metrics::Metrics(BuildInfo build) : build_(std::move(build)) {}

void Metrics::observe_tick(std::chrono::nanoseconds duration, std::chrono::nanoseconds period) {
  ticks.inc();
  tick_duration.observe(duration);
  if (duration > period) tick_overruns.inc();
}

// Slot 0 would be OK, which is never an error: it holds the OTHER series instead.
size_t Metrics::error_slot(int status_code) {
  if (status_code >= 1 && status_code < kStatusCodeCount) return static_cast<size_t>(status_code);
  return 0;
}

void Metrics::count_request_error(int status_code) {
  if (status_code == 0) return;
  request_errors_[error_slot(status_code)].inc();
}

void Metrics::set_request_errors_total(int status_code, uint64_t total) {
  if (status_code == 0) return;
  request_errors_[error_slot(status_code)].set_total(total);
}

uint64_t Metrics::request_errors(int status_code) const {
  if (status_code == 0) return 0;
  return request_errors_[error_slot(status_code)].value();
}

void Metrics::set_collector(std::function<void(Metrics&)> collector) {
  std::lock_guard lock(collector_mu_);
  collector_ = std::move(collector);
}

std::vector<prometheus::MetricFamily> Metrics::Collect() const {
  using prometheus::MetricType;
  std::vector<prometheus::MetricFamily> out;
  out.reserve(24);

  // Labels in this order (ClientMetric keeps them as given; the serializer escapes values).
  prometheus::ClientMetric build = value_metric(MetricType::Gauge, 1);
  build.label = {{"version", build_.version}, {"build_type", build_.build_type}};
  out.push_back(family("animd_build_info", "Always 1; the labels describe the running binary.",
                       MetricType::Gauge, {std::move(build)}));

  out.push_back(gauge("animd_characters", "Characters alive in the world.", characters));
  out.push_back(gauge("animd_sessions", "Open client connections.", sessions));
  out.push_back(gauge("animd_subscriptions", "Active stream subscriptions over all connections.",
                      subscriptions));
  out.push_back(gauge("animd_assets", "Assets loaded.", assets));

  out.push_back(counter("animd_ticks_total", "Ticks run since start.", ticks));

  prometheus::ClientMetric tick;
  // Count and +Inf come from one read of the buckets so they agree with each other.
  const uint64_t count = tick_duration.count();
  for (size_t i = 0; i < TickHistogram::kUpperBoundsSeconds.size(); ++i) {
    tick.histogram.bucket.push_back(
        {tick_duration.cumulative(i), TickHistogram::kUpperBoundsSeconds[i]});
  }
  tick.histogram.bucket.push_back({count, std::numeric_limits<double>::infinity()});
  tick.histogram.sample_count = count;
  tick.histogram.sample_sum = seconds_from_ns(tick_duration.sum_ns());
  out.push_back(family("animd_tick_duration_seconds",
                       "Time spent in one tick (commands, update, snapshot), in seconds.",
                       MetricType::Histogram, {std::move(tick)}));

  out.push_back(counter("animd_tick_overruns_total", "Ticks that took longer than the tick period.",
                        tick_overruns));
  out.push_back(counter("animd_ticks_skipped_total",
                        "Tick numbers that never ran (late ticks, clock steps).", ticks_skipped));
  out.push_back(gauge("animd_characters_reduced_rate",
                      "Characters updated less often than every tick (update-rate budget).",
                      reduced_rate_characters));
  out.push_back(gauge("animd_characters_detail_skipped",
                      "Characters evaluated with their detail joints at rest (joint LOD).",
                      detail_skipped_characters));
  out.push_back(counter("animd_character_updates_skipped_total",
                        "Character-ticks not evaluated, shown between two evaluations.",
                        character_updates_skipped));
  out.push_back(counter("animd_placement_misses_total",
                        "Character-ticks whose history record or morph weights did not fit the "
                        "room the tick placed for them, left out (0 unless a placement was stale).",
                        placement_misses));
  {
    prometheus::ClientMetric fwd =
        value_metric(MetricType::Counter, static_cast<double>(clock_steps_forward.value()));
    fwd.label = {{"direction", "forward"}};
    prometheus::ClientMetric back =
        value_metric(MetricType::Counter, static_cast<double>(clock_steps_back.value()));
    back.label = {{"direction", "backward"}};
    out.push_back(family("animd_clock_steps_total",
                         "Wall-clock steps seen between two ticks, by direction.",
                         MetricType::Counter, {std::move(fwd), std::move(back)}));
  }
  {
    prometheus::ClientMetric ok =
        value_metric(MetricType::Counter, static_cast<double>(migrations_committed.value()));
    ok.label = {{"outcome", "committed"}};
    prometheus::ClientMetric failed =
        value_metric(MetricType::Counter, static_cast<double>(migrations_failed.value()));
    failed.label = {{"outcome", "failed"}};
    out.push_back(family("animd_migrations_total",
                         "Migrations to other daemons that ended, by outcome.", MetricType::Counter,
                         {std::move(ok), std::move(failed)}));
    prometheus::ClientMetric out_n =
        value_metric(MetricType::Counter, static_cast<double>(characters_migrated_out.value()));
    out_n.label = {{"direction", "out"}};
    prometheus::ClientMetric in_n =
        value_metric(MetricType::Counter, static_cast<double>(characters_migrated_in.value()));
    in_n.label = {{"direction", "in"}};
    out.push_back(family("animd_characters_migrated_total",
                         "Characters moved between daemons by migrate, by direction.",
                         MetricType::Counter, {std::move(out_n), std::move(in_n)}));
  }
  out.push_back(counter("animd_state_saves_total",
                        "Saves of the characters' state written durably (--state-dir).",
                        state_saves));
  out.push_back(counter("animd_state_save_failures_total",
                        "Saves of the characters' state that failed; the previous one stays.",
                        state_save_failures));
  out.push_back(gauge("animd_state_save_bytes", "The last state save's payload, in bytes.",
                      state_save_bytes));
  out.push_back(family(
      "animd_state_save_seconds",
      "The last state save's time to serialize and write durably, in seconds.", MetricType::Gauge,
      {value_metric(MetricType::Gauge, static_cast<double>(state_save_us.value()) * 1e-6)}));
  {
    const std::pair<const char*, const Gauge*> stores[] = {
        {"history", &memory_history_bytes},
        {"snapshots", &memory_snapshot_bytes},
        {"quantized_frames", &memory_quant_frame_bytes},
        {"stream_queues", &memory_stream_bytes},
        {"request_bodies", &memory_request_bytes}};
    std::vector<prometheus::ClientMetric> held;
    for (const auto& [store, g] : stores) {
      prometheus::ClientMetric m = value_metric(MetricType::Gauge, static_cast<double>(g->value()));
      m.label = {{"store", store}};
      held.push_back(std::move(m));
    }
    out.push_back(family("animd_memory_bytes",
                         "Bytes held by the daemon's large stores, by store (the characters "
                         "themselves and the assets not included).",
                         MetricType::Gauge, std::move(held)));
  }
  out.push_back(counter("animd_bytes_in_total", "Bytes read from client connections.", bytes_in));
  out.push_back(
      counter("animd_bytes_out_total", "Bytes written to client connections.", bytes_out));
  out.push_back(counter("animd_stream_frames_sent_total", "Stream frames queued to subscribers.",
                        stream_frames_sent));
  out.push_back(counter("animd_stream_frames_dropped_total",
                        "Stream frames dropped because a subscriber read too slowly.",
                        stream_frames_dropped));
  out.push_back(
      counter("animd_requests_total", "Requests handled, whatever their status.", requests));
  out.push_back(counter("animd_events_fired_total",
                        "Animation events crossed by characters' playheads.", events_fired));
  out.push_back(counter("animd_events_overflowed_total",
                        "Animation events beyond a character's limit of 32 per tick (lost).",
                        events_overflowed));
  out.push_back(
      counter("animd_events_sent_total", "Animation events put in stream frames.", events_sent));
  out.push_back(counter("animd_events_dropped_total",
                        "Animation events a subscription could not keep for its next frame.",
                        events_dropped));

  std::vector<prometheus::ClientMetric> errors;
  // Codes 1..10 in order, then OTHER (slot 0).
  for (int code = 1; code <= kStatusCodeCount; ++code) {
    const size_t slot = code < kStatusCodeCount ? static_cast<size_t>(code) : 0;
    prometheus::ClientMetric m =
        value_metric(MetricType::Counter, static_cast<double>(request_errors_[slot].value()));
    m.label = {{"code", std::string(code < kStatusCodeCount ? status_code_label(code) : "OTHER")}};
    errors.push_back(std::move(m));
  }
  out.push_back(family("animd_request_errors_total",
                       "Requests answered with a non-OK status, by status code.",
                       MetricType::Counter, std::move(errors)));

  std::vector<prometheus::ClientMetric> refusals;
  for (int r = 0; r < kHttpRefusalCount; ++r) {
    prometheus::ClientMetric m = value_metric(
        MetricType::Counter, static_cast<double>(http_refusals_[static_cast<size_t>(r)].value()));
    m.label = {{"reason", std::string(kRefusalLabels[static_cast<size_t>(r)])}};
    refusals.push_back(std::move(m));
  }
  out.push_back(family("animd_http_refusals_total",
                       "Requests and connections the HTTP port refused or closed unserved, "
                       "by reason.",
                       MetricType::Counter, std::move(refusals)));
  return out;
}

std::string Metrics::render() {
  {
    std::lock_guard lock(collector_mu_);
    if (collector_) collector_(*this);
  }
  return prometheus::TextSerializer().Serialize(Collect());
}

}  // namespace animops
