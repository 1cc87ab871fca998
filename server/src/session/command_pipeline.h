#pragma once
// CommandPipeline: where one connection's admitted requests go when the session cannot answer
// them itself: the tick's command queue, or the loader threads (load_asset). It keeps the
// connection's share: at most --max-pending-commands-per-connection requests in flight (the
// session stops reading at that many), each refused request answered with the limit it hit,
// and tells the World once about each owner key the connection uses (orphaned characters).
//
// Threads: every call on the session's strand; a load's job runs on a loader thread and
// touches only the daemon (SessionHost) and the result sink it was given.

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "anim/status.h"
#include "assets/load_request.h"
#include "base/byte_budget.h"
#include "session/session_host.h"
#include "world/command.h"
#include "world/world_requests.h"

namespace animd {

class CommandPipeline {
 public:
  // Who sent a request and how its answer is addressed.
  struct Origin {
    uint64_t seq = 0;         // the request's sequence number on this connection
    uint64_t request_id = 0;  // the client's id, echoed in the reply
    uint64_t owner = 0;       // the token's owner key (0: no tokens)
    uint64_t at_tick = 0;     // the tick it is to take effect at (0: the next one)
  };
  // A load_asset, ready for the loader threads.
  struct Load {
    LoadRequest request;
    Origin origin;
    // Without tokens every connection takes its own turns: the owner, or one per connection.
    uint64_t turn_key = 0;
    // The upload's bytes on the inbound budget, held until the load is over.
    BudgetHold upload_draw;
  };

  // `host` outlives the pipeline.
  CommandPipeline(SessionHost& host, uint64_t session_id) : host_(host), session_id_(session_id) {}
  CommandPipeline(const CommandPipeline&) = delete;
  CommandPipeline& operator=(const CommandPipeline&) = delete;

  // Requests in flight (handed to the tick or the loader, not answered yet).
  uint32_t pending() const { return pending_; }
  // At --max-pending-commands-per-connection: the session reads no further request.
  bool full() const;
  // OK, or RESOURCE_EXHAUSTED naming the per-connection limit when full().
  anim::Status room() const;
  // An answer to a request in flight came back.
  void answered() {
    if (pending_ > 0) --pending_;
  }

  // Queues `request` for the tick, answered to `sink`. Refused (nothing queued) with
  // RESOURCE_EXHAUSTED when the connection's or the daemon's queue is full.
  anim::Status to_tick(WorldRequest request, const Origin& origin,
                       std::shared_ptr<ResultSink> sink);
  // Posts `load` to the loader threads; its answer (or the asset, through the tick) goes to
  // `sink`, then `finished` runs on the loader thread.
  void to_loader(Load load, std::shared_ptr<ResultSink> sink, std::function<void()> finished);
  // A request answered off the tick used `owner`: the World hears of it once (a reply-less
  // command), so that it counts this connection as that owner's.
  void note_owner(uint64_t owner);

 private:
  bool noted(uint64_t owner) const;

  SessionHost& host_;
  const uint64_t session_id_;
  uint32_t pending_ = 0;
  std::vector<uint64_t> noted_owners_;  // owner keys the World has seen this connection use
};

}  // namespace animd
