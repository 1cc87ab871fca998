// Compact morph weights (animcodec/morph_codec.h): the quantizer, the key and delta writers,
// and the decoder, which checks a whole input before it writes anything.
#include "animcodec/morph_codec.h"

#include <algorithm>
#include <cmath>

namespace animcodec {

namespace {

// Varints here never exceed 2 bytes when valid (N <= 4096, zigzag <= 8190); longer ones are
// read up to this many bytes so that the range checks, not the reader, refuse them.
constexpr size_t kMaxVarintBytes = 4;

void put_varint(uint32_t v, std::string& out) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

uint32_t zigzag(int32_t v) {
  return (static_cast<uint32_t>(v) << 1) ^ static_cast<uint32_t>(v >> 31);
}

int32_t unzigzag(uint32_t u) {
  return static_cast<int32_t>(u >> 1) ^ -static_cast<int32_t>(u & 1);
}

uint8_t byte_at(std::string_view bytes, size_t i) {
  return static_cast<uint8_t>(bytes[i]);
}

// Reads the varint at `pos` (moved past it). Empty on success.
std::string read_varint(std::string_view bytes, size_t& pos, uint32_t& value) {
  value = 0;
  for (size_t i = 0; i < kMaxVarintBytes; ++i) {
    if (pos >= bytes.size()) return "compact morphs: truncated";
    const uint8_t b = byte_at(bytes, pos++);
    value |= static_cast<uint32_t>(b & 0x7f) << (7 * i);
    if ((b & 0x80) == 0) {
      if (i > 0 && b == 0) return "compact morphs: a varint longer than needed";
      return {};
    }
  }
  return "compact morphs: a varint too long";
}

std::string read_count(std::string_view bytes, size_t& pos, uint32_t& n) {
  if (std::string error = read_varint(bytes, pos, n); !error.empty()) return error;
  if (n < 1 || n > kMaxMorphTargets)
    return "compact morphs: target count " + std::to_string(n) + " out of range (1.." +
           std::to_string(kMaxMorphTargets) + ")";
  return {};
}

bool in_range(std::span<const uint16_t> q) {
  return std::all_of(q.begin(), q.end(), [](uint16_t v) { return v <= kMaxMorphQ; });
}

bool changed(std::string_view bitmap, size_t i) {
  return (byte_at(bitmap, i / 8) >> (i % 8)) & 1;
}

// out = baseline, unless `baseline` already is `out`'s storage.
void copy_baseline(std::span<const uint16_t> baseline, std::vector<uint16_t>& out) {
  if (baseline.data() == out.data() && baseline.size() == out.size()) return;
  out.assign(baseline.begin(), baseline.end());
}

std::string decode_key(std::string_view bytes, std::vector<uint16_t>& out) {
  size_t pos = 1;
  uint32_t n = 0;
  if (std::string error = read_count(bytes, pos, n); !error.empty()) return error;
  const size_t packed = (12 * size_t{n} + 7) / 8;
  if (bytes.size() - pos < packed) return "compact morphs: truncated key";
  if (bytes.size() - pos > packed) return "compact morphs: trailing bytes after the key";
  if (n % 2 == 1 && (byte_at(bytes, bytes.size() - 1) >> 4) != 0)
    return "compact morphs: non-zero padding bits in the key";
  out.resize(n);
  uint32_t acc = 0;
  int bits = 0;
  for (uint32_t i = 0; i < n; ++i) {
    while (bits < 12) {
      acc |= static_cast<uint32_t>(byte_at(bytes, pos++)) << bits;
      bits += 8;
    }
    out[i] = static_cast<uint16_t>(acc & 0xfff);
    acc >>= 12;
    bits -= 12;
  }
  return {};
}

std::string decode_delta(std::string_view bytes, std::span<const uint16_t> baseline,
                         std::vector<uint16_t>& out) {
  if (baseline.empty()) return "compact morphs: a delta without weights to refer to";
  size_t pos = 1;
  uint32_t n = 0;
  if (std::string error = read_count(bytes, pos, n); !error.empty()) return error;
  if (n != baseline.size())
    return "compact morphs: a delta for " + std::to_string(n) + " targets against " +
           std::to_string(baseline.size());
  const size_t bitmap_bytes = (size_t{n} + 7) / 8;
  if (bytes.size() - pos < bitmap_bytes) return "compact morphs: truncated bitmap";
  const std::string_view bitmap = bytes.substr(pos, bitmap_bytes);
  pos += bitmap_bytes;
  if (n % 8 != 0 && (byte_at(bitmap, bitmap_bytes - 1) >> (n % 8)) != 0)
    return "compact morphs: bitmap bits set beyond the target count";
  // Everything is checked before `out` is touched.
  const size_t values = pos;
  size_t count = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!changed(bitmap, i)) continue;
    ++count;
    uint32_t u = 0;
    if (std::string error = read_varint(bytes, pos, u); !error.empty()) return error;
    const int64_t d = unzigzag(u);
    if (d == 0) return "compact morphs: target " + std::to_string(i) + " flagged but unchanged";
    const int64_t q = int64_t{baseline[i]} + d;
    if (q < 0 || q > kMaxMorphQ)
      return "compact morphs: target " + std::to_string(i) + " out of range";
  }
  if (count == 0) return "compact morphs: a delta that changes nothing (must be empty bytes)";
  if (pos != bytes.size()) return "compact morphs: trailing bytes after the delta";
  copy_baseline(baseline, out);
  pos = values;
  for (size_t i = 0; i < n; ++i) {
    if (!changed(bitmap, i)) continue;
    uint32_t u = 0;
    (void)read_varint(bytes, pos, u);
    out[i] = static_cast<uint16_t>(out[i] + unzigzag(u));
  }
  return {};
}

}  // namespace

