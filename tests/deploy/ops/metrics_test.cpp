// Metrics: the Prometheus text exposition, checked character by character against
// hand-written expectations.

#include "animops/metrics.h"

#include <chrono>
#include <string>

#include <gtest/gtest.h>

namespace metrics_test {

using animops::BuildInfo;
using animops::Metrics;
using std::chrono::microseconds;
using std::chrono::milliseconds;
using std::chrono::nanoseconds;

// The exposition of a Metrics in which the histogram buckets hold `b[0..11]` cumulative
// counts (11 bounds then +Inf), with `sum` as the _sum text and the other values given.
struct Values {
  std::string build = R"(version="1.2.3",build_type="Release")";
  long characters = 0, sessions = 0, subscriptions = 0, assets = 0;
  unsigned long ticks = 0;
  unsigned long b[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  std::string sum = "0";
  unsigned long skipped = 0, steps_forward = 0, steps_back = 0;
  long reduced_rate = 0;
  long detail_skipped = 0;
  unsigned long updates_skipped = 0;
  unsigned long placement_misses = 0;
  unsigned long migrations_committed = 0, migrations_failed = 0, migrated_out = 0, migrated_in = 0;
  unsigned long overruns = 0, bytes_in = 0, bytes_out = 0, sent = 0, dropped = 0, requests = 0;
  unsigned long events_fired = 0, events_overflowed = 0, events_sent = 0, events_dropped = 0;
  unsigned long errors[11] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};  // 1..10 by code, [0] = OTHER
  unsigned long http_refusals[6] = {0, 0, 0, 0, 0, 0};           // by animops::HttpRefusal
  // history, snapshots, quantized frames, stream queues, request bodies
  long memory[5] = {0, 0, 0, 0, 0};
};

std::string expected(const Values& v) {
  auto n = [](auto x) { return std::to_string(x); };
  std::string s;
  s += "# HELP animd_build_info Always 1; the labels describe the running binary.\n";
  s += "# TYPE animd_build_info gauge\n";
  s += "animd_build_info{" + v.build + "} 1\n";
  s += "# HELP animd_characters Characters alive in the world.\n";
  s += "# TYPE animd_characters gauge\n";
  s += "animd_characters " + n(v.characters) + "\n";
  s += "# HELP animd_sessions Open client connections.\n";
  s += "# TYPE animd_sessions gauge\n";
  s += "animd_sessions " + n(v.sessions) + "\n";
  s += "# HELP animd_subscriptions Active stream subscriptions over all connections.\n";
  s += "# TYPE animd_subscriptions gauge\n";
  s += "animd_subscriptions " + n(v.subscriptions) + "\n";
  s += "# HELP animd_assets Assets loaded.\n";
  s += "# TYPE animd_assets gauge\n";
  s += "animd_assets " + n(v.assets) + "\n";
  s += "# HELP animd_ticks_total Ticks run since start.\n";
  s += "# TYPE animd_ticks_total counter\n";
  s += "animd_ticks_total " + n(v.ticks) + "\n";
  s += "# HELP animd_tick_duration_seconds Time spent in one tick (commands, update, snapshot), "
       "in seconds.\n";
  s += "# TYPE animd_tick_duration_seconds histogram\n";
  // prometheus-cpp's TextSerializer writes _count and _sum before the buckets (the format
  // leaves the order of a histogram's lines free).
  s += "animd_tick_duration_seconds_count " + n(v.b[11]) + "\n";
  s += "animd_tick_duration_seconds_sum " + v.sum + "\n";
  const char* les[12] = {"0.0005", "0.001",  "0.002",  "0.004", "0.006", "0.008",
                         "0.01",   "0.0125", "0.0167", "0.025", "0.05",  "+Inf"};
  for (int i = 0; i < 12; ++i) {
    s += std::string("animd_tick_duration_seconds_bucket{le=\"") + les[i] + "\"} " + n(v.b[i]) +
         "\n";
  }
  s += "# HELP animd_tick_overruns_total Ticks that took longer than the tick period.\n";
  s += "# TYPE animd_tick_overruns_total counter\n";
  s += "animd_tick_overruns_total " + n(v.overruns) + "\n";
  s += "# HELP animd_ticks_skipped_total Tick numbers that never ran (late ticks, clock steps).\n";
  s += "# TYPE animd_ticks_skipped_total counter\n";
  s += "animd_ticks_skipped_total " + n(v.skipped) + "\n";
  s += "# HELP animd_characters_reduced_rate Characters updated less often than every tick "
       "(update-rate budget).\n";
  s += "# TYPE animd_characters_reduced_rate gauge\n";
  s += "animd_characters_reduced_rate " + n(v.reduced_rate) + "\n";
  s += "# HELP animd_characters_detail_skipped Characters evaluated with their detail joints at "
       "rest (joint LOD).\n";
  s += "# TYPE animd_characters_detail_skipped gauge\n";
  s += "animd_characters_detail_skipped " + n(v.detail_skipped) + "\n";
  s += "# HELP animd_character_updates_skipped_total Character-ticks not evaluated, shown "
       "between two evaluations.\n";
  s += "# TYPE animd_character_updates_skipped_total counter\n";
  s += "animd_character_updates_skipped_total " + n(v.updates_skipped) + "\n";
  s += "# HELP animd_placement_misses_total Character-ticks whose history record or morph "
       "weights did not fit the room the tick placed for them, left out (0 unless a placement "
       "was stale).\n";
  s += "# TYPE animd_placement_misses_total counter\n";
  s += "animd_placement_misses_total " + n(v.placement_misses) + "\n";
  s += "# HELP animd_clock_steps_total Wall-clock steps seen between two ticks, by direction.\n";
  s += "# TYPE animd_clock_steps_total counter\n";
  s += "animd_clock_steps_total{direction=\"forward\"} " + n(v.steps_forward) + "\n";
  s += "animd_clock_steps_total{direction=\"backward\"} " + n(v.steps_back) + "\n";
  s += "# HELP animd_migrations_total Migrations to other daemons that ended, by outcome.\n";
  s += "# TYPE animd_migrations_total counter\n";
  s += "animd_migrations_total{outcome=\"committed\"} " + n(v.migrations_committed) + "\n";
  s += "animd_migrations_total{outcome=\"failed\"} " + n(v.migrations_failed) + "\n";
  s += "# HELP animd_characters_migrated_total Characters moved between daemons by migrate, by "
       "direction.\n";
  s += "# TYPE animd_characters_migrated_total counter\n";
  s += "animd_characters_migrated_total{direction=\"out\"} " + n(v.migrated_out) + "\n";
  s += "animd_characters_migrated_total{direction=\"in\"} " + n(v.migrated_in) + "\n";
  s += "# HELP animd_state_saves_total Saves of the characters' state written durably "
       "(--state-dir).\n";
  s += "# TYPE animd_state_saves_total counter\n";
  s += "animd_state_saves_total 0\n";
  s += "# HELP animd_state_save_failures_total Saves of the characters' state that failed; the "
       "previous one stays.\n";
  s += "# TYPE animd_state_save_failures_total counter\n";
  s += "animd_state_save_failures_total 0\n";
  s += "# HELP animd_state_save_bytes The last state save's payload, in bytes.\n";
  s += "# TYPE animd_state_save_bytes gauge\n";
  s += "animd_state_save_bytes 0\n";
  s += "# HELP animd_state_save_seconds The last state save's time to serialize and write "
       "durably, in seconds.\n";
  s += "# TYPE animd_state_save_seconds gauge\n";
  s += "animd_state_save_seconds 0\n";
  s += "# HELP animd_memory_bytes Bytes held by the daemon's large stores, by store (the "
       "characters themselves and the assets not included).\n";
  s += "# TYPE animd_memory_bytes gauge\n";
  s += "animd_memory_bytes{store=\"history\"} " + n(v.memory[0]) + "\n";
  s += "animd_memory_bytes{store=\"snapshots\"} " + n(v.memory[1]) + "\n";
  s += "animd_memory_bytes{store=\"quantized_frames\"} " + n(v.memory[2]) + "\n";
  s += "animd_memory_bytes{store=\"stream_queues\"} " + n(v.memory[3]) + "\n";
  s += "animd_memory_bytes{store=\"request_bodies\"} " + n(v.memory[4]) + "\n";
  s += "# HELP animd_bytes_in_total Bytes read from client connections.\n";
  s += "# TYPE animd_bytes_in_total counter\n";
  s += "animd_bytes_in_total " + n(v.bytes_in) + "\n";
  s += "# HELP animd_bytes_out_total Bytes written to client connections.\n";
  s += "# TYPE animd_bytes_out_total counter\n";
  s += "animd_bytes_out_total " + n(v.bytes_out) + "\n";
  s += "# HELP animd_stream_frames_sent_total Stream frames queued to subscribers.\n";
  s += "# TYPE animd_stream_frames_sent_total counter\n";
  s += "animd_stream_frames_sent_total " + n(v.sent) + "\n";
  s += "# HELP animd_stream_frames_dropped_total Stream frames dropped because a subscriber read "
       "too slowly.\n";
  s += "# TYPE animd_stream_frames_dropped_total counter\n";
  s += "animd_stream_frames_dropped_total " + n(v.dropped) + "\n";
  s += "# HELP animd_requests_total Requests handled, whatever their status.\n";
  s += "# TYPE animd_requests_total counter\n";
  s += "animd_requests_total " + n(v.requests) + "\n";
  s += "# HELP animd_events_fired_total Animation events crossed by characters' playheads.\n";
  s += "# TYPE animd_events_fired_total counter\n";
  s += "animd_events_fired_total " + n(v.events_fired) + "\n";
  s += "# HELP animd_events_overflowed_total Animation events beyond a character's limit of 32 "
       "per tick (lost).\n";
  s += "# TYPE animd_events_overflowed_total counter\n";
  s += "animd_events_overflowed_total " + n(v.events_overflowed) + "\n";
  s += "# HELP animd_events_sent_total Animation events put in stream frames.\n";
  s += "# TYPE animd_events_sent_total counter\n";
  s += "animd_events_sent_total " + n(v.events_sent) + "\n";
  s += "# HELP animd_events_dropped_total Animation events a subscription could not keep for "
       "its next frame.\n";
  s += "# TYPE animd_events_dropped_total counter\n";
  s += "animd_events_dropped_total " + n(v.events_dropped) + "\n";
  s += "# HELP animd_request_errors_total Requests answered with a non-OK status, by status "
       "code.\n";
  s += "# TYPE animd_request_errors_total counter\n";
  const char* codes[10] = {"INVALID_ARGUMENT", "NOT_FOUND",     "FAILED_PRECONDITION",
                           "DATA_LOSS",        "UNIMPLEMENTED", "RESOURCE_EXHAUSTED",
                           "UNAUTHENTICATED",  "INTERNAL",      "UNAVAILABLE",
                           "PERMISSION_DENIED"};
  for (int c = 1; c <= 10; ++c) {
    s += std::string("animd_request_errors_total{code=\"") + codes[c - 1] + "\"} " +
         n(v.errors[c]) + "\n";
  }
  s += "animd_request_errors_total{code=\"OTHER\"} " + n(v.errors[0]) + "\n";
  s += "# HELP animd_http_refusals_total Requests and connections the HTTP port refused or "
       "closed unserved, by reason.\n";
  s += "# TYPE animd_http_refusals_total counter\n";
  const char* reasons[6] = {"host",         "address_limit",  "connection_limit",
                            "idle_evicted", "header_timeout", "reserve_only"};
  for (int r = 0; r < 6; ++r) {
    s += std::string("animd_http_refusals_total{reason=\"") + reasons[r] + "\"} " +
         n(v.http_refusals[r]) + "\n";
  }
  return s;
}

TEST(Metrics, FreshRegistryRendersEveryMetricAtZero) {
  Metrics m(BuildInfo{"1.2.3", "Release"});
  EXPECT_EQ(m.render(), expected(Values{}));
}

TEST(Metrics, GaugesAndCountersRenderTheirValues) {
  Metrics m(BuildInfo{"1.2.3", "Release"});
  m.characters.set(12);
  m.characters.add(-2);
  m.sessions.set(3);
  m.subscriptions.set(4);
  m.assets.set(2);
  m.bytes_in.inc(1000);
  m.bytes_in.inc(24);
  m.bytes_out.inc(4096);
  m.stream_frames_sent.inc(7);
  m.stream_frames_dropped.inc();
  m.requests.inc(9);
  m.events_fired.inc(40);
  m.events_overflowed.inc(3);
  m.events_sent.inc(25);
  m.events_dropped.inc(2);
  m.count_request_error(2);   // NOT_FOUND
  m.count_request_error(2);   // NOT_FOUND
  m.count_request_error(6);   // RESOURCE_EXHAUSTED
  m.count_request_error(42);  // unknown code: OTHER
  m.count_request_error(0);   // OK is not an error: ignored
  m.count_http_refusal(animops::HttpRefusal::kHost);
  m.count_http_refusal(animops::HttpRefusal::kIdleEvicted);
  m.count_http_refusal(animops::HttpRefusal::kIdleEvicted);
  m.count_http_refusal(animops::HttpRefusal::kReserveOnly);
  m.memory_history_bytes.set(1048576);
  m.memory_snapshot_bytes.set(65536);
  m.memory_quant_frame_bytes.set(3000);
  m.memory_stream_bytes.set(512);
  m.memory_request_bytes.set(77);

  Values v;
  v.characters = 10;
  v.sessions = 3;
  v.subscriptions = 4;
  v.assets = 2;
  v.bytes_in = 1024;
  v.bytes_out = 4096;
  v.sent = 7;
  v.dropped = 1;
  v.requests = 9;
  v.events_fired = 40;
  v.events_overflowed = 3;
  v.events_sent = 25;
  v.events_dropped = 2;
  v.errors[2] = 2;
  v.errors[6] = 1;
  v.errors[0] = 1;
  v.http_refusals[0] = 1;
  v.http_refusals[3] = 2;
  v.http_refusals[5] = 1;
  v.memory[0] = 1048576;
  v.memory[1] = 65536;
  v.memory[2] = 3000;
  v.memory[3] = 512;
  v.memory[4] = 77;
  EXPECT_EQ(m.render(), expected(v));
  EXPECT_EQ(m.http_refusals(animops::HttpRefusal::kIdleEvicted), 2u);
  EXPECT_EQ(m.request_errors(2), 2u);
  EXPECT_EQ(m.request_errors(42), 1u);
  EXPECT_EQ(m.request_errors(0), 0u);
}

TEST(Metrics, TickHistogramBucketsAreCumulativeWithInclusiveUpperBounds) {
  Metrics m(BuildInfo{"1.2.3", "Release"});
  const nanoseconds period = microseconds(16667);
  m.observe_tick(microseconds(250), period);    // le 0.0005
  m.observe_tick(milliseconds(1), period);      // exactly 0.001: le 0.001 (inclusive)
  m.observe_tick(microseconds(1001), period);   // just above: le 0.002
  m.observe_tick(microseconds(5000), period);   // le 0.006
  m.observe_tick(microseconds(16700), period);  // exactly 0.0167, but > period: an overrun
  m.observe_tick(milliseconds(60), period);     // above every bound: only +Inf; an overrun
  m.observe_tick(nanoseconds(-5), period);      // clock oddity: counted as 0 s

  Values v;
  v.ticks = 7;
  v.overruns = 2;
  m.ticks_skipped.set_total(5);
  v.skipped = 5;
  m.reduced_rate_characters.set(300);
  v.reduced_rate = 300;
  m.detail_skipped_characters.set(120);
  v.detail_skipped = 120;
  m.character_updates_skipped.set_total(12345);
  v.updates_skipped = 12345;
  m.placement_misses.set_total(3);
  v.placement_misses = 3;
  m.clock_steps_forward.set_total(1);
  v.steps_forward = 1;
  //        .0005 .001 .002 .004 .006 .008 .01 .0125 .0167 .025 .05 +Inf
  const unsigned long b[12] = {2, 3, 4, 4, 5, 5, 5, 5, 6, 6, 6, 7};
  std::copy(std::begin(b), std::end(b), std::begin(v.b));
  // 0.00025 + 0.001 + 0.001001 + 0.005 + 0.0167 + 0.06 + 0 = 0.083951 s
  v.sum = "0.083951";
  EXPECT_EQ(m.render(), expected(v));
  EXPECT_EQ(m.tick_duration.count(), 7u);
}

TEST(Metrics, BuildInfoLabelsAreEscaped) {
  Metrics m(BuildInfo{"1.0 \"beta\"\\x", "Rel\nease"});
  Values v;
  v.build = R"(version="1.0 \"beta\"\\x",build_type="Rel\nease")";
  EXPECT_EQ(m.render(), expected(v));
}

