#pragma once
// Where the World's answer to a command goes: implemented by whoever sent it (a session turns
// it into its wire reply: protocol/reply_sink.h). The World never sees the wire.

#include <cstdint>

#include "anim/status.h"
#include "world/world_results.h"

namespace animd {

// What identifies an answer to its receiver.
struct ResultHeader {
  uint64_t seq = 0;         // the session's number for the request (replies leave in order)
  uint64_t request_id = 0;  // the client's id, echoed
  uint64_t tick = 0;        // the tick the answer describes; 0: none (the daemon stopping)
};

class ResultSink {
 public:
  virtual ~ResultSink() = default;
  // Called on the tick thread (or a loader thread); must not block.
  virtual void deliver_result(const ResultHeader& header,
                              const anim::Expected<WorldResult>& result) = 0;
};

}  // namespace animd
