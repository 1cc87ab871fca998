#include "run.h"

#include <atomic>
#include <csignal>

#include "animclient/client.h"
#include "args.h"
#include "format.h"

namespace animctl {

namespace {

std::atomic<bool> g_interrupted{false};

extern "C" void on_sigint(int) {
  g_interrupted = true;
}

int transport_failure(const std::string& command, const animclient::Error& error,
                      std::ostream& err) {
  err << "animctl: " << command << ": " << error.to_string();
  if (error.kind == animclient::Error::Kind::kConnect)
    err << (error.message.rfind("TLS", 0) == 0 ? " (see --tls/--ca/--cert/--key/--server-name)"
                                               : " (is animd running? see --host/--port)");
  err << "\n";
  return kExitTransport;
}

// False, after saying so on `err`, when `reply` is not OK.
bool answered_ok(const std::string& command, const anim::v1::Reply& reply, std::ostream& err) {
  const anim::v1::Status& status = reply.status();
  if (status.code() == anim::v1::STATUS_OK) return true;
  err << "animctl: " << command << " failed: " << animclient::status_code_name(status.code())
      << ": " << status.message() << "\n";
  return false;
}

// Prints frames until `frames` were printed (0 = until Ctrl-C), the connection closes, or no
// frame arrives within `idle_timeout`.
int watch(animclient::Client& client, const Plan& plan, bool json,
          std::chrono::milliseconds idle_timeout, std::ostream& out, std::ostream& err) {
  std::signal(SIGINT, on_sigint);
  uint64_t printed = 0;
  auto idle = std::chrono::milliseconds{0};
  // Bytes per frame: the stream's wire bytes over the frames received since the subscribe
  // (what the frames cost before the library decoded them).
  const animclient::ClientCounters at_start = client.counters();
  constexpr auto kPoll = std::chrono::milliseconds{100};  // how often Ctrl-C is noticed
  while (!g_interrupted && (plan.watch_frames == 0 || printed < plan.watch_frames)) {
    auto frame = client.next_frame(kPoll);
    if (!frame) {
      if (!client.connected()) {
        err << "animctl: watch: the daemon closed the connection\n";
        return kExitTransport;
      }
      idle += kPoll;
      if (idle >= idle_timeout) {
        err << "animctl: watch: no frame within " << idle_timeout.count() << " ms\n";
        return kExitTransport;
      }
      continue;
    }
    idle = std::chrono::milliseconds{0};
    const animclient::ClientCounters now = client.counters();
    const uint64_t frames = now.frames_received - at_start.frames_received;
    const double bytes_per_frame =
        frames ? static_cast<double>(now.stream_bytes_received - at_start.stream_bytes_received) /
                     static_cast<double>(frames)
               : 0.0;
    if (json) {
      out << to_json(*frame) << "\n";
    } else {
      print_frame_summary(*frame, plan.watch_joint, out, bytes_per_frame);
    }
    out.flush();
    ++printed;
  }
  return kExitOk;
}

}  // namespace

int execute(const Plan& plan, const GlobalOptions& g, std::ostream& out, std::ostream& err) {
  animclient::ClientOptions options;
  try {
    options.host = g.host;
    const uint64_t port = parse_u64("--port", g.port);
    if (port == 0 || port > 65535) throw UsageError("--port: '" + g.port + "' is not 1 .. 65535");
    options.port = static_cast<uint16_t>(port);
    const uint64_t timeout = parse_u64("--timeout", g.timeout_ms);
    if (timeout == 0 || timeout > 3'600'000) throw UsageError("--timeout: must be 1 .. 3600000 ms");
    options.connect_timeout = options.request_timeout = std::chrono::milliseconds(timeout);
  } catch (const UsageError& e) {
    err << "animctl: " << e.what() << "\n";
    return kExitUsage;
  }
  options.auth_token = g.token;
  options.tls = g.tls;
  options.ca_file = g.ca_file;
  options.cert_file = g.cert_file;
  options.key_file = g.key_file;
  options.server_name = g.server_name;

  auto connected = animclient::Client::connect(options);
  if (!connected) return transport_failure(plan.command, connected.error(), err);
  animclient::Client& client = *connected.value();

  auto reply = client.call(plan.request);
  if (!reply) return transport_failure(plan.command, reply.error(), err);
  if (!answered_ok(plan.command, *reply, err)) return kExitServerError;

  if (plan.watch) {
    if (!g.json)
      out << "subscription " << reply->subscribe().subscription_id() << " (tick " << reply->tick()
          << ")\n";
    return watch(client, plan, g.json, options.request_timeout, out, err);
  }
  if (g.json) {
    if (plan.print_json)
      plan.print_json(*reply, out);
    else
      out << to_json(*reply) << "\n";
  } else if (plan.print_human) {
    plan.print_human(*reply, out);
  } else {
    out << "ok: " << plan.command << " (tick " << reply->tick() << ")\n";
  }
  for (const PlanStep& step : plan.then) {
    out.flush();
    auto next = client.call(step.request);
    if (!next) return transport_failure(step.command, next.error(), err);
    if (!answered_ok(step.command, *next, err)) return kExitServerError;
    if (g.json)
      out << to_json(*next) << "\n";
    else if (step.print_human)
      step.print_human(*next, out);
    else
      out << "ok: " << step.command << " (tick " << next->tick() << ")\n";
  }
  return kExitOk;
}

}  // namespace animctl
