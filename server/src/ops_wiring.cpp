#include "ops_wiring.h"

namespace animd {

void wire_ops(animops::Ops& ops, Metrics& metrics) {
  metrics.on_tick = [&ops](std::chrono::nanoseconds took, std::chrono::nanoseconds period) {
    ops.on_tick(took, period);
  };
  metrics.on_draining = [&ops] { ops.stopping(); };
  // Ticks and overruns are counted by ops.on_tick itself (with the histogram); the rest is
  // the daemon's, copied in at scrape time.
  ops.metrics().set_collector([&metrics](animops::Metrics& m) {
    m.characters.set(metrics.characters.load(std::memory_order_relaxed));
    m.sessions.set(metrics.sessions.load(std::memory_order_relaxed));
    m.subscriptions.set(metrics.subscriptions.load(std::memory_order_relaxed));
    m.assets.set(metrics.assets.load(std::memory_order_relaxed));
    m.bytes_in.set_total(metrics.bytes_in.load(std::memory_order_relaxed));
    m.bytes_out.set_total(metrics.bytes_out.load(std::memory_order_relaxed));
    m.stream_frames_sent.set_total(metrics.stream_frames_sent.load(std::memory_order_relaxed));
    m.stream_frames_dropped.set_total(
        metrics.stream_frames_dropped.load(std::memory_order_relaxed));
    m.requests.set_total(metrics.requests.load(std::memory_order_relaxed));
    for (size_t code = 1; code < metrics.request_errors_by_code.size(); ++code) {
      m.set_request_errors_total(static_cast<int>(code), metrics.request_errors_by_code[code].load(
                                                             std::memory_order_relaxed));
    }
  });
}

}  // namespace animd
