#pragma once
// Where a wire reply to a client request goes: implemented by Session (tests and the fuzz
// targets record or count them). As a ResultSink it receives the World's answers and turns
// each into its reply on the caller's thread: converted (to_reply), request id and tick set,
// and a large one drawn on the outbound budget (reply_budget.h) while it is made.

#include <cstddef>
#include <cstdint>

#include "anim/v1/envelope.pb.h"
#include "base/byte_budget.h"
#include "world/result_sink.h"

namespace animd {

// The wire reply for a World answer: converted (to_reply), request id and tick set, and drawn
// on `outbound` (may be null) when large (reply_budget.h): `drawn` bytes, which whoever sends
// it gives back once it is written or dropped.
struct WireReply {
  anim::v1::Reply reply;
  size_t drawn = 0;
};
WireReply wire_reply(const ResultHeader& header, const anim::Expected<WorldResult>& result,
                     ByteBudget* outbound);

class ReplySink : public ResultSink {
 public:
  // `outbound` (may be null: nothing is drawn): the daemon-wide budget large replies draw on,
  // so that clients that do not read their replies cannot make the tick produce unbounded
  // data; a reply it cannot hold becomes RESOURCE_EXHAUSTED.
  explicit ReplySink(ByteBudget* outbound = nullptr) : outbound_(outbound) {}

  void deliver_result(const ResultHeader& header, const anim::Expected<WorldResult>& result) final;

  // Called on the tick, loader or network thread; must not block (the session posts the
  // reply to its own strand). `seq`: the session's number for the request, so replies leave
  // in request order. `drawn`: bytes the producer already drew on the daemon's outbound
  // budget for this reply (the sink gives them back once the reply is written or dropped).
  virtual void deliver(uint64_t seq, anim::v1::Reply reply, size_t drawn = 0) = 0;

 private:
  ByteBudget* outbound_;
};

}  // namespace animd
