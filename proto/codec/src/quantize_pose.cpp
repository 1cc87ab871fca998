// quantize_pose: quantize_joint over a whole pose, eight joints at a time (AVX2, where the CPU
// has it) or four (SSE2, the x86-64 baseline), for the daemon's workers (every character,
// every tick while a compact subscription exists).
//
// The integers are quantize_joint's by construction: each step is the same IEEE float
// operation as in quantize.cpp, lane by lane (sqrt and division are correctly rounded in SSE
// and AVX alike; nothing is fused: there is no FMA on the SSE2 baseline, the AVX2 functions
// do not enable it, and this file is compiled with -ffp-contract=off), and the one comparison
// quantize.cpp makes in double, |exact - prediction| <= 0.75, is made here as
// prediction - 0.75 <= exact <= prediction + 0.75 in float, which is exact while
// |prediction| < 2^21 (the bounds then need no rounding). A group whose translation or scale
// steps (exact or held) reach 2^20, or are not finite, is done again narrower: a group of
// eight as two groups of four, a group of four by quantize_joint itself. The joints after the
// last whole group of eight take one group of four and then quantize_joint.
#include <algorithm>
#include <cmath>
#include <cstddef>

#include "animcodec/compact.h"
#include "animcodec/quantize_paths.h"
#include "codec_internal.h"

#if defined(__SSE2__) || defined(_M_X64)
#include <emmintrin.h>
#define ANIMCODEC_QUANTIZE_SSE2 1
#else
#define ANIMCODEC_QUANTIZE_SSE2 0
#endif

// AVX2 is not part of the x86-64 baseline the build targets: only the functions marked
// ANIMCODEC_AVX2 are compiled for it, and they run only when the CPU says it has it
// (cpu_has_avx2, codec_internal.h).
#if ANIMCODEC_QUANTIZE_SSE2 && defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define ANIMCODEC_QUANTIZE_AVX2 1
#define ANIMCODEC_AVX2 __attribute__((target("avx2")))
#else
#define ANIMCODEC_QUANTIZE_AVX2 0
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
    // Without a second frame the `second` masks are 0 and its lanes are never chosen: p1
    // stands in, by reference (a copy of ten vectors costs a block's worth of stalls).
    QLanes older;
    const QLanes* p2 = &p1;
    if (prev2) {
      older = load(prev2 + j);
      p2 = &older;
      ok = _mm_and_si128(ok, _mm_and_si128(small(older.t), small(older.s)));
      rot_second = _mm_and_si128(_mm_cmpeq_epi32(older.largest, q.largest), moving(p1.r, older.r));
      t_second = moving(p1.t, older.t);
      s_second = moving(p1.s, older.s);
    }
    const __m128i all = _mm_set1_epi32(-1);
    for (int i = 0; i < 3; ++i) {
      pull(q.r[i], exact_r[i], p1.r[i], p2->r[i], rot_second, same1, rot_limit);
      pull(q.t[i], exact_t[i], p1.t[i], p2->t[i], t_second, all, limit);
      pull(q.s[i], exact_s[i], p1.s[i], p2->s[i], s_second, all, limit);
    }
  }
  if (_mm_movemask_epi8(ok) != 0xffff) return false;
  store(q, out + j);
  return true;
}

// Joints j..j+3 by quantize_four, or one by one when it declines.
void quantize_four_or_one(const Layout& layout, const PoseView& pose, bool trs, size_t j,
                          const QJoint* prev1, const QJoint* prev2, QJoint* out) {
  if (quantize_four(layout, pose, trs, j, prev1, prev2, out)) return;
  for (size_t i = j; i < j + 4; ++i) quantize_scalar(layout, pose, i, prev1, prev2, out[i]);
}

// Joints j..n-1: groups of four, then one by one.
void quantize_sse2(const Layout& layout, const PoseView& pose, size_t j, size_t n,
                   const QJoint* prev1, const QJoint* prev2, QJoint* out) {
  const bool trs = trs_layout(pose.translation, pose.rotation, pose.scale, pose.stride);
  for (; j + 4 <= n; j += 4) quantize_four_or_one(layout, pose, trs, j, prev1, prev2, out);
  for (; j < n; ++j) quantize_scalar(layout, pose, j, prev1, prev2, out[j]);
}

#if ANIMCODEC_QUANTIZE_AVX2

// quantize_four's steps over eight lanes: the same operations in the same order, one joint a
// lane. AVX2 has no integer less-than (a > b with the operands swapped) and compares floats
// through one instruction with a predicate: the ordered ones, as SSE's cmplt / cmple / cmpge /
// cmpgt (false for NaN) and cmpeq.

