#pragma once
// The delta encoder's price of a section at every rice-parameter shift (frame_encoder.cpp).
//
// A residual code of bit length a (a = bit_width of its zigzag value) sent with order k is
// priced a + |a - 1 - k| bits, k = clamp(context + shift - 8, 0, kMaxK) (exact unless adding
// 2^k to the value carries into a new bit; the encoder only compares shifts with it). A code's
// prices at the 16 shifts depend on (context, a) alone, so they are a table row; a section's price
// at every shift is the sum of its codes' rows, added 16 lanes at a time (two SSE2 registers of
// 16-bit lanes, moved into 64-bit totals every kBlock codes so that they never overflow). The
// encoder prices a section in parts (merged: the sum of their codes) and asks for the cheapest
// shift once per variant. Not part of the codec's interface.
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>

#include "frame_format.h"

#if defined(__SSE2__) || defined(_M_X64)
#include <emmintrin.h>
#define ANIMCODEC_SHIFT_COST_SSE2 1
#else
#define ANIMCODEC_SHIFT_COST_SSE2 0
#endif

namespace animcodec::frame_format {

inline constexpr int kShifts = 1 << kShiftBits;
// Contexts at or above this one take k = kMaxK at every shift: they share its row.
inline constexpr int kCostContexts = kShiftBias + kMaxK + 1;
inline constexpr int kCostLengths = 65;  // a = 0..64

// One code's prices at the 16 shifts (at most 64 + 63 bits, so a byte each).
struct alignas(16) CostRow {
  uint8_t bits[kShifts];
};
using CostRows = std::array<std::array<CostRow, kCostLengths>, kCostContexts>;

constexpr CostRows make_cost_rows() {
  CostRows rows{};
  for (int c = 0; c < kCostContexts; ++c)
    for (int a = 0; a < kCostLengths; ++a)
      for (int s = 0; s < kShifts; ++s) {
        const int k = std::clamp(c + s - kShiftBias, 0, kMaxK);
        const int off = a - 1 - k;
        rows[c][a].bits[s] = static_cast<uint8_t>(a + (off < 0 ? -off : off));
      }
  return rows;
}

// kShiftCostRows[context][a]. `const`, not `constexpr`: the compiler computes it at compile
// time where its constant-evaluation limits allow (GCC), else at start-up (clang stops after
// 2^20 evaluation steps and would reject a constexpr table of 40,560 entries).
inline const CostRows kShiftCostRows = make_cost_rows();

class ShiftCost {
 public:
  // Adds a code.
  void add(uint64_t u, int context) { apply(row(u, context)); }

  // Adds another section's codes (the encoder prices a section as the sum of two parts).
  void merge(const ShiftCost& other) {
    int64_t t[kShifts];
    other.totals(t);
#if ANIMCODEC_SHIFT_COST_SSE2
    flush();
#endif
    for (int s = 0; s < kShifts; ++s) total_[s] += t[s];
    count_ += other.count_;
  }

  // The shift with the fewest bits (the smallest of equals) and those bits; with no codes,
  // shift 8 and 0 bits.
  int64_t best(int& shift) const {
    shift = kShiftBias;
    if (count_ == 0) return 0;
    int64_t total[kShifts];
    totals(total);
    shift = 0;
    for (int s = 1; s < kShifts; ++s)
      if (total[s] < total[shift]) shift = s;
    return total[shift];
  }

 private:
  // At most this many rows (each <= 127) between moves into the totals: the 16-bit lanes
  // stay below 32,512.
  static constexpr int kBlock = 256;

  static const uint8_t* row(uint64_t u, int context) {
    const int a = bit_length(u);
    const int c = context < kCostContexts - 1 ? (context < 0 ? 0 : context) : kCostContexts - 1;
    return kShiftCostRows[c][a].bits;
  }

  void apply(const uint8_t* r) {
#if ANIMCODEC_SHIFT_COST_SSE2
    const __m128i bytes = _mm_load_si128(reinterpret_cast<const __m128i*>(r));
    const __m128i zero = _mm_setzero_si128();
    const __m128i lo = _mm_unpacklo_epi8(bytes, zero), hi = _mm_unpackhi_epi8(bytes, zero);
    lo_ = _mm_add_epi16(lo_, lo);
    hi_ = _mm_add_epi16(hi_, hi);
    if (++pending_ == kBlock) flush();
#else
    for (int s = 0; s < kShifts; ++s) total_[s] += r[s];
#endif
    ++count_;
  }

#if ANIMCODEC_SHIFT_COST_SSE2
  void flush() {
    alignas(16) int16_t lanes[kShifts];
    _mm_store_si128(reinterpret_cast<__m128i*>(lanes), lo_);
    _mm_store_si128(reinterpret_cast<__m128i*>(lanes + 8), hi_);
    for (int s = 0; s < kShifts; ++s) total_[s] += lanes[s];
    lo_ = hi_ = _mm_setzero_si128();
    pending_ = 0;
  }
  void totals(int64_t* out) const {
    ShiftCost copy = *this;
    copy.flush();
    for (int s = 0; s < kShifts; ++s) out[s] = copy.total_[s];
  }
  __m128i lo_ = _mm_setzero_si128(), hi_ = _mm_setzero_si128();
  int pending_ = 0;
#else
  void totals(int64_t* out) const {
    for (int s = 0; s < kShifts; ++s) out[s] = total_[s];
  }
#endif
  int64_t total_[kShifts] = {};
  int64_t count_ = 0;
};

}  // namespace animcodec::frame_format
