#pragma once
// What network and loader threads hand to the tick thread, and how replies get back.

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "anim/asset.h"
#include "anim/v1/envelope.pb.h"

namespace animd {

// Where a reply goes: implemented by Session. deliver() is called on the tick thread and
// must not block (the session posts the reply to its own strand).
class ReplySink {
 public:
  virtual ~ReplySink() = default;
  virtual void deliver(uint64_t seq, anim::v1::Reply reply) = 0;
};

struct Command {
  enum class Kind : uint8_t {
    kRequest,        // a client request for the World (request is set)
    kInsertAsset,    // a loaded asset to add (asset is set); replies like load_asset
    kSessionClosed,  // a connection went away: drop its subscriptions and counters
  };
  Kind kind = Kind::kRequest;
  uint64_t session_id = 0;
  // Who sent it, for character ownership: the token's owner key (auth.h), or 0 when the
  // daemon has no tokens (the World then uses the connection as the owner).
  uint64_t owner = 0;
  uint64_t seq = 0;                    // the session's reply sequence number
  std::shared_ptr<ReplySink> sink;     // null for kSessionClosed and internal requests
  anim::v1::Request request;           // kRequest; also carries request_id for kInsertAsset
  uint32_t subscription_id = 0;        // subscribe: the id the session assigned
  std::shared_ptr<anim::Asset> asset;  // kInsertAsset
};

// Multi-producer, single-consumer. push() holds the lock only to append; the tick thread
// swaps the whole batch out at the start of a tick.
class CommandQueue {
 public:
  // Client requests: refused (false, nothing queued) when `limit` commands already wait.
  bool push(Command command, size_t limit) {
    std::lock_guard lock(mutex_);
    if (pending_.size() >= limit) return false;
    pending_.push_back(std::move(command));
    return true;
  }
  // The daemon's own commands (session closed, loaded assets, ended subscriptions): always
  // queued; their number is bounded by the connections and loads in progress.
  void push(Command command) {
    std::lock_guard lock(mutex_);
    pending_.push_back(std::move(command));
  }
  // Moves every queued command into `out` (cleared first) and keeps out's old buffer for
  // reuse, so steady-state ticks do not allocate here.
  void take(std::vector<Command>& out) {
    out.clear();
    std::lock_guard lock(mutex_);
    std::swap(out, pending_);
  }

 private:
  std::mutex mutex_;
  std::vector<Command> pending_;
};

}  // namespace animd
