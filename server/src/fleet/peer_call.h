#pragma once
// One request to another animd and its reply, over a connection of its own: how a daemon
// speaks to its peers (migrate pushes characters to another daemon over the same protocol a
// game server uses). Blocking, for a thread of its own: never call it on a network or tick
// thread.
//
// The connection sends the peer's control token with every request and, with TLS, verifies
// the peer's certificate against `ca_file` (empty: the system's trusted CAs) and the host
// name; a client certificate is offered when one is given (peers that require one).

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "anim/status.h"
#include "anim/v1/envelope.pb.h"

namespace animd {

// Where a peer daemon listens and how to reach it.
struct PeerAddress {
  std::string host;  // a name or an address literal
  uint16_t port = 0;
  std::string token;  // its control token; empty when it has no tokens
  bool tls = false;
  std::string ca_file;                            // PEM; empty: the system's default CAs
  std::string client_cert_file, client_key_file;  // PEM; empty: no client certificate

  std::string describe() const { return host + ":" + std::to_string(port); }
};

// A connection to a peer, open for a sequence of requests. Every operation has a deadline;
// past it the connection is closed and the call fails UNAVAILABLE. Not thread-safe.
class PeerConnection {
 public:
  // Connects (and with TLS, handshakes) by `deadline`. UNAVAILABLE naming the peer and the
  // step on failure.
  static anim::Expected<std::unique_ptr<PeerConnection>> open(
      const PeerAddress& peer, std::chrono::steady_clock::time_point deadline);
  ~PeerConnection();

  // Sends `request` (its request_id and auth_token set here) and waits for the reply with that
  // id, skipping stream frames, by `deadline`. A frame of more than `max_reply_bytes` closes
  // the connection (RESOURCE_EXHAUSTED). The reply's own status is the caller's to read.
  anim::Expected<anim::v1::Reply> call(anim::v1::Request request,
                                       std::chrono::steady_clock::time_point deadline,
                                       size_t max_reply_bytes = 64u << 20);

 private:
  struct Impl;
  explicit PeerConnection(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace animd
