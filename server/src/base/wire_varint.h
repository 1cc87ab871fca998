#pragma once
// Protobuf base-128 varints, for the stream entries the daemon writes without a message
// object (compact entries in snapshot.cpp, float entries in stream_encoder.cpp).

#include <cstddef>
#include <cstdint>
#include <string>

namespace animd {

inline size_t varint_size(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) v >>= 7, ++n;
  return n;
}

inline void put_varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

}  // namespace animd
