#pragma once
// The hostile side: --hostile raw TCP connections driven by one thread with poll(), each
// misbehaving in the way of its Kind (options.h), reopened when the server closes them
// (unless --no-reconnect), until stop() is called.
//
// What each kind sends, exactly:
//   garbage            1 KiB of random bytes every 200 ms; replies read and discarded
//   huge_header        a 4-byte header announcing 64 MiB (even slots of the kind) or
//                      0xFFFFFFFF (odd slots), 1 KiB of random body, then 1 KiB a second
//   slowloris          a valid stats request frame, one byte every --slowloris-interval s,
//                      then the next one; replies read and discarded
//   subscribe_no_read  one subscribe{all_characters} frame; the socket is never read again
//   query_flood        query_pose / stats / list_characters frames, pipelined in batches of
//                      32 whenever the socket takes them; replies read and discarded
//   oversized_upload   a load_asset upload of --upload-bytes (glTF magic + zeros) at full
//                      speed, again --upload-interval s after it was sent; replies discarded
//   handshake_stall    5 bytes (a TLS handshake record header announcing 512 bytes), then
//                      nothing: a TLS handshake (or, on a plain daemon, a frame) that stalls
//
// With --tls every kind but handshake_stall completes a TLS handshake first (the server's
// certificate is not checked) and then sends the same bytes inside TLS.
//
// A connection counts as closed by the server when a read returns end-of-file or an error,
// a write fails (EPIPE, ECONNRESET), or poll() reports POLLRDHUP/POLLHUP/POLLERR.

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "options.h"

namespace animhostile {

class TlsClientContext;  // tls_socket.h

struct CloseEvent {
  Kind kind = Kind::kGarbage;
  int slot = 0;
  double at_s = 0;        // seconds since the attack started
  double lifetime_s = 0;  // seconds the connection was open
  std::string how;        // "eof", "reset", "hup", "send: Broken pipe", ...
};

struct KindStats {
  uint64_t connections = 0;     // slots of this kind
  uint64_t opened = 0;          // connects that succeeded (reconnects included)
  uint64_t tls_handshakes = 0;  // --tls: handshakes completed (the kind acts after one)
  uint64_t connect_failed = 0;  // refused or not accepted within 5 s
  uint64_t closed_by_server = 0;
  uint64_t open_at_end = 0;  // still open when the attack stopped (closed by us)
  uint64_t bytes_sent = 0;
  uint64_t bytes_received = 0;
  double first_close_s = -1;        // seconds since start of the first close by the server
  std::vector<double> lifetimes_s;  // of the connections the server closed
};

struct HostileResult {
  std::array<KindStats, kKindCount> kinds{};
  std::vector<CloseEvent> closes;  // the first kMaxCloseEvents, in order
  uint64_t closes_not_listed = 0;
  uint64_t connects = 0;
  static constexpr size_t kMaxCloseEvents = 2000;
};

class HostileLoad {
 public:
  // `query_character_id`: the character the query flood asks query_pose about.
  HostileLoad(const Options& options, uint32_t query_character_id);

  HostileLoad(const HostileLoad&) = delete;
  HostileLoad& operator=(const HostileLoad&) = delete;
  ~HostileLoad();

  // Resolves the daemon address. False with `error` set when it does not resolve.
  bool resolve(std::string& error);
  // With --tls: makes the TLS context the hostile connections share. False with `error` set.
  bool setup_tls(std::string& error);

  // Runs the attack on the calling thread until `stop` becomes true (checked at least every
  // 50 ms), then closes every socket. `start` is time zero of the report.
  HostileResult run(const std::atomic<bool>& stop, std::chrono::steady_clock::time_point start);

 private:
  const Options& options_;
  uint32_t query_character_id_;
  std::vector<unsigned char> address_;  // sockaddr bytes
  std::unique_ptr<TlsClientContext> tls_;
};

}  // namespace animhostile
