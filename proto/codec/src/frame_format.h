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

inline int k_for(int context, int shift) {
  return std::clamp(context + shift - kShiftBias, 0, kMaxK);
}

// Below this speed (steps per tick, largest component) a channel is mostly rounding noise:
// extrapolating would double it, so the prediction is the newest frame instead.
inline constexpr int64_t kMinExtrapolationSpeed = 3;

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

// Joint j's rotation as the residual coder sees it (velocity, contexts, whether it moves; the
// residuals are left to the caller) and each component's prediction, from the frames held.
// Second-order frames whose two held rotations share their largest component: the context
// is the bit length of the component's velocity, and the prediction extrapolates when the
// fastest component moved kMinExtrapolationSpeed steps or more. Otherwise the context is the
// joint's precision and the prediction the newest frame.
inline void rotation_triple(const Layout& l, size_t j, const Baseline& b, bool second, Triple& t,
                            int64_t pred[3]) {
  const QJoint& p1 = b.prev1[j];
  if (!second || b.prev2[j].largest != p1.largest) {
    const int ctx = std::max(0, static_cast<int>(l.precision[j].rotation_bits) - 6);
    for (int i = 0; i < 3; ++i) t.ctx[i] = ctx, t.vel[i] = 0, pred[i] = p1.r[i];
    t.cross_ok = false;
    return;
  }
  const QJoint& p2 = b.prev2[j];
  int d[3], m = 0;
  for (int i = 0; i < 3; ++i) {
    d[i] = p1.r[i] - p2.r[i];
    m = std::max(m, std::abs(d[i]));
  }
  const bool moving = m >= kMinExtrapolationSpeed;
  for (int i = 0; i < 3; ++i) {
    t.ctx[i] = bit_length(static_cast<unsigned>(std::abs(d[i])));
    t.vel[i] = moving ? d[i] : 0;
    pred[i] = moving ? p1.r[i] + d[i] : p1.r[i];
  }
  t.cross_ok = moving;  // speeds of 16-bit components are far below kCrossLimit
}

// The same for joint j's translation or scale channel (`get` picks it). Second-order frames:
// the velocity and its bit lengths as contexts, extrapolated when some component moved
// kMinExtrapolationSpeed steps or more; otherwise contexts 0 and the newest frame.
template <class Get>
inline void channel_triple(size_t j, const Baseline& b, bool second, Get get, Triple& t,
                           int64_t pred[3]) {
  const auto& c1 = get(b.prev1[j]);
  if (!second) {
    for (int i = 0; i < 3; ++i) t.ctx[i] = 0, t.vel[i] = 0, pred[i] = c1[i];
    t.cross_ok = false;
    return;
  }
  const auto& c2 = get(b.prev2[j]);
  int64_t m = 0;
  for (int i = 0; i < 3; ++i) {
    const int64_t d = int64_t{c1[i]} - int64_t{c2[i]};
    const int64_t a = d < 0 ? -d : d;
    t.vel[i] = d;
    t.ctx[i] = bit_length(static_cast<uint64_t>(a));
    m = std::max(m, a);
  }
  const bool moving = m >= kMinExtrapolationSpeed;
  for (int i = 0; i < 3; ++i) pred[i] = moving ? c1[i] + t.vel[i] : c1[i];
  t.cross_ok = moving && m < kCrossLimit;
}

// A joint's translation and scale channels, for the code both channels share.
inline const auto kT = [](const QJoint& q) -> const std::array<int32_t, 3>& { return q.t; };
inline const auto kS = [](const QJoint& q) -> const std::array<int32_t, 3>& { return q.s; };

}  // namespace animcodec::frame_format
