// Session (session.h): replies. Answers from the tick and the loader come back through
// deliver() onto the strand, settle the subscription changes they answer, and leave in
// request order through the write queue.
#include "session/session.h"

namespace animd {

namespace asio = boost::asio;

void Session::deliver(uint64_t seq, anim::v1::Reply reply, size_t drawn) {
  asio::post(transport_.get_executor(),
             [self = shared_from_this(), seq, drawn, reply = std::move(reply)]() mutable {
               self->on_reply(seq, std::move(reply), drawn);
             });
}

void Session::on_reply(uint64_t seq, anim::v1::Reply reply, size_t drawn) {
  if (pending_commands_ > 0) --pending_commands_;
  if (closed_) {
    server_.stream_budget().release(drawn);
    return;
  }
  const bool ok = reply.status().code() == anim::v1::STATUS_OK;
  if (subs_.settle(seq, ok, reply.tick())) dropping_since_.reset();
  release_unwanted_snapshots();
  complete(seq, std::move(reply), drawn);
  resume_if_drained();
}

void Session::complete(uint64_t seq, anim::v1::Reply reply, size_t drawn) {
  if (closed_) {
    server_.stream_budget().release(drawn);
    return;
  }
  if (const int code = reply.status().code(); code != anim::v1::STATUS_OK) {
    Metrics& m = server_.metrics();
    m.request_errors.fetch_add(1, std::memory_order_relaxed);
    const size_t slot = code > 0 && code < static_cast<int>(m.request_errors_by_code.size())
                            ? static_cast<size_t>(code)
                            : static_cast<size_t>(anim::v1::STATUS_INTERNAL);
    m.request_errors_by_code[slot].fetch_add(1, std::memory_order_relaxed);
  }
  anim::v1::ServerMessage msg;
  *msg.mutable_reply() = std::move(reply);
  write_queue_.hold_reply(seq, frame_message(msg), drawn);
  // Replies leave in request order, whichever thread produced them.
  while (auto ready = write_queue_.next_in_order()) {
    enqueue_reply(std::move(ready->bytes), ready->drawn);
    if (closed_) return;
  }
}

}  // namespace animd
