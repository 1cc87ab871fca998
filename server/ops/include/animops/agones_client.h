#pragma once
// AgonesClient: tells the Agones SDK sidecar (its local HTTP REST API) about this game
// server's life cycle, for running one animd per match in an Agones Fleet.
//
//   POST /ready     once start-up is done (retried every health interval until accepted:
//                   the sidecar may start after us)
//   POST /health    every health interval while the tick loop runs (the `healthy` callback);
//                   a stalled daemon stops pinging and Agones marks the GameServer Unhealthy
//   POST /shutdown  on exit (blocking, bounded by the request timeout)
//   PATCH /v1beta1/counters/{counter}  with AgonesOptions::counter set: the capacity the
//                   daemon has, as an Agones Counter (Counters and Lists, the sidecar's Beta
//                   REST API), body {"count":"N","capacity":"M"} (int64 as JSON strings, as
//                   protobuf's JSON mapping writes them). Sent once /ready is accepted, then
//                   whenever the count differs from the last one the sidecar accepted, at most
//                   once per counter interval. The Counter must be declared in the GameServer
//                   spec (the sidecar refuses unknown names).
//
// Every request has a timeout; failures are logged (rate-limited) and never fatal. The
// periodic calls run asynchronously on the io_context the daemon gives it, never on the
// caller's thread; the counter updates run beside the health pings, so a sidecar that
// refuses them does not delay a ping.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include <boost/asio/io_context.hpp>

namespace animops {

// "http://127.0.0.1:<AGONES_SDK_HTTP_PORT or 9358>".
std::string default_agones_sdk_url();

struct AgonesOptions {
  std::string sdk_url;  // "http://host:port"; empty = default_agones_sdk_url()
  std::chrono::milliseconds health_interval{5000};  // between /ready tries and /health pings; > 0
  std::chrono::milliseconds request_timeout{2000};  // per step: connect, write, read

  // Capacity reporting through an Agones Counter. `counter` is the Counter's name (see
  // valid_agones_counter_name); empty = no counter updates (the other fields are ignored).
  std::string counter;
  // Reported as the Counter's capacity (e.g. --max-characters); >= 0.
  int64_t counter_capacity = 0;
  // The count to report (e.g. live characters). Called on the io_context's threads, once per
  // counter interval: it must be thread-safe and cheap (an atomic load). The value sent is
  // clamped into [0, counter_capacity] (the sidecar refuses a count above the capacity).
  // Required when `counter` is set.
  std::function<int64_t()> counter_count;
  // At most one counter update per interval (from the end of one request to the start of
  // the next); a count that has not changed since the last accepted update is not sent. > 0.
  std::chrono::milliseconds counter_interval{1000};
};

// Whether `name` can be an Agones Counter name here: 1 to 63 characters, each a letter, a
// digit, '.', '_' or '-' (so that it goes into the URL path as it is).
bool valid_agones_counter_name(std::string_view name);

// Why `options` cannot be used (bad URL, interval <= 0, bad counter name, negative capacity,
// counter without counter_count), or an empty string. An empty sdk_url counts as
// default_agones_sdk_url().
std::string check_agones_options(const AgonesOptions& options);

// Where an http:// URL points. Returns false (and leaves the outputs alone) when `url` is
// not "http://HOST:PORT" with an optional trailing "/" (HOST may be [v6]).
bool parse_http_url(const std::string& url, std::string* host, uint16_t* port);

class AgonesClient {
 public:
  // `healthy` is polled before each /health (e.g. Health::ticking); may be empty = always.
  AgonesClient(boost::asio::io_context& io, AgonesOptions options,
               std::function<bool()> healthy = {});
  ~AgonesClient();  // stops the timer; does not send /shutdown (call shutdown())
  AgonesClient(const AgonesClient&) = delete;
  AgonesClient& operator=(const AgonesClient&) = delete;

  // Validates the options (check_agones_options) and starts the ready/health loop (and,
  // once /ready is accepted, the counter updates). Returns an empty string on success, else
  // why not; the daemon then runs without Agones.
  std::string start();
  // Stops the loop without sending anything (the drain: the io_context must run dry).
  // Non-blocking; any thread.
  void stop();
  // Stops the loop and sends POST /shutdown, waiting for it (at most the request timeout
  // for connect, and again for write and read). Returns whether the sidecar accepted it.
  bool shutdown();

  // What happened so far (for tests and the log).
  bool ready_acknowledged() const;
  uint64_t health_pings_acknowledged() const;
  uint64_t failures() const;  // /ready and /health requests that failed
  uint64_t counter_updates_acknowledged() const;
  uint64_t counter_failures() const;  // counter updates that failed (each is retried)

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace animops
