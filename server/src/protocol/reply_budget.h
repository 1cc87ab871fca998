#pragma once
// Large replies (query_pose, list_characters) draw on the daemon's outbound budget
// (--max-stream-bytes-total) while they are made, for the memory they hold until written: as
// protobuf objects on their way to the session (often several times their wire size), then
// as bytes in its queue. Whoever makes such a reply (the World on the tick thread, a session
// answering query_pose from the pose history) charges it here.

#include <cstddef>

#include "anim/v1/envelope.pb.h"
#include "base/byte_budget.h"

namespace animd {

// Replies up to this size are made without drawing on the outbound budget.
inline constexpr size_t kSmallReply = 1024;
// A reply as protobuf objects takes a few times its wire size (a sub-message per character
// or joint): charged as this estimate, an upper bound of what SpaceUsedLong reports for
// list_characters and query_pose replies, because reflection on every reply would cost.
inline constexpr size_t kObjectBytesPerWireByte = 4;

// Draws what `reply` (request id and tick set) holds on `outbound` (may be null: nothing is
// drawn) and returns the bytes drawn, which the session gives back once it is written. When
// the budget cannot hold it, the reply becomes RESOURCE_EXHAUSTED (same request id and
// tick), drawing nothing.
size_t charge_reply(ByteBudget* outbound, anim::v1::Reply& reply);

}  // namespace animd
