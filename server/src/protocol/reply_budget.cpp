#include "protocol/reply_budget.h"

#include "protocol/request_convert.h"

namespace animd {

size_t charge_reply(ByteBudget* outbound, anim::v1::Reply& reply) {
  const size_t bytes = reply.ByteSizeLong() + 4;  // + the frame header
  if (!outbound || bytes <= kSmallReply) return 0;
  const size_t charged = bytes * kObjectBytesPerWireByte;
  if (outbound->try_acquire(charged)) return charged;
  const uint64_t request_id = reply.request_id(), tick = reply.tick();
  reply = to_reply(anim::Status(anim::StatusCode::kResourceExhausted,
                                "the daemon's outbound budget is spent "
                                "(--max-stream-bytes-total; clients are not reading what "
                                "was sent to them): retry later"));
  reply.set_request_id(request_id);
  reply.set_tick(tick);
  return 0;
}

}  // namespace animd
