#pragma once
// Where a reply to a client request goes: implemented by Session (tests and the fuzz target
// record or count them). Kept apart from command.h so that the World's interface does not
// pull in the wire protocol.

#include <cstddef>
#include <cstdint>

#include "anim/v1/envelope.pb.h"

namespace animd {

class ReplySink {
 public:
  virtual ~ReplySink() = default;
  // Called on the tick, loader or network thread; must not block (the session posts the
  // reply to its own strand). `seq`: the session's number for the request, so replies leave
  // in request order. `drawn`: bytes the producer already drew on the daemon's outbound
  // budget for this reply (the sink gives them back once the reply is written or dropped).
  virtual void deliver(uint64_t seq, anim::v1::Reply reply, size_t drawn = 0) = 0;
};

}  // namespace animd