// Eight joints' quantized frames, one joint a lane (int32 lanes).
struct QLanes8 {
  __m256i r[3], largest, t[3], s[3];
};

// The masks are whole lanes (all bits set or none), so blends choose as and / andnot / or do.
ANIMCODEC_AVX2 inline __m256i select(__m256i mask, __m256i a, __m256i b) {
  return _mm256_blendv_epi8(b, a, mask);
}
ANIMCODEC_AVX2 inline __m256 select(__m256 mask, __m256 a, __m256 b) {
  return _mm256_blendv_ps(b, a, mask);
}

// The 4x4 transpose within each 128-bit half: v[k] half h element i <-> v[i] half h element k.
ANIMCODEC_AVX2 inline void transpose_halves(__m256 v[4]) {
  const __m256 t0 = _mm256_unpacklo_ps(v[0], v[1]), t1 = _mm256_unpacklo_ps(v[2], v[3]);
  const __m256 t2 = _mm256_unpackhi_ps(v[0], v[1]), t3 = _mm256_unpackhi_ps(v[2], v[3]);
  v[0] = _mm256_shuffle_ps(t0, t1, _MM_SHUFFLE(1, 0, 1, 0));
  v[1] = _mm256_shuffle_ps(t0, t1, _MM_SHUFFLE(3, 2, 3, 2));
  v[2] = _mm256_shuffle_ps(t2, t3, _MM_SHUFFLE(1, 0, 1, 0));
  v[3] = _mm256_shuffle_ps(t2, t3, _MM_SHUFFLE(3, 2, 3, 2));
}

// Four floats of each of eight joints (joint i's at base + i * stride) as four vectors, v[k]
// lane i = joint i's float k: joints i and i + 4 share a vector (low and high half), whose
// transpose within the halves puts joints 0-3 low and 4-7 high, in order.
ANIMCODEC_AVX2 inline void load8x4(const float* base, size_t stride, __m256 v[4]) {
  for (int i = 0; i < 4; ++i)
    v[i] = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(base + i * stride)),
                                _mm_loadu_ps(base + (i + 4) * stride), 1);
  transpose_halves(v);
}
// The way back (the transpose is its own inverse).
ANIMCODEC_AVX2 inline void store8x4(__m256 v[4], float* base, size_t stride) {
  transpose_halves(v);
  for (int i = 0; i < 4; ++i) {
    _mm_storeu_ps(base + i * stride, _mm256_castps256_ps128(v[i]));
    _mm_storeu_ps(base + (i + 4) * stride, _mm256_extractf128_ps(v[i], 1));
  }
}

// As load(): QJoint as two 16-byte halves, 8 floats (32 bytes) from one joint to the next.
ANIMCODEC_AVX2 inline QLanes8 load8(const QJoint* q) {
  __m256 a[4], b[4];
  load8x4(reinterpret_cast<const float*>(q), 8, a);
  load8x4(reinterpret_cast<const float*>(q) + 4, 8, b);
  const __m256i r01 = _mm256_castps_si256(a[0]), r2l = _mm256_castps_si256(a[1]);
  QLanes8 l;
  l.r[0] = _mm256_srai_epi32(_mm256_slli_epi32(r01, 16), 16);
  l.r[1] = _mm256_srai_epi32(r01, 16);
  l.r[2] = _mm256_srai_epi32(_mm256_slli_epi32(r2l, 16), 16);
  l.largest = _mm256_and_si256(_mm256_srli_epi32(r2l, 16), _mm256_set1_epi32(0xff));
  l.t[0] = _mm256_castps_si256(a[2]);
  l.t[1] = _mm256_castps_si256(a[3]);
  l.t[2] = _mm256_castps_si256(b[0]);
  for (int k = 0; k < 3; ++k) l.s[k] = _mm256_castps_si256(b[k + 1]);
  return l;
}

ANIMCODEC_AVX2 inline void store8(const QLanes8& l, QJoint* q) {
  const __m256i low = _mm256_set1_epi32(0xffff);
  __m256 a[4] = {_mm256_castsi256_ps(
                     _mm256_or_si256(_mm256_and_si256(l.r[0], low), _mm256_slli_epi32(l.r[1], 16))),
                 _mm256_castsi256_ps(_mm256_or_si256(_mm256_and_si256(l.r[2], low),
                                                     _mm256_slli_epi32(l.largest, 16))),
                 _mm256_castsi256_ps(l.t[0]), _mm256_castsi256_ps(l.t[1])};
  __m256 b[4] = {_mm256_castsi256_ps(l.t[2]), _mm256_castsi256_ps(l.s[0]),
                 _mm256_castsi256_ps(l.s[1]), _mm256_castsi256_ps(l.s[2])};
  store8x4(a, reinterpret_cast<float*>(q), 8);
  store8x4(b, reinterpret_cast<float*>(q) + 4, 8);
}

