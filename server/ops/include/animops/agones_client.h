#pragma once
// AgonesClient: tells the Agones SDK sidecar (its local HTTP REST API) about this game
// server's life cycle, for running one animd per match in an Agones Fleet.
//
//   POST /ready     once start-up is done (retried every health interval until accepted:
//                   the sidecar may start after us)
//   POST /health    every health interval while the tick loop runs (the `healthy` callback);
//                   a stalled daemon stops pinging and Agones marks the GameServer Unhealthy
//   POST /shutdown  on exit (blocking, bounded by the request timeout)
//
// Every request has a timeout; failures are logged (rate-limited) and never fatal. The
// periodic calls run asynchronously on the io_context the daemon gives it.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include <boost/asio/io_context.hpp>

namespace animops {

// "http://127.0.0.1:<AGONES_SDK_HTTP_PORT or 9358>".
std::string default_agones_sdk_url();

struct AgonesOptions {
  std::string sdk_url;  // "http://host:port"; empty = default_agones_sdk_url()
  std::chrono::milliseconds health_interval{5000};
  std::chrono::milliseconds request_timeout{2000};
};

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

  // Validates the URL and starts the ready/health loop. Returns an empty string on success,
  // else why not (a bad URL); the daemon then runs without Agones.
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
  uint64_t failures() const;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace animops
