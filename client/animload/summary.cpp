#include "summary.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

namespace animload {

Distribution distribution_of(std::vector<double> samples) {
  Distribution d;
  d.count = samples.size();
  if (samples.empty()) return d;
  std::sort(samples.begin(), samples.end());
  // Nearest rank: the smallest sample with at least p% of the samples at or below it.
  auto rank = [&](double p) {
    const auto n = static_cast<double>(samples.size());
    size_t index = static_cast<size_t>(std::ceil(p * n));
    index = std::clamp<size_t>(index, 1, samples.size());
    return samples[index - 1];
  };
  d.p50 = rank(0.50);
  d.p99 = rank(0.99);
  d.max = samples.back();
  d.mean =
      std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(samples.size());
  return d;
}

namespace {

nlohmann::json to_json(const Distribution& d) {
  return {{"count", d.count}, {"p50", d.p50}, {"p99", d.p99}, {"max", d.max}, {"mean", d.mean}};
}

double per_second(double n, double seconds) {
  return seconds > 0 ? n / seconds : 0.0;
}

}  // namespace

nlohmann::json to_json(const Summary& s) {
  const Options& o = s.options;
  nlohmann::json j;
  j["config"] = {{"host", o.host},
                 {"port", o.port},
                 {"connections", o.connections},
                 {"characters_per_connection", o.characters_per_connection},
                 {"assets", o.assets},
                 {"rates_per_character_per_s",
                  {{"play", o.play_rate},
                   {"crossfade", o.crossfade_rate},
                   {"additive", o.additive_rate},
                   {"ik", o.ik_rate}}},
                 {"subscribers", o.subscribers},
                 {"subscribe_all", o.subscribe_all},
                 {"region_characters", o.region_characters},
                 {"rate_divisor", o.rate_divisor},
                 {"encoding", o.encoding},
                 {"skip_decode", o.skip_decode},
                 {"cycle_every_s", o.cycle_every_s},
                 {"cycle_spread", o.cycle_spread},
                 {"duration_s", o.ticks > 0 ? 0.0 : o.duration_s},
                 {"ticks", o.ticks},
                 {"max_inflight", o.max_inflight},
                 {"seed", o.seed}};
  j["elapsed_s"] = s.elapsed_s;
  j["characters"] = {{"spawned", s.characters_spawned}, {"despawned", s.characters_despawned}};
  j["commands"] = {{"sent", s.commands_sent},
                   {"ok", s.commands_ok},
                   {"skipped", s.commands_skipped},
                   {"per_s", per_second(static_cast<double>(s.commands_sent), s.elapsed_s)},
                   {"by_type", s.commands_by_type},
                   {"reply_latency_ms", to_json(s.reply_latency_ms)},
                   {"query_latency_ms", to_json(s.query_latency_ms)}};
  j["stream"] = {
      {"frames", s.frames},
      {"frames_per_s", per_second(static_cast<double>(s.frames), s.elapsed_s)},
      {"character_frames", s.character_frames},
      {"characters_per_s", per_second(static_cast<double>(s.character_frames), s.elapsed_s)},
      {"bytes", s.stream_bytes},
      {"bytes_per_s", per_second(static_cast<double>(s.stream_bytes), s.elapsed_s)},
      {"bytes_per_character_frame", s.character_frames ? static_cast<double>(s.stream_bytes) /
                                                             static_cast<double>(s.character_frames)
                                                       : 0.0},
      {"tick_to_client_ms", to_json(s.tick_to_client_ms)},
      {"dropped_by_server", s.dropped_by_server},
      {"dropped_locally", s.dropped_locally},
      {"first_tick", s.first_tick},
      {"last_tick", s.last_tick}};
  j["errors"] = {
      {"total", s.errors}, {"by_kind", s.errors_by_kind}, {"examples", s.error_examples}};
  j["server"] = s.have_server_stats ? s.server_stats : nlohmann::json(nullptr);
  return j;
}

void print_summary(const Summary& s, std::ostream& out) {
  const Options& o = s.options;
  char line[512];
  std::string assets;
  for (const auto& a : o.assets) assets += (assets.empty() ? "" : ",") + a;
  const std::string watching =
      o.subscribe_all ? "all characters"
      : o.region_characters > 0
          ? "regions of ~" + std::to_string(o.region_characters) + " characters"
          : "own characters";
  std::snprintf(
      line, sizeof line,
      "animload: %d connections x %d characters (%s), %.2f s measured, %d subscribers (%s)\n",
      o.connections, o.characters_per_connection, assets.c_str(), s.elapsed_s, o.subscribers,
      watching.c_str());
  out << line;
  std::snprintf(line, sizeof line, "characters  %llu spawned, %llu despawned\n",
                static_cast<unsigned long long>(s.characters_spawned),
                static_cast<unsigned long long>(s.characters_despawned));
  out << line;
  const auto& r = s.reply_latency_ms;
  std::snprintf(line, sizeof line,
                "commands    %llu sent (%.1f/s), %llu ok, %llu skipped; reply latency p50 %.2f ms, "
                "p99 %.2f ms, max %.2f ms\n",
                static_cast<unsigned long long>(s.commands_sent),
                per_second(static_cast<double>(s.commands_sent), s.elapsed_s),
                static_cast<unsigned long long>(s.commands_ok),
                static_cast<unsigned long long>(s.commands_skipped), r.p50, r.p99, r.max);
  out << line;
  if (s.query_latency_ms.count > 0) {
    const auto& q = s.query_latency_ms;
    std::snprintf(line, sizeof line,
                  "query_pose  %llu round trips: p50 %.3f ms, p99 %.3f ms, max %.3f ms\n",
                  static_cast<unsigned long long>(q.count), q.p50, q.p99, q.max);
    out << line;
  }
  if (!s.commands_by_type.empty()) {
    out << "           ";
    for (const auto& [type, n] : s.commands_by_type) out << " " << type << " " << n;
    out << "\n";
  }
  const double cf = static_cast<double>(s.character_frames);
  std::snprintf(line, sizeof line,
                "stream      %llu frames (%.1f/s), %llu character-frames (%.0f/s), %.1f bytes per "
                "character-frame, %.2f MB/s\n",
                static_cast<unsigned long long>(s.frames),
                per_second(static_cast<double>(s.frames), s.elapsed_s),
                static_cast<unsigned long long>(s.character_frames), per_second(cf, s.elapsed_s),
                cf > 0 ? static_cast<double>(s.stream_bytes) / cf : 0.0,
                per_second(static_cast<double>(s.stream_bytes), s.elapsed_s) / 1e6);
  out << line;
  const auto& t = s.tick_to_client_ms;
  std::snprintf(
      line, sizeof line,
      "            tick-to-client latency p50 %.2f ms, p99 %.2f ms, max %.2f ms; dropped %llu by "
      "the server, %llu locally; ticks %llu..%llu\n",
      t.p50, t.p99, t.max, static_cast<unsigned long long>(s.dropped_by_server),
      static_cast<unsigned long long>(s.dropped_locally),
      static_cast<unsigned long long>(s.first_tick), static_cast<unsigned long long>(s.last_tick));
  out << line;
  out << "errors      " << s.errors << "\n";
  for (const auto& [kind, n] : s.errors_by_kind) {
    out << "            " << kind << ": " << n;
    if (auto it = s.error_examples.find(kind); it != s.error_examples.end())
      out << " (e.g. " << it->second << ")";
    out << "\n";
  }
  if (s.have_server_stats) {
    const auto& st = s.server_stats;
    std::snprintf(line, sizeof line,
                  "server      %s characters at %s Hz; tick time p50 %s us, p99 %s us, max %s us; "
                  "overruns %s\n",
                  st.value("characters", nlohmann::json(0)).dump().c_str(),
                  st.value("tick_rate_hz", nlohmann::json(0)).dump().c_str(),
                  st.value("tick_time_p50_us", nlohmann::json(0)).dump().c_str(),
                  st.value("tick_time_p99_us", nlohmann::json(0)).dump().c_str(),
                  st.value("tick_time_max_us", nlohmann::json(0)).dump().c_str(),
                  st.value("tick_overruns", nlohmann::json(0)).dump().c_str());
    out << line;
  }
}

}  // namespace animload
