#pragma once
// What the compact frame encoder (frame_encoder.cpp) and decoder (frame_decoder.cpp) must
// compute identically: the bit layout's constants, the predictions and contexts both sides
// derive from the frames they hold, and the residual coder's view of a joint channel. The
// layout itself is docs/protocol.md, "Compact encoding". Not part of the codec's interface.
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstdlib>

#include "animcodec/compact.h"

namespace animcodec::frame_format {

inline constexpr int kKindBits = 2;
inline constexpr int kShiftBits = 4;      // the rice-parameter offsets of delta frames
inline constexpr int kShiftBias = 8;      // k = context + shift - 8
inline constexpr int kKeyKBits = 5;       // key frames: the translation/scale list's k
inline constexpr int kRootKeyK = 16;      // key frames: root translation
inline constexpr int kRootDeltaK = 1;     // delta frames: root translation residuals
inline constexpr int kRootRotDeltaK = 2;  // delta frames: root rotation residuals
inline constexpr int kMaxK = 30;

// bit_width(u) without a branch: std::bit_width tests for zero first (bsr is undefined at 0
// on x86-64 without lzcnt), and zero residuals and velocities are common and unpredictable.
inline int bit_length(uint64_t u) {
  return static_cast<int>(std::bit_width(u | 1)) - static_cast<int>(u == 0);
}

inline int64_t predict(int64_t a, int64_t b, bool second_order) {
  return second_order ? 2 * a - b : a;
}

// Residual context of component i of joint j: how fast it moved (second-order frames), else
// (rotations) its precision. Both sides compute it from frames they hold.
inline int rotation_context(const Layout& l, size_t j, int i, const Baseline& b,
                            bool second_order) {
  if (!second_order || b.prev1[j].largest != b.prev2[j].largest)
    return std::max(0, static_cast<int>(l.precision[j].rotation_bits) - 6);
  return bit_length(static_cast<unsigned>(std::abs(b.prev1[j].r[i] - b.prev2[j].r[i])));
}

template <class Get>
inline int channel_context(size_t j, int i, const Baseline& b, bool second_order, Get get) {
  if (!second_order) return 0;
  const int64_t d = int64_t{get(b.prev1[j])[i]} - int64_t{get(b.prev2[j])[i]};
  return bit_length(static_cast<uint64_t>(d < 0 ? -d : d));
}

inline int k_for(int context, int shift) {
  return std::clamp(context + shift - kShiftBias, 0, kMaxK);
}

// Below this speed (steps per tick, largest component) a channel is mostly rounding noise:
// extrapolating would double it, so the prediction is the newest frame instead.
inline constexpr int64_t kMinExtrapolationSpeed = 3;

inline bool rot_second_order(const Baseline& b, size_t j, bool second_order) {
  if (!second_order || b.prev1[j].largest != b.prev2[j].largest) return false;
  int m = 0;
  for (int i = 0; i < 3; ++i) m = std::max(m, std::abs(b.prev1[j].r[i] - b.prev2[j].r[i]));
  return m >= kMinExtrapolationSpeed;
}

template <class Get>
inline bool chan_second_order(size_t j, const Baseline& b, bool second_order, Get get) {
  if (!second_order) return false;
  bool moving = false;  // all three tested (no early exit: a branch per component mispredicts)
  for (int i = 0; i < 3; ++i) {
    const int64_t d = int64_t{get(b.prev1[j])[i]} - int64_t{get(b.prev2[j])[i]};
    moving |= (d >= kMinExtrapolationSpeed) | (d <= -kMinExtrapolationSpeed);
  }
  return moving;
}

// ---- the residual coder ----
//
// A joint's channel (rotation, translation or scale) is coded as 3 residuals against the
// prediction. With inter-component prediction on (a per-section flag) and the channel moving
// (second-order prediction, speed >= 3 steps a tick), the component that moved fastest (m) is
// coded first and each other component i is predicted from it: round(r_m * v_i / v_m), with
// v the velocity between the two frames held (motion along a steady direction leaves the
// others almost nothing to code). Codes are Exp-Golomb with k = context + shift - 8, the
// context being the bit length of the component's velocity; the shifts are per section and
// class (0: first or only components, 1: cross-predicted ones).

inline constexpr int64_t kCrossLimit = int64_t{1} << 20;

// One joint's channel as the residual coder sees it.
struct Triple {
  int64_t r[3];    // residuals against the prediction (encoder; decoder output)
  int64_t vel[3];  // velocity between the frames held (0 without second-order prediction)
  int ctx[3];
  bool cross_ok;  // moving, with speeds small enough for exact integer products
};

inline int major_axis(const int64_t* v) {
  int m = 0;
  for (int i = 1; i < 3; ++i)
    if ((v[i] < 0 ? -v[i] : v[i]) > (v[m] < 0 ? -v[m] : v[m])) m = i;
  return m;
}

// round(rm * vi / vm), halves away from zero; 0 when rm is too large for exact products.
inline int64_t cross_prediction(int64_t rm, int64_t vi, int64_t vm) {
  if (rm <= -kCrossLimit || rm >= kCrossLimit) return 0;
  const int64_t num = rm * vi;
  const int64_t an = num < 0 ? -num : num, ad = vm < 0 ? -vm : vm;
  // The same quotient in 32 bits when it fits (most residuals are small): a 64-bit division
  // costs several times more.
  const int64_t q = 2 * an + ad <= 0xffffffff
                        ? static_cast<uint32_t>(2 * an + ad) / static_cast<uint32_t>(2 * ad)
                        : (2 * an + ad) / (2 * ad);
  return (num < 0) != (vm < 0) ? -q : q;
}

inline void set_motion(Triple& t, bool second_order_used) {
  int64_t m = 0;
  for (int64_t x : t.vel) m = std::max(m, x < 0 ? -x : x);
  t.cross_ok = second_order_used && m >= kMinExtrapolationSpeed && m < kCrossLimit;
}

// Velocity and contexts of joint j's rotation (residuals not filled).
inline void rotation_triple(const Layout& l, size_t j, const Baseline& b, bool second, Triple& t) {
  const bool so = rot_second_order(b, j, second);
  for (int i = 0; i < 3; ++i) {
    t.ctx[i] = rotation_context(l, j, i, b, second);
    t.vel[i] = so ? b.prev1[j].r[i] - b.prev2[j].r[i] : 0;
  }
  set_motion(t, so);
}

// A joint's translation and scale channels, for the code both channels share.
inline const auto kT = [](const QJoint& q) -> const std::array<int32_t, 3>& { return q.t; };
inline const auto kS = [](const QJoint& q) -> const std::array<int32_t, 3>& { return q.s; };

}  // namespace animcodec::frame_format
