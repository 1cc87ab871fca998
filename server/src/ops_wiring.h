#pragma once
// ops: connects the daemon to server/ops (libanimops: Prometheus /metrics, /healthz,
// /readyz, systemd notify + watchdog, Agones). Kept out of main.cpp so that the daemon's own
// files only carry the two hooks in Metrics and one call here.

#include "animops/ops.h"
#include "metrics.h"

namespace animd {

// Points metrics.on_tick and metrics.on_draining at `ops`, and makes every /metrics scrape
// first copy the daemon's counters and gauges into ops.metrics(). Call before Server::run();
// `ops` and `metrics` must outlive the run.
void wire_ops(animops::Ops& ops, Metrics& metrics);

}  // namespace animd