ANIMCODEC_AVX2 inline __m256i round_steps(__m256 x, __m256 limit) {
  const __m256 sign = _mm256_set1_ps(-0.0f);
  x = _mm256_and_ps(x, _mm256_cmp_ps(x, x, _CMP_EQ_OQ));
  x = _mm256_min_ps(_mm256_max_ps(x, _mm256_xor_ps(limit, sign)), limit);
  const __m256 half = _mm256_or_ps(_mm256_and_ps(x, sign), _mm256_set1_ps(0.5f));
  return _mm256_cvttps_epi32(_mm256_add_ps(x, half));
}

ANIMCODEC_AVX2 inline __m256i moving(const __m256i a[3], const __m256i b[3]) {
  __m256i any = _mm256_setzero_si256();
  for (int k = 0; k < 3; ++k) {
    const __m256i d = _mm256_sub_epi32(a[k], b[k]);
    any = _mm256_or_si256(any, _mm256_or_si256(_mm256_cmpgt_epi32(d, _mm256_set1_epi32(2)),
                                               _mm256_cmpgt_epi32(_mm256_set1_epi32(-2), d)));
  }
  return any;
}

ANIMCODEC_AVX2 inline void pull(__m256i& q, __m256 exact, __m256i a, __m256i b, __m256i second,
                                __m256i enabled, __m256 limit) {
  const __m256i pred = select(second, _mm256_sub_epi32(_mm256_add_epi32(a, a), b), a);
  const __m256 p = _mm256_cvtepi32_ps(pred);
  const __m256 pull = _mm256_set1_ps(0.75f);
  const __m256 near = _mm256_and_ps(_mm256_cmp_ps(exact, _mm256_sub_ps(p, pull), _CMP_GE_OQ),
                                    _mm256_cmp_ps(exact, _mm256_add_ps(p, pull), _CMP_LE_OQ));
  const __m256 inside =
      _mm256_cmp_ps(_mm256_andnot_ps(_mm256_set1_ps(-0.0f), p), limit, _CMP_LE_OQ);
  const __m256i take = _mm256_and_si256(enabled, _mm256_castps_si256(_mm256_and_ps(near, inside)));
  q = select(take, pred, q);
}

ANIMCODEC_AVX2 inline __m256i small(const __m256i v[3]) {
  const __m256i hi = _mm256_set1_epi32(1 << 20), lo = _mm256_set1_epi32(-(1 << 20));
  __m256i ok = _mm256_set1_epi32(-1);
  for (int k = 0; k < 3; ++k)
    ok = _mm256_and_si256(
        ok, _mm256_and_si256(_mm256_cmpgt_epi32(v[k], lo), _mm256_cmpgt_epi32(hi, v[k])));
  return ok;
}
ANIMCODEC_AVX2 inline __m256 small(__m256 v) {
  return _mm256_cmp_ps(_mm256_andnot_ps(_mm256_set1_ps(-0.0f), v), _mm256_set1_ps(1048576.0f),
                       _CMP_LT_OQ);
}

ANIMCODEC_AVX2 inline __m256 gather8(const float* base, size_t stride, int component) {
  const float* p = base + component;
  return _mm256_setr_ps(p[0], p[stride], p[2 * stride], p[3 * stride], p[4 * stride], p[5 * stride],
                        p[6 * stride], p[7 * stride]);
}

// As load_translation_scale, for eight joints.
ANIMCODEC_AVX2 inline void load_translation_scale(const float* t, const float* s, size_t stride,
                                                  bool trs, __m256 out_t[3], __m256 out_s[3]) {
  if (trs) {
    __m256 a[4], b[4];
    load8x4(t, stride, a);
    load8x4(s - 1, stride, b);
    for (int k = 0; k < 3; ++k) out_t[k] = a[k], out_s[k] = b[k + 1];
    return;
  }
  for (int k = 0; k < 3; ++k) out_t[k] = gather8(t, stride, k), out_s[k] = gather8(s, stride, k);
}

