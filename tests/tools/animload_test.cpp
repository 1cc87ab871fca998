// animload against a real animd: a short run with --json-out, and its usage errors.
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "animclient/client.h"
#include "daemon_process.h"
#include "run_process.h"
#include "tool_paths.h"

namespace animload_test {

using animtest::ProcessResult;
using nlohmann::json;

json read_json(const std::filesystem::path& path) {
  std::ifstream file(path);
  json j;
  file >> j;
  return j;
}

TEST(Animload, ShortRunReportsFramesLatencyAndNoErrors) {
  animtest::DaemonProcess daemon;
  ASSERT_TRUE(daemon.start()) << daemon.error() << daemon.log_tail();
  const auto out = daemon.temp_dir() / "load.json";
  // High per-character rates so that every command kind is sent in a short run.
  const ProcessResult r = animtest::run_process({animtest::animload_binary(),
                                                 "--port",
                                                 std::to_string(daemon.port()),
                                                 "--connections",
                                                 "2",
                                                 "--characters-per-connection",
                                                 "5",
                                                 "--duration",
                                                 "1.5",
                                                 "--play-rate",
                                                 "2",
                                                 "--crossfade-rate",
                                                 "2",
                                                 "--additive-rate",
                                                 "2",
                                                 "--ik-rate",
                                                 "2",
                                                 "--quiet",
                                                 "--json-out",
                                                 out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err << daemon.log_tail();
  EXPECT_NE(r.out.find("2 connections x 5 characters"), std::string::npos) << r.out;

  const json j = read_json(out);
  EXPECT_EQ(j["config"]["connections"], 2);
  EXPECT_EQ(j["config"]["characters_per_connection"], 5);
  EXPECT_EQ(j["characters"]["spawned"], 10);
  EXPECT_EQ(j["characters"]["despawned"], 10);
  EXPECT_EQ(j["errors"]["total"], 0) << j["errors"].dump();
  EXPECT_GT(j["elapsed_s"].get<double>(), 0.0);

  const json& c = j["commands"];
  EXPECT_GT(c["sent"].get<uint64_t>(), 0u);
  EXPECT_EQ(c["ok"].get<uint64_t>(), c["sent"].get<uint64_t>());  // every command answered OK
  for (const char* type : {"play", "crossfade", "additive_add", "ik_set"})
    EXPECT_TRUE(c["by_type"].contains(type)) << type << " missing: " << c["by_type"].dump();
  EXPECT_EQ(c["reply_latency_ms"]["count"].get<uint64_t>(), c["sent"].get<uint64_t>());
  EXPECT_LE(c["reply_latency_ms"]["p50"].get<double>(), c["reply_latency_ms"]["p99"].get<double>());
  EXPECT_LE(c["reply_latency_ms"]["p99"].get<double>(), c["reply_latency_ms"]["max"].get<double>());

  const json& s = j["stream"];
  EXPECT_GT(s["frames"].get<uint64_t>(), 0u);
  // Each subscriber sees its own 5 characters in every frame.
  EXPECT_EQ(s["character_frames"].get<uint64_t>(), 5 * s["frames"].get<uint64_t>());
  // A float palette is 22 joints x 12 floats x 4 bytes = 1056 bytes, plus framing and root.
  EXPECT_GT(s["bytes_per_character_frame"].get<double>(), 1056.0);
  EXPECT_EQ(s["tick_to_client_ms"]["count"].get<uint64_t>(), s["frames"].get<uint64_t>());
  EXPECT_GE(s["tick_to_client_ms"]["p50"].get<double>(), 0.0);
  EXPECT_EQ(s["dropped_locally"], 0);
  EXPECT_TRUE(s.contains("dropped_by_server"));
  EXPECT_GE(s["last_tick"].get<uint64_t>(), s["first_tick"].get<uint64_t>());
  ASSERT_TRUE(j["server"].is_object());
  EXPECT_DOUBLE_EQ(j["server"]["tick_rate_hz"].get<double>(), 60.0);

  // Everything it spawned is gone again.
  animclient::ClientOptions options;
  options.port = daemon.port();
  auto client = animclient::Client::connect(options);
  ASSERT_TRUE(client.ok()) << client.error().to_string();
  auto stats = client.value()->stats();
  ASSERT_TRUE(stats.ok()) << stats.error().to_string();
  EXPECT_EQ(stats->characters(), 0u);
  client.value().reset();
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

// 1 connection x 4 characters, compact stream, every character crossfaded every 0.5 s for
// 1.5 s, plus `extra` arguments: the JSON summary.
json run_compact(animtest::DaemonProcess& daemon, const std::vector<std::string>& extra) {
  const auto out = daemon.temp_dir() / "compact.json";
  std::vector<std::string> args = {animtest::animload_binary(),
                                   "--port",
                                   std::to_string(daemon.port()),
                                   "--connections",
                                   "1",
                                   "--characters-per-connection",
                                   "4",
                                   "--duration",
                                   "1.5",
                                   "--play-rate",
                                   "0",
                                   "--crossfade-rate",
                                   "0",
                                   "--additive-rate",
                                   "0",
                                   "--ik-rate",
                                   "0",
                                   "--cycle-every",
                                   "0.5",
                                   "--encoding",
                                   "compact",
                                   "--quiet",
                                   "--json-out",
                                   out.string()};
  args.insert(args.end(), extra.begin(), extra.end());
  const ProcessResult r = animtest::run_process(args);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err << daemon.log_tail();
  if (r.exit_code != 0) return json::object();
  return read_json(out);
}

void expect_compact_stream(const json& j) {
  EXPECT_EQ(j["config"]["encoding"], "compact");
  EXPECT_EQ(j["errors"]["total"], 0) << j["errors"].dump();
  const json& s = j["stream"];
  EXPECT_GT(s["frames"].get<uint64_t>(), 0u);
  EXPECT_EQ(s["character_frames"].get<uint64_t>(), 4 * s["frames"].get<uint64_t>());
  // Wire bytes, not the decoded palettes (which would be over 1,056 bytes a character).
  EXPECT_GT(s["bytes_per_character_frame"].get<double>(), 5.0);
  EXPECT_LT(s["bytes_per_character_frame"].get<double>(), 100.0);
}

TEST(Animload, CompactEncodingCountsWireBytesAndCyclesClips) {
  animtest::DaemonProcess daemon;
  ASSERT_TRUE(daemon.start()) << daemon.error() << daemon.log_tail();
  const json j = run_compact(daemon, {});
  ASSERT_FALSE(j.empty());
  expect_compact_stream(j);
  EXPECT_EQ(j["config"]["skip_decode"], false);
  // The cycle crossfades every character every 0.5 s: 2 rounds of 4 in 1.5 s (or 3).
  const uint64_t fades = j["commands"]["by_type"]["crossfade"].get<uint64_t>();
  EXPECT_GE(fades, 8u) << j["commands"].dump();
  EXPECT_LE(fades, 12u) << j["commands"].dump();
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

// --skip-decode: the same frames and wire bytes are counted, without the client's decoding.
TEST(Animload, SkipDecodeCountsTheSameCompactStream) {
  animtest::DaemonProcess daemon;
  ASSERT_TRUE(daemon.start()) << daemon.error() << daemon.log_tail();
  const json j = run_compact(daemon, {"--skip-decode"});
  ASSERT_FALSE(j.empty());
  expect_compact_stream(j);
  EXPECT_EQ(j["config"]["skip_decode"], true);
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

TEST(Animload, RegionSubscribersEachReceiveAboutTheirShareOfTheGrid) {
  // 4 x 25 characters on a 10 x 10 grid; 4 subscribers, each a region around about 10 of
  // them (one per quarter of the grid), instead of their own 25.
  animtest::DaemonProcess daemon;
  ASSERT_TRUE(daemon.start()) << daemon.error() << daemon.log_tail();
  const auto out = daemon.temp_dir() / "region.json";
  const ProcessResult r = animtest::run_process(
      {animtest::animload_binary(), "--port", std::to_string(daemon.port()), "--connections", "4",
       "--characters-per-connection", "25", "--region-characters", "10", "--encoding", "compact",
       "--duration", "1", "--quiet", "--json-out", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err << daemon.log_tail();
  const json j = read_json(out);
  EXPECT_EQ(j["errors"]["total"], 0) << j["errors"].dump();
  const json& s = j["stream"];
  ASSERT_GT(s["frames"].get<uint64_t>(), 0u);
  const double per_frame = static_cast<double>(s["character_frames"].get<uint64_t>()) /
                           static_cast<double>(s["frames"].get<uint64_t>());
  EXPECT_GE(per_frame, 5.0) << s.dump();
  EXPECT_LE(per_frame, 16.0) << s.dump();
  // And the flag excludes --subscribe-all.
  const ProcessResult both = animtest::run_process(
      {animtest::animload_binary(), "--region-characters", "10", "--subscribe-all"});
  EXPECT_EQ(both.exit_code, 2) << both.err;
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

TEST(Animload, TicksModeStopsByItself) {
  animtest::DaemonProcess daemon;
  ASSERT_TRUE(daemon.start()) << daemon.error() << daemon.log_tail();
  const auto out = daemon.temp_dir() / "ticks.json";
  const ProcessResult r =
      animtest::run_process({animtest::animload_binary(), "--port", std::to_string(daemon.port()),
                             "--connections", "1", "--characters-per-connection", "2", "--ticks",
                             "20", "--subscribers", "0", "--quiet", "--json-out", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const json j = read_json(out);
  EXPECT_EQ(j["config"]["ticks"], 20);
  EXPECT_EQ(j["stream"]["frames"], 0);  // nobody subscribed
  EXPECT_EQ(j["characters"]["despawned"], 2);
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

TEST(Animload, UsageErrorsExitWith2) {
  const std::vector<std::vector<std::string>> cases = {
      {"--connections", "abc"}, {"--play-rate", "nan"},   {"--duration", "-1"},
      {"--frobnicate"},         {"--ik-solver", "magic"}, {"--duration", "1", "--ticks", "5"}};
  for (const auto& args : cases) {
    std::vector<std::string> argv = {animtest::animload_binary()};
    argv.insert(argv.end(), args.begin(), args.end());
    const ProcessResult r = animtest::run_process(argv);
    EXPECT_EQ(r.exit_code, 2) << args.front() << ": " << r.err;
    EXPECT_NE(r.err.find("animload: "), std::string::npos) << r.err;
  }
}

TEST(Animload, UnknownAssetIsAUsageErrorNamingTheKnownOnes) {
  animtest::DaemonProcess daemon;
  ASSERT_TRUE(daemon.start()) << daemon.error() << daemon.log_tail();
  const ProcessResult r =
      animtest::run_process({animtest::animload_binary(), "--port", std::to_string(daemon.port()),
                             "--assets", "builtin,NoSuchThing", "--duration", "0.5", "--quiet"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown asset 'NoSuchThing'; the daemon has: builtin"), std::string::npos)
      << r.err;
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

}  // namespace animload_test
