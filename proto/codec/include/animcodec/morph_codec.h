#pragma once
// Compact morph weights: CharacterFrame.compact_morphs, the ENCODING_COMPACT form of a
// character's morph weights (docs/protocol.md, "Compact morph weights"). The daemon quantizes
// and encodes; the clients decode. client/python/animd_compact.py and client/js/src/compact.js
// are the twins of this file and must accept, refuse and produce the same bytes.
//
// Quantization: q = clamp(round((w + 1) * 1024), 0, 4095), halves away from zero, computed
// exactly (in double); NaN gives 1024 (the q of 0). A weight in [-1, 3) comes back as
// w' = q / 1024 - 1 with |w - w'| <= 1/2048.
//
// Bytes (varint: unsigned LEB128, 7 bits a byte, low group first, minimal; zigzag: 0, -1, 1,
// -2, ... -> 0, 1, 2, 3, ...):
//   key   = 0x00, varint N (1..4096), the N 12-bit values packed LSB first (value i in bits
//           [12i, 12i + 12) of the rest), ceil(12N / 8) bytes, padding bits zero.
//   delta = 0x01, varint N (the baseline's count), a bitmap of ceil(N / 8) bytes (bit i % 8
//           of byte i / 8 set: target i changed; bits from N on zero), then for each changed
//           target in order the zigzag varint of q - q_baseline (not 0).
//   empty = the baseline's weights unchanged (and no weights without a baseline).
//
// Pure functions; the encoders append to `out` and the decoder writes `out`, nothing else is
// allocated.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace animcodec {

inline constexpr size_t kMaxMorphTargets = 4096;
inline constexpr uint16_t kMaxMorphQ = 4095;  // quantized weights are 0..4095 (12 bits)
inline constexpr uint16_t kMorphQOfZero = 1024;
inline constexpr uint8_t kMorphKey = 0x00;    // first byte of a key
inline constexpr uint8_t kMorphDelta = 0x01;  // first byte of a delta

uint16_t quantize_morph_weight(float w);
// q / 1024 - 1, exact in float for q <= 4095.
float dequantize_morph_weight(uint16_t q);

// Upper bounds of the encodings of `n` targets (for reserving `out`).
size_t max_morph_key_bytes(size_t n);
size_t max_morph_delta_bytes(size_t n);

// Appends the key of `q` to `out`. False (nothing appended) unless 1 <= q.size() <= 4096 and
// every value <= 4095.
bool encode_morph_key(std::span<const uint16_t> q, std::string& out);

// Appends the delta of `q` against `baseline` to `out`; nothing when they are equal (the
// empty compact_morphs of an unchanged delta frame). False (nothing appended) unless both
// have the same size in 1..4096 and every value of both <= 4095.
bool encode_morph_delta(std::span<const uint16_t> q, std::span<const uint16_t> baseline,
                        std::string& out);

// Decodes `bytes` against `baseline` (the weights of the frame the delta refers to; empty on
// a key frame, or for a character without weights) into `out`. Empty bytes: out = baseline.
// A key needs no baseline (it may come on any frame); a delta needs one of its count.
// Returns the empty string on success, else why (starting "compact morphs: "), and then
// leaves `out` as it was. `baseline` may be `out`'s own storage (decoding in place).
std::string decode_morphs(std::string_view bytes, std::span<const uint16_t> baseline,
                          std::vector<uint16_t>& out);

}  // namespace animcodec