// Joints j..j+7, as quantize_four: false (nothing written) when a lane is out of the range the
// float comparisons are exact in.
ANIMCODEC_AVX2 bool quantize_eight(const Layout& layout, const PoseView& pose, bool trs, size_t j,
                                   const QJoint* prev1, const QJoint* prev2, QJoint* out) {
  const size_t stride = pose.stride;
  // The steps: rotation scale, rotation limit, translation scale, scale scale.
  __m256 k[4];
  load8x4(&layout.scales[j].rotation, 4, k);
  const __m256 rot_scale = k[0], rot_limit = k[1], t_scale = k[2], s_scale = k[3];

  // Rotation: smallest-three (quantize.cpp's rotation_steps).
  __m256 c[4];
  load8x4(pose.rotation + j * stride, stride, c);
  const __m256 n2 = _mm256_add_ps(
      _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(c[0], c[0]), _mm256_mul_ps(c[1], c[1])),
                    _mm256_mul_ps(c[2], c[2])),
      _mm256_mul_ps(c[3], c[3]));
  const __m256i valid =
      _mm256_castps_si256(_mm256_and_ps(_mm256_cmp_ps(n2, _mm256_setzero_ps(), _CMP_GT_OQ),
                                        _mm256_cmp_ps(n2, _mm256_set1_ps(INFINITY), _CMP_LT_OQ)));
  const __m256 sign = _mm256_set1_ps(-0.0f);
  __m256i l = _mm256_setzero_si256();
  __m256 m = _mm256_andnot_ps(sign, c[0]);
  for (int i = 1; i < 4; ++i) {
    const __m256 a = _mm256_andnot_ps(sign, c[i]);
    const __m256 gt = _mm256_cmp_ps(a, m, _CMP_GT_OQ);
    l = select(_mm256_castps_si256(gt), _mm256_set1_epi32(i), l);
    m = select(gt, a, m);
  }
  const __m256 eq0 = _mm256_castsi256_ps(_mm256_cmpeq_epi32(l, _mm256_setzero_si256()));
  const __m256 eq1 = _mm256_castsi256_ps(_mm256_cmpeq_epi32(l, _mm256_set1_epi32(1)));
  const __m256 eq2 = _mm256_castsi256_ps(_mm256_cmpeq_epi32(l, _mm256_set1_epi32(2)));
  const __m256 largest_value = select(eq0, c[0], select(eq1, c[1], select(eq2, c[2], c[3])));
  const __m256 negative = _mm256_cmp_ps(largest_value, _mm256_setzero_ps(), _CMP_LT_OQ);
  const __m256 s =
      _mm256_div_ps(_mm256_xor_ps(rot_scale, _mm256_and_ps(negative, sign)), _mm256_sqrt_ps(n2));
  // The k-th of the other three components is c[k + 1] where l <= k, else c[k].
  const __m256 le1 = _mm256_or_ps(eq0, eq1), le2 = _mm256_or_ps(le1, eq2);
  const __m256 others[3] = {select(eq0, c[1], c[0]), select(le1, c[2], c[1]),
                            select(le2, c[3], c[2])};
  const __m256 valid_f = _mm256_castsi256_ps(valid);
  QLanes8 q;
  __m256 exact_r[3];
  for (int i = 0; i < 3; ++i) {
    exact_r[i] = _mm256_and_ps(valid_f, _mm256_mul_ps(others[i], s));
    q.r[i] = _mm256_and_si256(valid, round_steps(exact_r[i], rot_limit));
  }
  q.largest = select(valid, l, _mm256_set1_epi32(3));

  // Translation and scale (quantize_joint), and whether the float comparisons are exact.
  const __m256 limit = _mm256_set1_ps(2.1e9f);
  __m256 exact_t[3], exact_s[3];
  __m256 in_range = _mm256_castsi256_ps(_mm256_set1_epi32(-1));
  __m256 pose_t[3], pose_s[3], rest_t[3], rest_s[3];
  load_translation_scale(pose.translation + j * stride, pose.scale + j * stride, stride, trs,
                         pose_t, pose_s);
  load_translation_scale(&layout.rest[j].t.x, &layout.rest[j].s.x, sizeof(Trs) / sizeof(float),
                         true, rest_t, rest_s);
  for (int i = 0; i < 3; ++i) {
    exact_t[i] = _mm256_mul_ps(_mm256_sub_ps(pose_t[i], rest_t[i]), t_scale);
    exact_s[i] = _mm256_mul_ps(_mm256_sub_ps(pose_s[i], rest_s[i]), s_scale);
    q.t[i] = round_steps(exact_t[i], limit);
    q.s[i] = round_steps(exact_s[i], limit);
    in_range = _mm256_and_ps(in_range, _mm256_and_ps(small(exact_t[i]), small(exact_s[i])));
    in_range = _mm256_and_ps(in_range, _mm256_cmp_ps(exact_r[i], exact_r[i], _CMP_EQ_OQ));
  }
  __m256i ok = _mm256_castps_si256(in_range);

  if (prev1) {
    const QLanes8 p1 = load8(prev1 + j);
    ok = _mm256_and_si256(ok, _mm256_and_si256(small(p1.t), small(p1.s)));
    const __m256i same1 = _mm256_cmpeq_epi32(p1.largest, q.largest);
    __m256i rot_second = _mm256_setzero_si256(), t_second = rot_second, s_second = rot_second;
    // Without a second frame the `second` masks are 0 and its lanes are never chosen: p1
    // stands in, by reference (a copy of ten vectors costs a block's worth of stalls).
    QLanes8 older;
    const QLanes8* p2 = &p1;
    if (prev2) {
      older = load8(prev2 + j);
      p2 = &older;
      ok = _mm256_and_si256(ok, _mm256_and_si256(small(older.t), small(older.s)));
      rot_second =
          _mm256_and_si256(_mm256_cmpeq_epi32(older.largest, q.largest), moving(p1.r, older.r));
      t_second = moving(p1.t, older.t);
      s_second = moving(p1.s, older.s);
    }
    const __m256i all = _mm256_set1_epi32(-1);
    for (int i = 0; i < 3; ++i) {
      pull(q.r[i], exact_r[i], p1.r[i], p2->r[i], rot_second, same1, rot_limit);
      pull(q.t[i], exact_t[i], p1.t[i], p2->t[i], t_second, all, limit);
      pull(q.s[i], exact_s[i], p1.s[i], p2->s[i], s_second, all, limit);
    }
  }
  if (_mm256_movemask_ps(_mm256_castsi256_ps(ok)) != 0xff) return false;
  store8(q, out + j);
  return true;
}

