// Session (session.h): replies. Answers from the tick and the loader come back through
// deliver() onto the strand, settle the subscription changes they answer, and leave in
// request order through the Connection.
#include "session/session.h"

#include <boost/asio/post.hpp>

#include "protocol/proto_convert.h"

namespace animd {

namespace asio = boost::asio;

void Session::deliver(uint64_t seq, anim::v1::Reply reply, size_t drawn) {
  asio::post(connection_.executor(),
             [self = shared_from_this(), seq, drawn, reply = std::move(reply)]() mutable {
               self->on_reply(seq, std::move(reply), drawn);
             });
}

void Session::on_reply(uint64_t seq, anim::v1::Reply reply, size_t drawn) {
  pipeline_.answered();
  if (connection_.closed()) {
    server_.stream_budget().release(drawn);
    return;
  }
  stream_.settle(seq, reply.status().code() == anim::v1::STATUS_OK, reply.tick());
  complete(seq, std::move(reply), drawn);
  connection_.resume_if_drained();
}

void Session::reply_error(uint64_t seq, const Request& request, anim::v1::StatusCode code,
                          std::string message) {
  anim::v1::Reply reply;
  reply.set_request_id(request.request_id());
  set_status(reply, code, std::move(message));
  complete(seq, std::move(reply));
}

void Session::complete(uint64_t seq, anim::v1::Reply reply, size_t drawn) {
  if (connection_.closed()) {
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
  connection_.send_reply(seq, frame_message(msg), drawn);
}

}  // namespace animd
