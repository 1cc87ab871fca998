#pragma once
// Bit-level reading and writing for the compact stream encoding (docs/protocol.md, "Compact
// encoding"). Bits go LSB first: stream bit i is bit (i % 8) of byte i / 8, and an n-bit field
// is written from its bit 0 up. Exp-Golomb codes (order k) carry the variable-length values.
//
// Neither allocates: the writer fills a caller's buffer and reports overflow, the reader
// checks every read against the end of its bytes and reports overrun instead of reading past.

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace animcodec {

class BitWriter {
 public:
  BitWriter(uint8_t* data, size_t capacity) : data_(data), capacity_(capacity) {}

  // Appends the low `n` bits of `v` (n <= 56 per call; wider fields are split).
  //
  // Whole bytes leave the accumulator at once: 8 bytes are stored at the end of the output on
  // every call and the end moves by the whole bytes they held (the rest is overwritten by the
  // next store). No branch on when a word fills up: which call completes one is noise to the
  // branch predictor. Near the end of the buffer the bytes go out one at a time, checked.
  void put(uint64_t v, int n) {
    if (n > 56) {
      put(v & 0xffffffffu, 32);
      put(v >> 32, n - 32);
      return;
    }
    if (n <= 0) return;
    acc_ |= (v & ((uint64_t{1} << n) - 1)) << fill_;  // fill_ < 8 between calls
    fill_ += n;
    const int bytes = fill_ >> 3;
    if (capacity_ - size_ >= 8) [[likely]] {
      store_word(acc_);
      size_ += static_cast<size_t>(bytes);
    } else {
      for (int i = 0; i < bytes; ++i) emit(static_cast<uint8_t>(acc_ >> (8 * i)));
    }
    acc_ >>= 8 * bytes;  // bytes <= 7
    fill_ &= 7;
  }
  void bit(bool b) { put(b ? 1 : 0, 1); }
  // Exp-Golomb of order k of an unsigned value (< 2^62): z zero bits, a one bit, then the low
  // z + k bits of u + 2^k, where z = bit_length(u + 2^k) - k - 1.
  void ueg(uint64_t u, int k) {
    uint64_t field;
    int bits;
    if (ueg_field(u, k, field, bits)) {  // the usual case: one field
      put(field, bits);
      return;
    }
    const uint64_t w = u + (uint64_t{1} << k);
    const int len = std::bit_width(w);
    put(0, len - k - 1);
    put(1, 1);
    put(w, len - 1);
  }
  // ueg(u, k) as one field (`field`, `bits` long: zeros, the one, w's low bits) when it takes
  // at most 56 bits; else false. For callers that gather several codes into one put(): a
  // put's cost is its chain through the writer's state, not the field's width.
  static bool ueg_field(uint64_t u, int k, uint64_t& field, int& bits) {
    const uint64_t w = u + (uint64_t{1} << k);
    const int len = std::bit_width(w);
    const int z = len - k - 1;
    bits = z + len;
    if (bits > 56) return false;
    field = ((w & ((uint64_t{1} << (len - 1)) - 1)) << 1 | 1) << z;
    return true;
  }
  // Signed: zigzag (0, -1, 1, -2, ... -> 0, 1, 2, 3, ...) then ueg.
  void seg(int64_t v, int k) { ueg(zigzag(v), k); }

  // Pads the last byte with zero bits; returns the bytes written, or 0 when the buffer was
  // too small (overflowed()).
  size_t finish() {
    while (fill_ > 0) {
      emit(static_cast<uint8_t>(acc_));
      acc_ >>= 8;
      fill_ -= 8;
    }
    acc_ = 0;
    fill_ = 0;
    return overflow_ ? 0 : size_;
  }
  bool overflowed() const { return overflow_; }
  size_t bits() const { return size_ * 8 + static_cast<size_t>(fill_); }

  static uint64_t zigzag(int64_t v) {
    return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
  }
  // Bits ueg(u, k) takes.
  static int ueg_bits(uint64_t u, int k) {
    const int len = std::bit_width(u + (uint64_t{1} << k));
    return 2 * len - k - 1;
  }

 private:
  // The accumulator's 8 bytes at the end of the output, in stream order.
  void store_word(uint64_t word) {
    if constexpr (std::endian::native == std::endian::little) {
      std::memcpy(data_ + size_, &word, 8);
    } else {
      for (int i = 0; i < 8; ++i) data_[size_ + i] = static_cast<uint8_t>(word >> (8 * i));
    }
  }
  void emit(uint8_t b) {
    if (size_ < capacity_)
      data_[size_++] = b;
    else
      overflow_ = true;
  }
  uint8_t* data_;
  size_t capacity_;
  size_t size_ = 0;
  uint64_t acc_ = 0;
  int fill_ = 0;
  bool overflow_ = false;
};

class BitReader {
 public:
  // Longest Exp-Golomb prefix accepted (values stay below 2^(kMaxZeros + k)).
  static constexpr int kMaxZeros = 48;

  BitReader(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  // Reads an n-bit field (n <= 64). Past the end: returns 0 and sets failed().
  uint64_t get(int n) {
    if (n <= 0) return 0;
    if (failed_ || pos_ + static_cast<size_t>(n) > size_ * 8) return fail();
    uint64_t v = 0;
    for (int got = 0; got < n;) {
      const int off = static_cast<int>(pos_ & 7);
      const int take = std::min(8 - off, n - got);
      v |= static_cast<uint64_t>((data_[pos_ >> 3] >> off) & ((1u << take) - 1)) << got;
      got += take;
      pos_ += static_cast<size_t>(take);
    }
    return v;
  }
  bool bit() { return get(1) != 0; }
  // Exp-Golomb of order k; a prefix longer than kMaxZeros sets failed().
  uint64_t ueg(int k) {
    int z = 0;
    while (true) {  // count zero bits a byte at a time
      if (failed_ || pos_ >= size_ * 8) return fail();
      const int off = static_cast<int>(pos_ & 7);
      const unsigned rest = static_cast<unsigned>(data_[pos_ >> 3]) >> off;
      if (rest != 0) {
        const int tz = std::countr_zero(rest);
        z += tz;
        pos_ += static_cast<size_t>(tz) + 1;
        break;
      }
      z += 8 - off;
      pos_ += static_cast<size_t>(8 - off);
      if (z > kMaxZeros) return fail();
    }
    if (z > kMaxZeros) return fail();
    const int n = z + k;
    if (n > 62) return fail();
    const uint64_t w = (uint64_t{1} << n) | get(n);
    return w - (uint64_t{1} << k);
  }
  int64_t seg(int k) {
    const uint64_t u = ueg(k);
    return static_cast<int64_t>(u >> 1) ^ -static_cast<int64_t>(u & 1);
  }

  bool failed() const { return failed_; }
  // True when everything was read: at most 7 bits are left, and they are zero padding.
  bool at_clean_end() const {
    if (failed_ || size_ * 8 - pos_ >= 8) return false;
    for (size_t i = pos_; i < size_ * 8; ++i)
      if ((data_[i / 8] >> (i % 8)) & 1) return false;
    return true;
  }

 private:
  uint64_t fail() {
    failed_ = true;
    return 0;
  }
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
  bool failed_ = false;
};

}  // namespace animcodec
