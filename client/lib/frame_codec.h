#pragma once
// The wire framing shared by both directions: a 4-byte little-endian length, then that many
// bytes of one serialized envelope message. Kept apart from the socket code so the byte
// layout is defined in one place.

#include <cstddef>
#include <cstdint>
#include <string>

#include <google/protobuf/message_lite.h>

namespace animclient::detail {

inline constexpr size_t kFrameHeaderBytes = 4;

// Header + serialized `message`, ready to write. Returns false when the message does not
// fit the 32-bit length (the caller reports it; nothing is sent).
bool encode_frame(const google::protobuf::MessageLite& message, std::string& out);

// The body length the kFrameHeaderBytes bytes at `header` announce.
uint32_t decode_frame_length(const uint8_t* header);

}  // namespace animclient::detail
