#pragma once
// ConnectionTable: which connections the HTTP endpoint (http_endpoint.h) holds, and who makes
// room for whom. Bookkeeping only (no sockets); thread-safe.
//
// A connection is *waiting* from its accept, and again after each response it sends, until
// it has sent a complete request header; then it is *busy* until its response is written.
// Idle sockets, slowloris headers and stalled TLS handshakes are all waiting.
//
// When a connection from `address` is accepted:
//   1. Within both limits (`total` connections, `per_address` of that address): admitted.
//   2. Else the waiting connection that has waited longest is evicted and the new one takes
//      its slot: one of `address`'s own when that address is at its limit, else any.
//   3. Else (every slot busy with a request) it is admitted to the operations reserve:
//      `reserve` more slots, whatever the address, that serve one body-less request each, for
//      /healthz, /readyz or /metrics (so a reserve slot is busy only while its answer is
//      written). A full reserve evicts its longest-waiting connection likewise; one whose
//      connections are all busy refuses the new one.
// Silent connections thus delay nobody (each new connection pushes the oldest silent one
// out), and probes are answered while every slot is busy: what holds a slot for long is a
// request in progress, which the endpoint's read timeout bounds.

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

namespace animops {

class ConnectionTable {
 public:
  struct Limits {
    size_t total = 64;        // normal slots (>= 1)
    size_t per_address = 16;  // normal slots one address may hold (>= 1)
    size_t reserve = 4;       // operations-only slots beyond `total` (0 = none)
  };
  enum class Verdict {
    kAdmitted,        // a normal slot
    kReserve,         // an operations-only slot
    kRefusedAddress,  // refused: `address` at its limit, nothing to evict, reserve busy
    kRefusedTotal,    // refused: every slot and the reserve busy
  };
  struct Admission {
    Verdict verdict = Verdict::kRefusedTotal;
    uint64_t id = 0;       // the new connection's id (admitted or reserve); ids start at 1
    uint64_t evicted = 0;  // a connection to close now to make room for it; 0 = none
    std::string evicted_address;
    bool refused() const {
      return verdict == Verdict::kRefusedAddress || verdict == Verdict::kRefusedTotal;
    }
  };

  explicit ConnectionTable(Limits limits) : limits_(limits) {}

  Admission admit(const std::string& address);
  // Connection `id` sent a complete request header: busy until end_request(). False when
  // it is no longer in the table (evicted): close it without answering.
  bool begin_request(uint64_t id);
  // Its response is written; it waits for another request (keep-alive).
  void end_request(uint64_t id);
  // Closed (no-op for an evicted connection, already gone).
  void remove(uint64_t id);

  // Connections held in normal slots, in reserve slots, and in normal slots by `address`.
  size_t size() const;
  size_t reserve_size() const;
  size_t count(const std::string& address) const;
  // Connections busy with a request (normal and reserve).
  size_t busy() const;

 private:
  struct Entry {
    std::string address;
    bool reserve = false;
    bool waiting = true;
    uint64_t since = 0;  // order of the last change to waiting (smaller = waited longer)
  };
  // The longest-waiting entry of the given kind (and of `address` unless empty); 0 = none.
  uint64_t oldest_waiting(bool reserve, const std::string* address) const;
  void erase_locked(uint64_t id);

  const Limits limits_;
  mutable std::mutex mu_;
  std::unordered_map<uint64_t, Entry> entries_;
  std::unordered_map<std::string, size_t> per_address_;  // normal slots by address
  size_t normal_ = 0;
  size_t reserved_ = 0;
  uint64_t next_id_ = 1;
  uint64_t next_since_ = 1;
};

}  // namespace animops
