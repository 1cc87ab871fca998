#pragma once
// What network and loader threads hand to the tick thread. Requests arrive already converted
// from the wire (request_convert.h): the World sees only its own request types.

#include <cstdint>
#include <iterator>
#include <memory>
#include <mutex>
#include <vector>

#include "anim/asset.h"
#include "assets/load_request.h"
#include "world/result_sink.h"
#include "world/world_requests.h"

namespace animd {

struct Command {
  enum class Kind : uint8_t {
    kRequest,      // a client request for the World (request is set)
    kInsertAsset,  // a loaded asset to add (asset is set); replies like load_asset
    // A new version of a loaded asset (load_asset.attach_to: clips appended) to put in place
    // of `replaces`, if that is still the current version; replies like load_asset.
    kReplaceAsset,
    kSessionClosed,  // a connection went away: drop its subscriptions and counters
  };
  Kind kind = Kind::kRequest;
  uint64_t session_id = 0;
  // Who sent it, for character ownership: the token's owner key (auth.h), or 0 when the
  // daemon has no tokens (the World then uses the connection as the owner).
  uint64_t owner = 0;
  uint64_t seq = 0;                  // the session's reply sequence number
  uint64_t request_id = 0;           // the client's id, echoed in the reply
  uint64_t at_tick = 0;              // kRequest: the tick it is to take effect at (0: the next one)
  std::shared_ptr<ResultSink> sink;  // null for kSessionClosed and internal requests
  WorldRequest request;              // kRequest
  std::shared_ptr<anim::Asset> asset;           // kInsertAsset, kReplaceAsset
  std::shared_ptr<const anim::Asset> replaces;  // kReplaceAsset: the version it extends
  bool asset_shared = false;  // kInsertAsset: load_asset.shared (any control client may use it)
  // kInsertAsset, kReplaceAsset: the load_asset request (its uploaded bytes included) the
  // asset was made from, kept only while the daemon journals its assets (--state-dir:
  // AssetChangeSink); null otherwise.
  std::shared_ptr<const LoadRequest> source;
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
  // Moves the oldest `max` queued commands (all when fewer) into `out` (cleared first); the
  // rest wait for the next tick, so one tick's command work is bounded. With everything
  // taken, out's old buffer is kept for reuse (steady-state ticks do not allocate here).
  void take(std::vector<Command>& out, size_t max = SIZE_MAX) {
    out.clear();
    std::lock_guard lock(mutex_);
    if (pending_.size() <= max) {
      std::swap(out, pending_);
      return;
    }
    out.assign(std::make_move_iterator(pending_.begin()),
               std::make_move_iterator(pending_.begin() + static_cast<std::ptrdiff_t>(max)));
    pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(max));
  }

 private:
  std::mutex mutex_;
  std::vector<Command> pending_;
};

}  // namespace animd
