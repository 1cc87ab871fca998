// Quantization of local transforms and of the root, and the way back to floats.
#include <algorithm>
#include <cmath>

#include "animcodec/compact.h"
#include "codec_internal.h"

namespace animcodec {

namespace {

template <class T>
T clamp_round(double v, double limit) {
  if (!(v == v)) return 0;  // NaN: the daemon never has one; stay defined anyway
  return static_cast<T>(std::clamp(std::round(v), -limit, limit));
}

}  // namespace

int rotation_limit(int bits) {
  // floor(2^bits / sqrt(2)) + 1: the largest magnitude a non-largest component can round to.
  return static_cast<int>(std::floor(std::ldexp(0.70710678118654752, bits))) + 1;
}

void quantize_rotation_exact(double x, double y, double z, double w, int bits,
                             std::array<int16_t, 3>& r, uint8_t& largest) {
  double c[4] = {x, y, z, w};
  const double n = std::sqrt(x * x + y * y + z * z + w * w);
  if (!(n > 0.0) || !std::isfinite(n)) {
    c[0] = c[1] = c[2] = 0.0;
    c[3] = 1.0;
  } else {
    for (double& v : c) v /= n;
  }
  int l = 0;
  for (int i = 1; i < 4; ++i)
    if (std::fabs(c[i]) > std::fabs(c[l])) l = i;
  const double sign = c[l] < 0.0 ? -1.0 : 1.0;
  const double limit = rotation_limit(bits);
  int k = 0;
  for (int i = 0; i < 4; ++i)
    if (i != l) r[k++] = clamp_round<int16_t>(sign * c[i] * std::ldexp(1.0, bits), limit);
  largest = static_cast<uint8_t>(l);
}

void quantize_rotation(const glm::quat& q, int bits, std::array<int16_t, 3>& r, uint8_t& largest) {
  float c[4] = {q.x, q.y, q.z, q.w};
  const float n2 = c[0] * c[0] + c[1] * c[1] + c[2] * c[2] + c[3] * c[3];
  if (!(n2 > 0.0f) || !std::isfinite(n2)) {
    r = {0, 0, 0};
    largest = 3;
    return;
  }
  int l = 0;
  for (int i = 1; i < 4; ++i)
    if (std::fabs(c[i]) > std::fabs(c[l])) l = i;
  const float scale = (c[l] < 0.0f ? -1.0f : 1.0f) * std::ldexp(1.0f, bits) / std::sqrt(n2);
  const float limit = static_cast<float>(rotation_limit(bits));
  int k = 0;
  for (int i = 0; i < 4; ++i)
    if (i != l)
      r[k++] = static_cast<int16_t>(std::clamp(std::nearbyint(c[i] * scale), -limit, limit));
  largest = static_cast<uint8_t>(l);
}

namespace {

// Where a value's exact position (in steps) is within this of the prediction a delta frame
// will make, the prediction is taken instead of the nearest step: the error grows from half
// a step to this at most, and slow or steady channels stop costing rounding noise.
constexpr double kPredictionPull = 0.75;

int64_t prediction(int64_t a, int64_t b, bool second) {
  return second ? 2 * a - b : a;
}

// Snaps `q` (rounded from `exact`) to the prediction from a and b when it is close enough.
// Written without branches (here and below): whether a value is pulled or which way it
// rounds is noise to a branch predictor, and the mispredictions cost more than the math.
template <class T>
void pull(T& q, double exact, int64_t pred, double limit) {
  const auto p = static_cast<double>(pred);
  const bool take = (std::fabs(exact - p) <= kPredictionPull) & (std::fabs(p) <= limit);
  // A mask, not `take ? pred : q`: the compiler turns that into branches.
  const int64_t mask = -static_cast<int64_t>(take);
  q = static_cast<T>((pred & mask) | (int64_t{q} & ~mask));
}

template <class A>
bool moving(const A& a, const A& b) {
  bool any = false;
  for (size_t i = 0; i < a.size(); ++i) {
    const int64_t d = int64_t{a[i]} - int64_t{b[i]};
    any |= (d >= 3) | (d <= -3);
  }
  return any;
}

// Round half away from zero without a libm call, inside +-limit; NaN gives 0 (the daemon never
// has one; the conversion stays defined anyway).
inline int32_t round_steps(float x, float limit) {
  x = x == x ? x : 0.0f;
  x = std::min(std::max(x, -limit), limit);
  return static_cast<int32_t>(x + std::copysign(0.5f, x));
}

// Smallest-three with `scale` = 2^bits, also returning the unrounded components (in steps).
void rotation_steps(const glm::quat& q, float scale, float limit, std::array<int16_t, 3>& r,
                    uint8_t& largest, float exact[3]) {
  const float c[4] = {q.x, q.y, q.z, q.w};
  const float n2 = c[0] * c[0] + c[1] * c[1] + c[2] * c[2] + c[3] * c[3];
  if (!(n2 > 0.0f) || !(n2 < INFINITY)) {
    r = {0, 0, 0};
    largest = 3;
    exact[0] = exact[1] = exact[2] = 0.0f;
    return;
  }
  // The largest magnitude (the first of equals), chosen with selects: which component it is
  // varies from joint to joint, and a branch on it mispredicts.
  int l = 0;
  float m = std::fabs(c[0]);
  for (int i = 1; i < 4; ++i) {
    const float a = std::fabs(c[i]);
    l = a > m ? i : l;
    m = a > m ? a : m;
  }
  static constexpr uint8_t kOthers[4][3] = {{1, 2, 3}, {0, 2, 3}, {0, 1, 3}, {0, 1, 2}};
  const float s = (c[l] < 0.0f ? -scale : scale) / std::sqrt(n2);
  for (int k = 0; k < 3; ++k) {
    exact[k] = c[kOthers[l][k]] * s;
    r[k] = static_cast<int16_t>(round_steps(exact[k], limit));
  }
  largest = static_cast<uint8_t>(l);
}

// The encoder's prediction: extrapolated from a and b when the channel moves, else a.
template <class A, class E>
void pull_channel(A& q, const E exact[3], const A* a, const A* b, double limit) {
  if (!a) return;
  const bool second = b && moving(*a, *b);
  for (int i = 0; i < 3; ++i)
    pull(q[i], exact[i], prediction((*a)[i], second ? (*b)[i] : 0, second), limit);
}

}  // namespace

QJoint quantize_joint(const Layout& layout, size_t joint, const glm::vec3& t, const glm::quat& r,
                      const glm::vec3& s, const QJoint* prev1, const QJoint* prev2) {
  const Layout::Scales& k = layout.scales[joint];
  const Trs& rest = layout.rest[joint];
  QJoint q;
  float exact[3];
  rotation_steps(r, k.rotation, k.rotation_limit, q.r, q.largest, exact);
  if (prev1 && prev1->largest == q.largest) {
    const bool both = prev2 && prev2->largest == q.largest;
    pull_channel(q.r, exact, &prev1->r, both ? &prev2->r : nullptr, k.rotation_limit);
  }
  constexpr float kLimit = 2.1e9f;
  float et[3], es[3];
  for (int i = 0; i < 3; ++i) {
    et[i] = (t[i] - rest.t[i]) * k.translation;
    es[i] = (s[i] - rest.s[i]) * k.scale;
    q.t[i] = round_steps(et[i], kLimit);
    q.s[i] = round_steps(es[i], kLimit);
  }
  if (prev1) {
    pull_channel(q.t, et, &prev1->t, prev2 ? &prev2->t : nullptr, kLimit);
    pull_channel(q.s, es, &prev1->s, prev2 ? &prev2->s : nullptr, kLimit);
  }
  return q;
}

QRoot quantize_root(const glm::vec3& t, const glm::quat& r, const glm::vec3& s, const QRoot* prev1,
                    const QRoot* prev2) {
  QRoot q;
  double et[3];
  for (int i = 0; i < 3; ++i) {
    et[i] = std::ldexp(double{t[i]}, kRootTranslationExp);
    q.t[i] = clamp_round<int64_t>(et[i], kRootLimit);
    q.s[i] = s[i];
  }
  float er[3];
  rotation_steps(r, std::ldexp(1.0f, kRootRotationBits),
                 static_cast<float>(rotation_limit(kRootRotationBits)), q.r, q.largest, er);
  if (prev1) {
    // Root channels are extrapolated whenever two frames are held (no speed threshold).
    for (int i = 0; i < 3; ++i)
      pull(q.t[i], et[i], prediction(prev1->t[i], prev2 ? prev2->t[i] : 0, prev2 != nullptr),
           kRootLimit);
    // The encoder extrapolates a root rotation whenever the frames held share the largest
    // component (no speed threshold).
    if (prev1->largest == q.largest) {
      const bool second = prev2 && prev2->largest == q.largest;
      for (int i = 0; i < 3; ++i)
        pull(q.r[i], er[i], prediction(prev1->r[i], second ? prev2->r[i] : 0, second),
             rotation_limit(kRootRotationBits));
    }
  }
  return q;
}

glm::quat dequantize_rotation(const std::array<int16_t, 3>& r, uint8_t largest, int bits) {
  float c[4];
  float sum = 0.0f;
  int k = 0;
  for (int i = 0; i < 4; ++i) {
    if (i == largest) continue;
    c[i] = std::ldexp(static_cast<float>(r[k++]), -bits);
    sum += c[i] * c[i];
  }
  c[largest & 3] = std::sqrt(std::max(0.0f, 1.0f - sum));
  const glm::quat q(c[3], c[0], c[1], c[2]);
  return glm::normalize(q);
}

Trs dequantize_joint(const Layout& layout, size_t joint, const QJoint& q) {
  const JointPrecision& p = layout.precision[joint];
  const Trs& rest = layout.rest[joint];
  Trs out;
  out.r = dequantize_rotation(q.r, q.largest, p.rotation_bits);
  for (int i = 0; i < 3; ++i) {
    out.t[i] = rest.t[i] + std::ldexp(static_cast<float>(q.t[i]), -p.translation_exp);
    out.s[i] = rest.s[i] + std::ldexp(static_cast<float>(q.s[i]), -p.scale_exp);
  }
  return out;
}

Trs dequantize_root(const QRoot& q) {
  Trs out;
  for (int i = 0; i < 3; ++i) {
    out.t[i] = static_cast<float>(std::ldexp(static_cast<double>(q.t[i]), -kRootTranslationExp));
    out.s[i] = q.s[i];
  }
  out.r = dequantize_rotation(q.r, q.largest, kRootRotationBits);
  return out;
}

}  // namespace animcodec