uint16_t quantize_morph_weight(float w) {
  if (std::isnan(w)) return kMorphQOfZero;
  // Exact: a float plus 1 fits a double's mantissa wherever the rounding can tell.
  const double x = (static_cast<double>(w) + 1.0) * 1024.0;
  if (x <= 0.0) return 0;
  if (x >= kMaxMorphQ) return kMaxMorphQ;
  return static_cast<uint16_t>(std::floor(x + 0.5));
}

float dequantize_morph_weight(uint16_t q) {
  return static_cast<float>(q) / 1024.0f - 1.0f;
}

size_t max_morph_key_bytes(size_t n) {
  return 3 + (12 * n + 7) / 8;
}

size_t max_morph_delta_bytes(size_t n) {
  return 3 + (n + 7) / 8 + 2 * n;
}

bool encode_morph_key(std::span<const uint16_t> q, std::string& out) {
  if (q.empty() || q.size() > kMaxMorphTargets || !in_range(q)) return false;
  out.reserve(out.size() + max_morph_key_bytes(q.size()));
  out.push_back(static_cast<char>(kMorphKey));
  put_varint(static_cast<uint32_t>(q.size()), out);
  uint32_t acc = 0;
  int bits = 0;
  for (uint16_t v : q) {
    acc |= static_cast<uint32_t>(v) << bits;
    bits += 12;
    while (bits >= 8) {
      out.push_back(static_cast<char>(acc & 0xff));
      acc >>= 8;
      bits -= 8;
    }
  }
  if (bits > 0) out.push_back(static_cast<char>(acc & 0xff));
  return true;
}

bool encode_morph_delta(std::span<const uint16_t> q, std::span<const uint16_t> baseline,
                        std::string& out) {
  if (q.empty() || q.size() > kMaxMorphTargets || q.size() != baseline.size() || !in_range(q) ||
      !in_range(baseline))
    return false;
  if (std::equal(q.begin(), q.end(), baseline.begin())) return true;
  out.reserve(out.size() + max_morph_delta_bytes(q.size()));
  out.push_back(static_cast<char>(kMorphDelta));
  put_varint(static_cast<uint32_t>(q.size()), out);
  const size_t bitmap = out.size();
  out.append((q.size() + 7) / 8, '\0');
  for (size_t i = 0; i < q.size(); ++i) {
    if (q[i] == baseline[i]) continue;
    out[bitmap + i / 8] = static_cast<char>(byte_at(out, bitmap + i / 8) | (1u << (i % 8)));
    put_varint(zigzag(int32_t{q[i]} - int32_t{baseline[i]}), out);
  }
  return true;
}

std::string decode_morphs(std::string_view bytes, std::span<const uint16_t> baseline,
                          std::vector<uint16_t>& out) {
  if (bytes.empty()) {
    copy_baseline(baseline, out);
    return {};
  }
  switch (byte_at(bytes, 0)) {
    case kMorphKey:
      return decode_key(bytes, out);
    case kMorphDelta:
      return decode_delta(bytes, baseline, out);
    default:
      return "compact morphs: unknown kind " + std::to_string(byte_at(bytes, 0));
  }
}

}  // namespace animcodec
