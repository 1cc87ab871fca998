#include "report.h"

#include <algorithm>
#include <cmath>
#include <iomanip>

namespace animhostile {

double percentile(std::vector<double>& values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const double rank = std::ceil(q * static_cast<double>(values.size()));
  const size_t i = std::min(values.size() - 1, static_cast<size_t>(std::max(rank, 1.0)) - 1);
  return values[i];
}

namespace {

double mib(uint64_t kib) {
  return static_cast<double>(kib) / 1024.0;
}

}  // namespace

nlohmann::json to_json(const Options& o, Report& r) {
  using nlohmann::json;
  json j;
  j["duration_s"] = r.duration_s;
  j["passed"] = r.passed();
  j["good"] = {
      {"clients", o.good},
      {"requests_sent", r.good.requests_sent},
      {"replies_received", r.good.replies_received},
      {"replies_lost", r.good.lost()},
      {"latency_ms",
       {{"p50", percentile(r.good.latencies_ms, 0.50)},
        {"p99", percentile(r.good.latencies_ms, 0.99)},
        {"max", r.good.latencies_ms.empty() ? 0.0 : r.good.latencies_ms.back()}}},
      {"errors", r.good.errors},
  };
  json kinds = json::object();
  for (int k = 0; k < kKindCount; ++k) {
    KindStats& s = r.hostile.kinds[k];
    if (s.connections == 0) continue;
    kinds[kind_name(static_cast<Kind>(k))] = {
        {"connections", s.connections},
        {"opened", s.opened},
        {"tls_handshakes", s.tls_handshakes},
        {"connect_failed", s.connect_failed},
        {"closed_by_server", s.closed_by_server},
        {"open_at_end", s.open_at_end},
        {"bytes_sent", s.bytes_sent},
        {"bytes_received", s.bytes_received},
        {"first_close_s", s.first_close_s},
        {"lifetime_s_p50", percentile(s.lifetimes_s, 0.5)},
        {"lifetime_s_max", s.lifetimes_s.empty() ? 0.0 : s.lifetimes_s.back()},
    };
  }
  json closes = json::array();
  for (const auto& c : r.hostile.closes)
    closes.push_back({{"kind", kind_name(c.kind)},
                      {"slot", c.slot},
                      {"at_s", c.at_s},
                      {"lifetime_s", c.lifetime_s},
                      {"how", c.how}});
  j["hostile"] = {{"connections", o.hostile},
                  {"connects", r.hostile.connects},
                  {"kinds", kinds},
                  {"closes", closes},
                  {"closes_not_listed", r.hostile.closes_not_listed}};
  json rss = json::array();
  for (const auto& [t, kib] : r.daemon.rss_timeline_kib) rss.push_back({t, kib});
  j["daemon"] = {
      {"alive_after", r.daemon.daemon_alive_after},
      {"after_error", r.daemon.after_error},
      {"tick_p99_us_max", r.daemon.tick_p99_us_max},
      {"tick_p99_us_end", r.daemon.tick_p99_us_end},
      {"tick_max_us_max", r.daemon.tick_max_us_max},
      {"tick_overruns", r.daemon.overruns_end - r.daemon.overruns_start},
      {"sessions_max", r.daemon.sessions_max},
      {"stats_answered", r.daemon.stats_answered},
      {"stats_failed", r.daemon.stats_failed},
  };
  if (r.daemon.rss_sampled) {
    j["daemon"]["rss_kib"] = {{"start", r.daemon.rss_start_kib},
                              {"peak", r.daemon.rss_peak_kib},
                              {"end", r.daemon.rss_end_kib},
                              {"timeline", rss}};
  }
  return j;
}

void print_text(const Options& o, Report& r, std::ostream& out) {
  std::vector<double>& lat = r.good.latencies_ms;
  const double p50 = percentile(lat, 0.50), p99 = percentile(lat, 0.99);
  const double max = lat.empty() ? 0.0 : lat.back();
  out << std::fixed << std::setprecision(2);
  out << "animhostile: " << o.hostile << " hostile connections, " << o.good << " good clients, "
      << r.duration_s << " s\n";
  out << "good clients: " << r.good.requests_sent << " requests, " << r.good.replies_received
      << " replies, lost " << r.good.lost() << "\n";
  out << "  reply latency ms: p50 " << p50 << "  p99 " << p99 << "  max " << max << "\n";
  if (!r.good.errors.empty()) {
    out << "  errors:";
    for (const auto& [k, v] : r.good.errors) out << " " << k << "=" << v;
    out << "\n";
  }
  out << "daemon: tick p99 us max " << r.daemon.tick_p99_us_max << " (after "
      << r.daemon.tick_p99_us_end << "), tick max us " << r.daemon.tick_max_us_max << ", overruns +"
      << (r.daemon.overruns_end - r.daemon.overruns_start) << ", sessions max "
      << r.daemon.sessions_max << ", stats answered " << r.daemon.stats_answered << " failed "
      << r.daemon.stats_failed << "\n";
  if (r.daemon.rss_sampled)
    out << "  RSS MiB: start " << mib(r.daemon.rss_start_kib) << "  peak "
        << mib(r.daemon.rss_peak_kib) << "  end " << mib(r.daemon.rss_end_kib) << "\n";
  out << "  answers after the attack: "
      << (r.daemon.daemon_alive_after ? "yes" : "NO (" + r.daemon.after_error + ")") << "\n";
  out << "hostile (" << r.hostile.connects << " connects):\n";
  out << "  kind               conns  opened  tls_done  closed_by_server  first_close_s"
         "  lifetime_p50_s  open_at_end  MiB_sent\n";
  for (int k = 0; k < kKindCount; ++k) {
    KindStats& s = r.hostile.kinds[k];
    if (s.connections == 0) continue;
    out << "  " << std::left << std::setw(18) << kind_name(static_cast<Kind>(k)) << std::right
        << std::setw(6) << s.connections << std::setw(8) << s.opened << std::setw(10)
        << s.tls_handshakes << std::setw(18) << s.closed_by_server << std::setw(15)
        << s.first_close_s << std::setw(16) << percentile(s.lifetimes_s, 0.5) << std::setw(13)
        << s.open_at_end << std::setw(10) << static_cast<double>(s.bytes_sent) / (1024.0 * 1024.0)
        << "\n";
  }
  out << "result: " << (r.passed() ? "PASS" : "FAIL")
      << " (every good reply arrived and the daemon answers afterwards)\n";
}

}  // namespace animhostile
