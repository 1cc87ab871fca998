#include "animops/metrics.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

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

// Label values may hold any UTF-8; the exposition format escapes \, " and newline.
std::string escape_label(std::string_view v) {
  std::string out;
  out.reserve(v.size());
  for (char c : v) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

// Shortest round-trippable-enough form of a double: %.9g ("0.003", "0.0167", "1e-05").
std::string format_double(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

void header(std::string& out, std::string_view name, std::string_view type, std::string_view help) {
  out += "# HELP ";
  out += name;
  out += ' ';
  out += help;
  out += "\n# TYPE ";
  out += name;
  out += ' ';
  out += type;
  out += '\n';
}

void sample(std::string& out, std::string_view name, std::string_view labels,
            const std::string& value) {
  out += name;
  out += labels;
  out += ' ';
  out += value;
  out += '\n';
}

void gauge(std::string& out, std::string_view name, std::string_view help, const Gauge& g) {
  header(out, name, "gauge", help);
  sample(out, name, "", std::to_string(g.value()));
}

void counter(std::string& out, std::string_view name, std::string_view help, const Counter& c) {
  header(out, name, "counter", help);
  sample(out, name, "", std::to_string(c.value()));
}

// Label values of anim.v1.StatusCode 0..10 (types.proto), without the STATUS_ prefix.
constexpr std::array<std::string_view, kStatusCodeCount> kCodeLabels = {
    "OK",        "INVALID_ARGUMENT", "NOT_FOUND",          "FAILED_PRECONDITION",
    "DATA_LOSS", "UNIMPLEMENTED",    "RESOURCE_EXHAUSTED", "UNAUTHENTICATED",
    "INTERNAL",  "UNAVAILABLE",      "PERMISSION_DENIED"};

}  // namespace

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

std::string Metrics::render() {
  {
    std::lock_guard lock(collector_mu_);
    if (collector_) collector_(*this);
  }
  std::string out;
  out.reserve(4096);

  header(out, "animd_build_info", "gauge", "Always 1; the labels describe the running binary.");
  sample(out, "animd_build_info",
         "{version=\"" + escape_label(build_.version) + "\",build_type=\"" +
             escape_label(build_.build_type) + "\"}",
         "1");

  gauge(out, "animd_characters", "Characters alive in the world.", characters);
  gauge(out, "animd_sessions", "Open client connections.", sessions);
  gauge(out, "animd_subscriptions", "Active stream subscriptions over all connections.",
        subscriptions);
  gauge(out, "animd_assets", "Assets loaded.", assets);

  counter(out, "animd_ticks_total", "Ticks run since start.", ticks);

  header(out, "animd_tick_duration_seconds", "histogram",
         "Time spent in one tick (commands, update, snapshot), in seconds.");
  for (size_t i = 0; i < TickHistogram::kUpperBoundsSeconds.size(); ++i) {
    sample(out, "animd_tick_duration_seconds_bucket",
           "{le=\"" + format_double(TickHistogram::kUpperBoundsSeconds[i]) + "\"}",
           std::to_string(tick_duration.cumulative(i)));
  }
  // Count and +Inf come from one read of the buckets so they agree with each other.
  const uint64_t count = tick_duration.count();
  sample(out, "animd_tick_duration_seconds_bucket", "{le=\"+Inf\"}", std::to_string(count));
  sample(out, "animd_tick_duration_seconds_sum", "", format_double(tick_duration.sum_seconds()));
  sample(out, "animd_tick_duration_seconds_count", "", std::to_string(count));

  counter(out, "animd_tick_overruns_total", "Ticks that took longer than the tick period.",
          tick_overruns);
  counter(out, "animd_bytes_in_total", "Bytes read from client connections.", bytes_in);
  counter(out, "animd_bytes_out_total", "Bytes written to client connections.", bytes_out);
  counter(out, "animd_stream_frames_sent_total", "Stream frames queued to subscribers.",
          stream_frames_sent);
  counter(out, "animd_stream_frames_dropped_total",
          "Stream frames dropped because a subscriber read too slowly.", stream_frames_dropped);
  counter(out, "animd_requests_total", "Requests handled, whatever their status.", requests);

  header(out, "animd_request_errors_total", "counter",
         "Requests answered with a non-OK status, by status code.");
  for (int code = 1; code < kStatusCodeCount; ++code) {
    sample(out, "animd_request_errors_total",
           "{code=\"" + std::string(status_code_label(code)) + "\"}",
           std::to_string(request_errors_[static_cast<size_t>(code)].value()));
  }
  sample(out, "animd_request_errors_total", "{code=\"OTHER\"}",
         std::to_string(request_errors_[0].value()));
  return out;
}

}  // namespace animops
