#pragma once
// animhostile's report: the figures of one run, as text and as JSON.

#include <ostream>

#include <nlohmann/json.hpp>

#include "daemon_probe.h"
#include "good_clients.h"
#include "hostile.h"
#include "options.h"

namespace animhostile {

struct Report {
  double duration_s = 0;  // the attack phase, measured
  GoodResult good;
  HostileResult hostile;
  ProbeResult daemon;
  // Pass: every good reply arrived and the daemon answered a fresh stats request afterwards.
  bool passed() const { return good.lost() == 0 && daemon.daemon_alive_after; }
};

// The q-quantile (0..1, nearest rank) of `values` (sorted in place); 0 when empty.
double percentile(std::vector<double>& values, double q);

void print_text(const Options& options, Report& report, std::ostream& out);
nlohmann::json to_json(const Options& options, Report& report);

}  // namespace animhostile
