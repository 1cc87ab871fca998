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

QJoint quantize_joint(const Layout& layout, size_t joint, const glm::vec3& t, const glm::quat& r,
                      const glm::vec3& s) {
  const JointPrecision& p = layout.precision[joint];
  const Trs& rest = layout.rest[joint];
  QJoint q;
  quantize_rotation(r, p.rotation_bits, q.r, q.largest);
  const float ts = std::ldexp(1.0f, p.translation_exp);
  const float ss = std::ldexp(1.0f, p.scale_exp);
  constexpr double kLimit = 2147483647.0;
  for (int i = 0; i < 3; ++i) {
    q.t[i] = clamp_round<int32_t>((double{t[i]} - rest.t[i]) * ts, kLimit);
    q.s[i] = clamp_round<int32_t>((double{s[i]} - rest.s[i]) * ss, kLimit);
  }
  return q;
}

QRoot quantize_root(const glm::vec3& t, const glm::quat& r, const glm::vec3& s) {
  QRoot q;
  for (int i = 0; i < 3; ++i) {
    q.t[i] = clamp_round<int64_t>(std::ldexp(double{t[i]}, kRootTranslationExp), kRootLimit);
    q.s[i] = s[i];
  }
  quantize_rotation(r, kRootRotationBits, q.r, q.largest);
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
