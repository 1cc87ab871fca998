// quantize_pose: quantize_joint over a whole pose, four joints at a time (SSE2), for the
// daemon's workers (every character, every tick while a compact subscription exists).
//
// The integers are quantize_joint's by construction: each step is the same IEEE float
// operation as in quantize.cpp, lane by lane (sqrt and division are correctly rounded; there is
// no FMA on the SSE2 baseline), and the one comparison quantize.cpp makes in double,
// |exact - prediction| <= 0.75, is made here as prediction - 0.75 <= exact <= prediction + 0.75
// in float, which is exact while |prediction| < 2^21 (the bounds then need no rounding). A
// group of four whose translation or scale steps (exact or held) reach 2^20, or are not finite,
// is done by quantize_joint itself, and so are the joints after the last whole group.
#include <algorithm>
#include <cmath>
#include <cstddef>

#include "animcodec/compact.h"

#if defined(__SSE2__) || defined(_M_X64)
#include <emmintrin.h>
#define ANIMCODEC_QUANTIZE_SSE2 1
#else
#define ANIMCODEC_QUANTIZE_SSE2 0
#endif

namespace animcodec {

static_assert(sizeof(Trs) == 10 * sizeof(float), "Trs: three members, 10 floats, no padding");

PoseView pose_view(std::span<const Trs> locals) {
  if (locals.empty()) return {};
  return {&locals[0].t.x, &locals[0].r.x, &locals[0].s.x, sizeof(Trs) / sizeof(float),
          locals.size()};
}

namespace {

void quantize_scalar(const Layout& layout, const PoseView& pose, size_t j, const QJoint* prev1,
                     const QJoint* prev2, QJoint& out) {
  const float* t = pose.translation + j * pose.stride;
  const float* r = pose.rotation + j * pose.stride;
  const float* s = pose.scale + j * pose.stride;
  out = quantize_joint(layout, j, glm::vec3(t[0], t[1], t[2]), glm::quat(r[3], r[0], r[1], r[2]),
                       glm::vec3(s[0], s[1], s[2]), prev1 ? prev1 + j : nullptr,
                       prev2 ? prev2 + j : nullptr);
}

#if ANIMCODEC_QUANTIZE_SSE2

static_assert(sizeof(QJoint) == 32 && offsetof(QJoint, largest) == 6 && offsetof(QJoint, t) == 8 &&
                  offsetof(QJoint, s) == 20,
              "QJoint is read and written as two 16-byte halves");
static_assert(sizeof(Layout::Scales) == 4 * sizeof(float));

// Four joints' quantized frames, one joint a lane (int32 lanes).
struct QLanes {
  __m128i r[3], largest, t[3], s[3];
};

inline __m128i select(__m128i mask, __m128i a, __m128i b) {
  return _mm_or_si128(_mm_and_si128(mask, a), _mm_andnot_si128(mask, b));
}
inline __m128 select(__m128 mask, __m128 a, __m128 b) {
  return _mm_or_ps(_mm_and_ps(mask, a), _mm_andnot_ps(mask, b));
}

// QJoint bytes 0-15: r0 | r1 << 16, r2 | largest << 16 | unused << 24, t0, t1; 16-31: t2, s0-s2.
QLanes load(const QJoint* q) {
  __m128 a[4], b[4];
  for (int i = 0; i < 4; ++i) {
    const auto* p = reinterpret_cast<const __m128i*>(q + i);
    a[i] = _mm_castsi128_ps(_mm_loadu_si128(p));
    b[i] = _mm_castsi128_ps(_mm_loadu_si128(p + 1));
  }
  _MM_TRANSPOSE4_PS(a[0], a[1], a[2], a[3]);
  _MM_TRANSPOSE4_PS(b[0], b[1], b[2], b[3]);
  const __m128i r01 = _mm_castps_si128(a[0]), r2l = _mm_castps_si128(a[1]);
  QLanes l;
  l.r[0] = _mm_srai_epi32(_mm_slli_epi32(r01, 16), 16);
  l.r[1] = _mm_srai_epi32(r01, 16);
  l.r[2] = _mm_srai_epi32(_mm_slli_epi32(r2l, 16), 16);
  l.largest = _mm_and_si128(_mm_srli_epi32(r2l, 16), _mm_set1_epi32(0xff));
  l.t[0] = _mm_castps_si128(a[2]);
  l.t[1] = _mm_castps_si128(a[3]);
  l.t[2] = _mm_castps_si128(b[0]);
  for (int k = 0; k < 3; ++k) l.s[k] = _mm_castps_si128(b[k + 1]);
  return l;
}

void store(const QLanes& l, QJoint* q) {
  const __m128i low = _mm_set1_epi32(0xffff);
  __m128 a[4] = {
      _mm_castsi128_ps(_mm_or_si128(_mm_and_si128(l.r[0], low), _mm_slli_epi32(l.r[1], 16))),
      _mm_castsi128_ps(_mm_or_si128(_mm_and_si128(l.r[2], low), _mm_slli_epi32(l.largest, 16))),
      _mm_castsi128_ps(l.t[0]), _mm_castsi128_ps(l.t[1])};
  __m128 b[4] = {_mm_castsi128_ps(l.t[2]), _mm_castsi128_ps(l.s[0]), _mm_castsi128_ps(l.s[1]),
                 _mm_castsi128_ps(l.s[2])};
  _MM_TRANSPOSE4_PS(a[0], a[1], a[2], a[3]);
  _MM_TRANSPOSE4_PS(b[0], b[1], b[2], b[3]);
  for (int i = 0; i < 4; ++i) {
    auto* p = reinterpret_cast<__m128i*>(q + i);
    _mm_storeu_si128(p, _mm_castps_si128(a[i]));
    _mm_storeu_si128(p + 1, _mm_castps_si128(b[i]));
  }
}

// quantize.cpp's round_steps: NaN to 0, clamp to +-limit, add 0.5 with x's sign, truncate.
inline __m128i round_steps(__m128 x, __m128 limit) {
  const __m128 sign = _mm_set1_ps(-0.0f);
  x = _mm_and_ps(x, _mm_cmpeq_ps(x, x));
  x = _mm_min_ps(_mm_max_ps(x, _mm_xor_ps(limit, sign)), limit);
  const __m128 half = _mm_or_ps(_mm_and_ps(x, sign), _mm_set1_ps(0.5f));
  return _mm_cvttps_epi32(_mm_add_ps(x, half));
}

// quantize.cpp's moving(): some component of the channel changed by 3 steps or more.
inline __m128i moving(const __m128i a[3], const __m128i b[3]) {
  __m128i any = _mm_setzero_si128();
  for (int k = 0; k < 3; ++k) {
    const __m128i d = _mm_sub_epi32(a[k], b[k]);
    any = _mm_or_si128(any, _mm_or_si128(_mm_cmpgt_epi32(d, _mm_set1_epi32(2)),
                                         _mm_cmplt_epi32(d, _mm_set1_epi32(-2))));
  }
  return any;
}

// quantize.cpp's pull(), for the lanes in `enabled`: q takes the prediction from a (and b
// where `second`) when exact is within 0.75 of it and it is within +-limit.
inline void pull(__m128i& q, __m128 exact, __m128i a, __m128i b, __m128i second, __m128i enabled,
                 __m128 limit) {
  const __m128i pred = select(second, _mm_sub_epi32(_mm_add_epi32(a, a), b), a);
  const __m128 p = _mm_cvtepi32_ps(pred);
  const __m128 pull = _mm_set1_ps(0.75f);
  const __m128 near = _mm_and_ps(_mm_cmpge_ps(exact, _mm_sub_ps(p, pull)),
                                 _mm_cmple_ps(exact, _mm_add_ps(p, pull)));
  const __m128 inside = _mm_cmple_ps(_mm_andnot_ps(_mm_set1_ps(-0.0f), p), limit);
  const __m128i take = _mm_and_si128(enabled, _mm_castps_si128(_mm_and_ps(near, inside)));
  q = select(take, pred, q);
}

// Lanes whose int32 values are all within +-2^20 (exclusive).
inline __m128i small(const __m128i v[3]) {
  const __m128i hi = _mm_set1_epi32(1 << 20), lo = _mm_set1_epi32(-(1 << 20));
  __m128i ok = _mm_set1_epi32(-1);
  for (int k = 0; k < 3; ++k)
    ok = _mm_and_si128(ok, _mm_and_si128(_mm_cmpgt_epi32(v[k], lo), _mm_cmplt_epi32(v[k], hi)));
  return ok;
}
inline __m128 small(__m128 v) {
  return _mm_cmplt_ps(_mm_andnot_ps(_mm_set1_ps(-0.0f), v), _mm_set1_ps(1048576.0f));
}

inline __m128 gather(const float* base, size_t stride, int component) {
  return _mm_setr_ps(base[component], base[stride + component], base[2 * stride + component],
                     base[3 * stride + component]);
}

// Four joints' translations and scales, one joint a lane, from values `stride` floats apart.
// `trs`: the layout is Trs's (translation, then rotation x y z w, then scale, 10 floats in all,
// as every view the daemon makes): two 4-float loads a joint, transposed, whose extra float
// (rotation.x after the translation, rotation.w before the scale) is the joint's own. Any
// other layout could put those outside the array: one gather per component.
inline void load_translation_scale(const float* t, const float* s, size_t stride, bool trs,
                                   __m128 out_t[3], __m128 out_s[3]) {
  if (trs) {
    __m128 a[4], b[4];
    for (int i = 0; i < 4; ++i) {
      a[i] = _mm_loadu_ps(t + i * stride);
      b[i] = _mm_loadu_ps(s - 1 + i * stride);
    }
    _MM_TRANSPOSE4_PS(a[0], a[1], a[2], a[3]);
    _MM_TRANSPOSE4_PS(b[0], b[1], b[2], b[3]);
    for (int k = 0; k < 3; ++k) out_t[k] = a[k], out_s[k] = b[k + 1];
    return;
  }
  for (int k = 0; k < 3; ++k) out_t[k] = gather(t, stride, k), out_s[k] = gather(s, stride, k);
}

inline bool trs_layout(const float* t, const float* r, const float* s, size_t stride) {
  return r == t + 3 && s == t + 7 && stride >= 10;
}

// Joints j..j+3 (`trs`: the view is laid out like Trs, trs_layout); false (nothing written) when a
// translation or scale is out of the range the float comparisons are exact in.
bool quantize_four(const Layout& layout, const PoseView& pose, bool trs, size_t j,
                   const QJoint* prev1, const QJoint* prev2, QJoint* out) {
  const size_t stride = pose.stride;
  // The steps: rotation scale, rotation limit, translation scale, scale scale.
  __m128 k[4];
  for (int i = 0; i < 4; ++i) k[i] = _mm_loadu_ps(&layout.scales[j + i].rotation);
  _MM_TRANSPOSE4_PS(k[0], k[1], k[2], k[3]);
  const __m128 rot_scale = k[0], rot_limit = k[1], t_scale = k[2], s_scale = k[3];

  // Rotation: smallest-three (quantize.cpp's rotation_steps).
  __m128 c[4];
  for (int i = 0; i < 4; ++i) c[i] = _mm_loadu_ps(pose.rotation + (j + i) * stride);
  _MM_TRANSPOSE4_PS(c[0], c[1], c[2], c[3]);
  const __m128 n2 =
      _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(c[0], c[0]), _mm_mul_ps(c[1], c[1])),
                            _mm_mul_ps(c[2], c[2])),
                 _mm_mul_ps(c[3], c[3]));
  const __m128i valid = _mm_castps_si128(
      _mm_and_ps(_mm_cmpgt_ps(n2, _mm_setzero_ps()), _mm_cmplt_ps(n2, _mm_set1_ps(INFINITY))));
  const __m128 sign = _mm_set1_ps(-0.0f);
  __m128i l = _mm_setzero_si128();
  __m128 m = _mm_andnot_ps(sign, c[0]);
  for (int i = 1; i < 4; ++i) {
    const __m128 a = _mm_andnot_ps(sign, c[i]);
    const __m128 gt = _mm_cmpgt_ps(a, m);
    l = select(_mm_castps_si128(gt), _mm_set1_epi32(i), l);
    m = select(gt, a, m);
  }
  const __m128 eq0 = _mm_castsi128_ps(_mm_cmpeq_epi32(l, _mm_setzero_si128()));
  const __m128 eq1 = _mm_castsi128_ps(_mm_cmpeq_epi32(l, _mm_set1_epi32(1)));
  const __m128 eq2 = _mm_castsi128_ps(_mm_cmpeq_epi32(l, _mm_set1_epi32(2)));
  const __m128 largest_value = select(eq0, c[0], select(eq1, c[1], select(eq2, c[2], c[3])));
  const __m128 negative = _mm_cmplt_ps(largest_value, _mm_setzero_ps());
  const __m128 s = _mm_div_ps(_mm_xor_ps(rot_scale, _mm_and_ps(negative, sign)), _mm_sqrt_ps(n2));
  // The k-th of the other three components is c[k + 1] where l <= k, else c[k].
  const __m128 le1 = _mm_or_ps(eq0, eq1), le2 = _mm_or_ps(le1, eq2);
  const __m128 others[3] = {select(eq0, c[1], c[0]), select(le1, c[2], c[1]),
                            select(le2, c[3], c[2])};
  const __m128 valid_f = _mm_castsi128_ps(valid);
  QLanes q;
  __m128 exact_r[3];
  for (int i = 0; i < 3; ++i) {
    exact_r[i] = _mm_and_ps(valid_f, _mm_mul_ps(others[i], s));
    q.r[i] = _mm_and_si128(valid, round_steps(exact_r[i], rot_limit));
  }
  q.largest = select(valid, l, _mm_set1_epi32(3));

  // Translation and scale (quantize_joint), and whether the float comparisons are exact.
  const __m128 limit = _mm_set1_ps(2.1e9f);
  __m128 exact_t[3], exact_s[3];
  __m128 in_range = _mm_castsi128_ps(_mm_set1_epi32(-1));
  static_assert(offsetof(Trs, r) == 3 * sizeof(float) && offsetof(Trs, s) == 7 * sizeof(float));
  __m128 pose_t[3], pose_s[3], rest_t[3], rest_s[3];
  load_translation_scale(pose.translation + j * stride, pose.scale + j * stride, stride, trs,
                         pose_t, pose_s);
  load_translation_scale(&layout.rest[j].t.x, &layout.rest[j].s.x, sizeof(Trs) / sizeof(float),
                         true, rest_t, rest_s);
  for (int i = 0; i < 3; ++i) {
    exact_t[i] = _mm_mul_ps(_mm_sub_ps(pose_t[i], rest_t[i]), t_scale);
    exact_s[i] = _mm_mul_ps(_mm_sub_ps(pose_s[i], rest_s[i]), s_scale);
    q.t[i] = round_steps(exact_t[i], limit);
    q.s[i] = round_steps(exact_s[i], limit);
    in_range = _mm_and_ps(in_range, _mm_and_ps(small(exact_t[i]), small(exact_s[i])));
    // Never NaN for a finite quaternion; checked so that the scalar code decides if it were.
    in_range = _mm_and_ps(in_range, _mm_cmpeq_ps(exact_r[i], exact_r[i]));
  }
  __m128i ok = _mm_castps_si128(in_range);

  if (prev1) {
    const QLanes p1 = load(prev1 + j);
    ok = _mm_and_si128(ok, _mm_and_si128(small(p1.t), small(p1.s)));
    const __m128i same1 = _mm_cmpeq_epi32(p1.largest, q.largest);
    __m128i rot_second = _mm_setzero_si128(), t_second = rot_second, s_second = rot_second;
    QLanes p2 = p1;
    if (prev2) {
      p2 = load(prev2 + j);
      ok = _mm_and_si128(ok, _mm_and_si128(small(p2.t), small(p2.s)));
      rot_second = _mm_and_si128(_mm_cmpeq_epi32(p2.largest, q.largest), moving(p1.r, p2.r));
      t_second = moving(p1.t, p2.t);
      s_second = moving(p1.s, p2.s);
    }
    const __m128i all = _mm_set1_epi32(-1);
    for (int i = 0; i < 3; ++i) {
      pull(q.r[i], exact_r[i], p1.r[i], p2.r[i], rot_second, same1, rot_limit);
      pull(q.t[i], exact_t[i], p1.t[i], p2.t[i], t_second, all, limit);
      pull(q.s[i], exact_s[i], p1.s[i], p2.s[i], s_second, all, limit);
    }
  }
  if (_mm_movemask_epi8(ok) != 0xffff) return false;
  store(q, out + j);
  return true;
}

#endif  // ANIMCODEC_QUANTIZE_SSE2

}  // namespace

void quantize_pose(const Layout& layout, const PoseView& pose, const QJoint* prev1,
                   const QJoint* prev2, std::span<QJoint> out) {
  const size_t n = std::min({pose.count, layout.num_joints(), out.size()});
  if (!prev1) prev2 = nullptr;
  size_t j = 0;
#if ANIMCODEC_QUANTIZE_SSE2
  const bool trs = trs_layout(pose.translation, pose.rotation, pose.scale, pose.stride);
  for (; j + 4 <= n; j += 4)
    if (!quantize_four(layout, pose, trs, j, prev1, prev2, out.data()))
      for (size_t i = j; i < j + 4; ++i) quantize_scalar(layout, pose, i, prev1, prev2, out[i]);
#endif
  for (; j < n; ++j) quantize_scalar(layout, pose, j, prev1, prev2, out[j]);
}

}  // namespace animcodec