TEST(Metrics, SetTotalMirrorsAnExternalCounterAndNeverGoesBackwards) {
  Metrics m(BuildInfo{"1.2.3", "Release"});
  m.requests.set_total(100);
  m.requests.set_total(40);  // would decrease: ignored
  EXPECT_EQ(m.requests.value(), 100u);
  m.set_request_errors_total(1, 5);
  m.set_request_errors_total(1, 3);
  EXPECT_EQ(m.request_errors(1), 5u);
}

TEST(Metrics, CollectorCopiesExternalValuesInBeforeEachRender) {
  Metrics m(BuildInfo{"1.2.3", "Release"});
  int calls = 0;
  m.set_collector([&calls](Metrics& self) {
    ++calls;
    self.characters.set(calls * 10);
    self.bytes_out.set_total(static_cast<uint64_t>(calls) * 100);
    self.set_request_errors_total(9, static_cast<uint64_t>(calls));
  });
  Values v;
  v.characters = 10;
  v.bytes_out = 100;
  v.errors[9] = 1;
  EXPECT_EQ(m.render(), expected(v));
  v.characters = 20;
  v.bytes_out = 200;
  v.errors[9] = 2;
  EXPECT_EQ(m.render(), expected(v));
  EXPECT_EQ(calls, 2);
}

TEST(Metrics, HttpRefusalLabels) {
  EXPECT_EQ(animops::http_refusal_label(animops::HttpRefusal::kHost), "host");
  EXPECT_EQ(animops::http_refusal_label(animops::HttpRefusal::kAddressLimit), "address_limit");
  EXPECT_EQ(animops::http_refusal_label(animops::HttpRefusal::kReserveOnly), "reserve_only");
}

TEST(Metrics, StatusCodeLabels) {
  EXPECT_EQ(animops::status_code_label(0), "OK");
  EXPECT_EQ(animops::status_code_label(1), "INVALID_ARGUMENT");
  EXPECT_EQ(animops::status_code_label(9), "UNAVAILABLE");
  EXPECT_EQ(animops::status_code_label(10), "PERMISSION_DENIED");
  EXPECT_EQ(animops::status_code_label(11), "OTHER");
  EXPECT_EQ(animops::status_code_label(-1), "OTHER");
}

}  // namespace metrics_test