// Joints 0..n-1: groups of eight (a group quantize_eight declines as two groups of four), then
// the SSE2 path's tail.
ANIMCODEC_AVX2 void quantize_avx2(const Layout& layout, const PoseView& pose, size_t n,
                                  const QJoint* prev1, const QJoint* prev2, QJoint* out) {
  const bool trs = trs_layout(pose.translation, pose.rotation, pose.scale, pose.stride);
  size_t j = 0;
  for (; j + 8 <= n; j += 8) {
    if (quantize_eight(layout, pose, trs, j, prev1, prev2, out)) continue;
    quantize_four_or_one(layout, pose, trs, j, prev1, prev2, out);
    quantize_four_or_one(layout, pose, trs, j + 4, prev1, prev2, out);
  }
  quantize_sse2(layout, pose, j, n, prev1, prev2, out);
}

#endif  // ANIMCODEC_QUANTIZE_AVX2

#endif  // ANIMCODEC_QUANTIZE_SSE2

}  // namespace

bool quantize_path_available(QuantizePath path) {
  switch (path) {
    case QuantizePath::kScalar:
      return true;
    case QuantizePath::kSse2:
      return ANIMCODEC_QUANTIZE_SSE2;
    case QuantizePath::kAvx2:
      return ANIMCODEC_QUANTIZE_AVX2 && cpu_has_avx2();
  }
  return false;
}

bool quantize_pose_with(QuantizePath path, const Layout& layout, const PoseView& pose,
                        const QJoint* prev1, const QJoint* prev2, std::span<QJoint> out) {
  if (!quantize_path_available(path)) return false;
  const size_t n = std::min({pose.count, layout.num_joints(), out.size()});
  if (!prev1) prev2 = nullptr;
  if (n == 0) return true;  // an empty view's pointers are null: no arithmetic on them
  switch (path) {
#if ANIMCODEC_QUANTIZE_AVX2
    case QuantizePath::kAvx2:
      quantize_avx2(layout, pose, n, prev1, prev2, out.data());
      return true;
#endif
#if ANIMCODEC_QUANTIZE_SSE2
    case QuantizePath::kSse2:
      quantize_sse2(layout, pose, 0, n, prev1, prev2, out.data());
      return true;
#endif
    default:
      break;
  }
  for (size_t j = 0; j < n; ++j) quantize_scalar(layout, pose, j, prev1, prev2, out[j]);
  return true;
}

void quantize_pose(const Layout& layout, const PoseView& pose, const QJoint* prev1,
                   const QJoint* prev2, std::span<QJoint> out) {
  // Chosen once: the CPU does not change under the process.
  static const QuantizePath best =
      quantize_path_available(QuantizePath::kAvx2)   ? QuantizePath::kAvx2
      : quantize_path_available(QuantizePath::kSse2) ? QuantizePath::kSse2
                                                     : QuantizePath::kScalar;
  quantize_pose_with(best, layout, pose, prev1, prev2, out);
}

}  // namespace animcodec
