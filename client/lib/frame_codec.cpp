#include "frame_codec.h"

#include <limits>

namespace animclient::detail {

bool encode_frame(const google::protobuf::MessageLite& message, std::string& out) {
  const size_t size = message.ByteSizeLong();
  // SerializeToArray takes an int size, which is the tighter bound.
  if (size > static_cast<size_t>(std::numeric_limits<int>::max())) return false;
  out.resize(kFrameHeaderBytes + size);
  const auto n = static_cast<uint32_t>(size);
  // Little-endian regardless of the host's byte order.
  out[0] = static_cast<char>(n & 0xffu);
  out[1] = static_cast<char>((n >> 8) & 0xffu);
  out[2] = static_cast<char>((n >> 16) & 0xffu);
  out[3] = static_cast<char>((n >> 24) & 0xffu);
  return message.SerializeToArray(out.data() + kFrameHeaderBytes, static_cast<int>(size));
}

uint32_t decode_frame_length(const uint8_t* h) {
  return static_cast<uint32_t>(h[0]) | (static_cast<uint32_t>(h[1]) << 8) |
         (static_cast<uint32_t>(h[2]) << 16) | (static_cast<uint32_t>(h[3]) << 24);
}

}  // namespace animclient::detail
