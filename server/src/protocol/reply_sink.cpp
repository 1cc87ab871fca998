#include "protocol/reply_sink.h"

#include "protocol/reply_budget.h"
#include "protocol/request_convert.h"

namespace animd {

WireReply wire_reply(const ResultHeader& header, const anim::Expected<WorldResult>& result,
                     ByteBudget* outbound) {
  WireReply out{to_reply(result)};
  out.reply.set_request_id(header.request_id);
  out.reply.set_tick(header.tick);
  out.drawn = charge_reply(outbound, out.reply);
  return out;
}

void ReplySink::deliver_result(const ResultHeader& header,
                               const anim::Expected<WorldResult>& result) {
  WireReply out = wire_reply(header, result, outbound_);
  deliver(header.seq, std::move(out.reply), out.drawn);
}

}  // namespace animd
