// quat4.h (core-internal 4-wide quaternion math): slerp_shortest against a slerp computed in
// double precision on random pairs at every angle, the nlerp rule where |dot| > 0.9995, and
// the sin / atan polynomials against std::sin / std::atan over the ranges slerp uses them on.
#include "quat4.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <numbers>
#include <random>
#include <string>
#include <tuple>
#include <utility>

#include <gtest/gtest.h>

namespace anim::simd {
namespace quat4_test {

constexpr double kPiD = std::numbers::pi;

std::array<float, 4> lanes(F4 a) {
  std::array<float, 4> out;
  store(out.data(), a);
  return out;
}

// One quaternion as x, y, z, w (glm's memory order, the order the jobs pack).
struct Q {
  float x, y, z, w;
};

Quat4 pack(const std::array<Q, 4>& q) {
  return {set(q[0].x, q[1].x, q[2].x, q[3].x), set(q[0].y, q[1].y, q[2].y, q[3].y),
          set(q[0].z, q[1].z, q[2].z, q[3].z), set(q[0].w, q[1].w, q[2].w, q[3].w)};
}

std::array<Q, 4> unpack(const Quat4& q) {
  const auto x = lanes(q.x), y = lanes(q.y), z = lanes(q.z), w = lanes(q.w);
  std::array<Q, 4> out;
  for (int l = 0; l < 4; ++l) out[l] = {x[l], y[l], z[l], w[l]};
  return out;
}

// dot(a, b) in float, summed in the order quat4.h sums it: its sign decides which of two
// equally short arcs (dot exactly 0: the rotations are 180 degrees apart) is taken.
float float_dot(const Q& a, const Q& b) {
  return ((a.x * b.x + a.y * b.y) + a.z * b.z) + a.w * b.w;
}

double double_dot(const Q& a, const Q& b) {
  return double{a.x} * b.x + double{a.y} * b.y + double{a.z} * b.z + double{a.w} * b.w;
}

// The reference: b moved into a's hemisphere, then either the exact slerp (angle from atan2,
// accurate at every angle) or, with `nlerp`, the normalized lerp; all in double.
std::array<double, 4> reference(const Q& a, const Q& b_in, float u, bool nlerp) {
  const double s = std::signbit(float_dot(a, b_in)) ? -1.0 : 1.0;
  const double av[4] = {a.x, a.y, a.z, a.w};
  const double bv[4] = {s * b_in.x, s * b_in.y, s * b_in.z, s * b_in.w};
  double wa = 1.0 - u, wb = u;
  if (!nlerp) {
    double diff = 0.0, sum = 0.0;
    for (int i = 0; i < 4; ++i) {
      diff += (av[i] - bv[i]) * (av[i] - bv[i]);
      sum += (av[i] + bv[i]) * (av[i] + bv[i]);
    }
    const double theta = 2.0 * std::atan2(std::sqrt(diff), std::sqrt(sum));
    if (theta > 0.0) {
      wa = std::sin((1.0 - u) * theta);
      wb = std::sin(u * theta);
    }
  }
  std::array<double, 4> r;
  double len2 = 0.0;
  for (int i = 0; i < 4; ++i) {
    r[i] = av[i] * wa + bv[i] * wb;
    len2 += r[i] * r[i];
  }
  for (double& c : r) c /= std::sqrt(len2);
  return r;
}

double max_error(const Q& got, const std::array<double, 4>& want) {
  return std::max({std::abs(got.x - want[0]), std::abs(got.y - want[1]), std::abs(got.z - want[2]),
                   std::abs(got.w - want[3])});
}

Q to_float(const double q[4]) {
  const double len = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  return {static_cast<float>(q[0] / len), static_cast<float>(q[1] / len),
          static_cast<float>(q[2] / len), static_cast<float>(q[3] / len)};
}

// a * (rotation by `angle` about a random axis): the two are `angle` apart as rotations, so
// dot(a, b) = cos(angle / 2).
Q rotated(const Q& a, double angle, std::mt19937& rng) {
  std::normal_distribution<double> normal;
  double axis[3] = {normal(rng), normal(rng), normal(rng)};
  const double n = std::sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
  const double s = std::sin(angle / 2) / n, c = std::cos(angle / 2);
  const double r[4] = {axis[0] * s, axis[1] * s, axis[2] * s, c};  // x y z w
  const double b[4] = {
      double{a.w} * r[0] + a.x * r[3] + a.y * r[2] - a.z * r[1],
      double{a.w} * r[1] - a.x * r[2] + a.y * r[3] + a.z * r[0],
      double{a.w} * r[2] + a.x * r[1] - a.y * r[0] + a.z * r[3],
      double{a.w} * r[3] - a.x * r[0] - a.y * r[1] - a.z * r[2],
  };
  return to_float(b);
}

Q random_unit(std::mt19937& rng) {
  std::normal_distribution<double> normal;
  const double q[4] = {normal(rng), normal(rng), normal(rng), normal(rng)};
  return to_float(q);
}

Q negated(const Q& q) {
  return {-q.x, -q.y, -q.z, -q.w};
}

// A pair of the given kind; kinds cycle through every situation slerp has to handle.
std::pair<Q, Q> make_pair(int kind, std::mt19937& rng) {
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  const Q a = random_unit(rng);
  switch (kind) {
    case 0:  // unrelated: mostly large angles, either hemisphere
      return {a, random_unit(rng)};
    case 1:  // any angle in [0, 2 pi): dot(a, b) covers [-1, 1]
      return {a, rotated(a, 2.0 * kPiD * uniform(rng), rng)};
    case 2:  // the same, stored in the opposite hemisphere
      return {a, negated(rotated(a, 2.0 * kPiD * uniform(rng), rng))};
    case 3:  // identical
      return {a, a};
    case 4:  // the same rotation, opposite sign (dot = -1)
      return {a, negated(a)};
    case 5:  // 180 degrees apart: dot exactly 0 in float
      return {a, {-a.y, a.x, -a.w, a.z}};
    case 6: {  // nearly identical: 1e-7 to 1e-2 rad apart, either sign
      const Q b = rotated(a, std::pow(10.0, -7.0 + 5.0 * uniform(rng)), rng);
      return {a, uniform(rng) < 0.5 ? b : negated(b)};
    }
    default: {  // around the nlerp threshold: dot in [0.999, 0.9999], either sign
      const double half = std::acos(0.999 + 0.0009 * uniform(rng));
      const Q b = rotated(a, 2.0 * half, rng);
      return {a, uniform(rng) < 0.5 ? b : negated(b)};
    }
  }
}

TEST(Quat4, SlerpMatchesDoublePrecisionSlerpAndNlerpAboveTheThreshold) {
  std::mt19937 rng(20240612);
  std::uniform_real_distribution<float> unit_interval(0.0f, 1.0f);
  int slerped = 0, nlerped = 0, opposite = 0;
  double worst_slerp = 0.0, worst_nlerp = 0.0;
  for (int call = 0; call < 20000; ++call) {
    // Four different pairs per call, each lane of a different kind, so that one block mixes
    // lanes that take the nlerp rule with lanes that do not.
    std::array<Q, 4> a, b;
    float u[4];
    for (int l = 0; l < 4; ++l) {
      std::tie(a[l], b[l]) = make_pair((call * 4 + l + call / 8) % 8, rng);
      u[l] = (call + l) % 13 == 0 ? 0.0f : (call + l) % 13 == 1 ? 1.0f : unit_interval(rng);
    }
    const F4 uf = set(u[0], u[1], u[2], u[3]);
    const auto got = unpack(slerp_shortest(pack(a), pack(b), uf));
    const auto by_nlerp = unpack(nlerp_shortest(pack(a), pack(b), uf));
    for (int l = 0; l < 4; ++l) {
      const double d = std::abs(double_dot(a[l], b[l]));
      if (std::abs(d - kNlerpMinDot) < 1e-6) continue;  // float and double may disagree here
      if (double_dot(a[l], b[l]) < 0.0) ++opposite;
      if (d > kNlerpMinDot) {
        // Equal to the normalized lerp: bit for bit to nlerp_shortest, and to double precision.
        ++nlerped;
        EXPECT_EQ(std::memcmp(&got[l], &by_nlerp[l], sizeof(Q)), 0) << "call " << call;
        const double e = max_error(got[l], reference(a[l], b[l], u[l], true));
        worst_nlerp = std::max(worst_nlerp, e);
        EXPECT_LE(e, 2e-7) << "call " << call << " lane " << l << " dot " << d;
      } else {
        ++slerped;
        const double e = max_error(got[l], reference(a[l], b[l], u[l], false));
        worst_slerp = std::max(worst_slerp, e);
        EXPECT_LE(e, 2e-7) << "call " << call << " lane " << l << " dot " << d << " u " << u[l];
      }
    }
  }
  // The test covers both rules and both hemispheres many times over.
  EXPECT_GT(slerped, 30000);
  EXPECT_GT(nlerped, 15000);
  EXPECT_GT(opposite, 20000);
  RecordProperty("worst_slerp_error", std::to_string(worst_slerp));
  RecordProperty("worst_nlerp_error", std::to_string(worst_nlerp));
}

TEST(Quat4, SlerpHandComputedAboutZ) {
  // Identity to 90 degrees about z: quaternion (0, 0, sin 45, cos 45). Lane l interpolates at
  // u = 0, 0.25, 0.5, 1: rotations of 0, 22.5, 45 and 90 degrees, whose quaternions are
  // (0, 0, sin(angle / 2), cos(angle / 2)).
  const float h = static_cast<float>(std::sqrt(0.5));
  const Q id{0, 0, 0, 1}, z90{0, 0, h, h};
  const float u[4] = {0.0f, 0.25f, 0.5f, 1.0f};
  const double half_angles[4] = {0.0, kPiD / 16, kPiD / 8, kPiD / 4};
  const F4 uf = set(u[0], u[1], u[2], u[3]);
  // The second key as stored, and negated (the same rotation): both take the short way.
  for (const Q& b : {z90, negated(z90)}) {
    const auto got = unpack(slerp_shortest(pack({id, id, id, id}), pack({b, b, b, b}), uf));
    for (int l = 0; l < 4; ++l) {
      SCOPED_TRACE(testing::Message() << "lane " << l << " b.w " << b.w);
      EXPECT_NEAR(got[l].x, 0.0f, 1e-7f);
      EXPECT_NEAR(got[l].y, 0.0f, 1e-7f);
      EXPECT_NEAR(got[l].z, std::sin(half_angles[l]), 1e-7);
      EXPECT_NEAR(got[l].w, std::cos(half_angles[l]), 1e-7);  // a's hemisphere: w > 0
    }
  }
  // 270 degrees about z is -90 degrees the short way: halfway is -45 degrees.
  const float c135 = static_cast<float>(std::cos(0.75 * kPiD));
  const float s135 = static_cast<float>(std::sin(0.75 * kPiD));
  const auto wide =
      unpack(slerp_shortest(pack({id, id, id, id}), pack({Q{0, 0, s135, c135}, z90, z90, z90}),
                            set(0.5f, 0.5f, 0.5f, 0.5f)));
  EXPECT_NEAR(wide[0].z, -std::sin(kPiD / 8), 1e-7);
  EXPECT_NEAR(wide[0].w, std::cos(kPiD / 8), 1e-7);
  EXPECT_NEAR(wide[1].z, std::sin(kPiD / 8), 1e-7);  // the other lanes are not disturbed
}

TEST(Quat4, NlerpTakesTheShortWay) {
  // Identity and -(2 degrees about x): the midpoint of the normalized lerp is exactly 1 degree.
  const Q id{0, 0, 0, 1};
  const Q b = negated(
      {static_cast<float>(std::sin(kPiD / 180)), 0, 0, static_cast<float>(std::cos(kPiD / 180))});
  const auto got = unpack(
      nlerp_shortest(pack({id, id, id, id}), pack({b, b, id, b}), set(0.5f, 1.0f, 0.5f, 0.0f)));
  EXPECT_NEAR(got[0].x, std::sin(kPiD / 360), 1e-7);
  EXPECT_NEAR(got[0].w, std::cos(kPiD / 360), 1e-7);
  EXPECT_NEAR(got[1].x, std::sin(kPiD / 180), 1e-7);  // u = 1: b moved to a's side
  EXPECT_NEAR(got[1].w, std::cos(kPiD / 180), 1e-7);
  EXPECT_EQ(got[2].w, 1.0f);
  EXPECT_EQ(got[3].w, 1.0f);
  EXPECT_EQ(got[3].x, 0.0f);
}

// sin over [0, pi/2] (slerp's angles, theta <= pi/2 after the hemisphere flip). Near pi/2 the
// result is close to 1, where one float ulp is 1.2e-7; there the error reaches 1.7e-7
// (rounding in the evaluation, not the series: one more term still leaves 1.25e-7).
TEST(Quat4, SinPolynomialMatchesStdSin) {
  constexpr int kSteps = 200000;
  const float top = static_cast<float>(kPiD / 2);
  double worst_abs = 0.0, worst_low_abs = 0.0, worst_rel = 0.0;
  for (int i = 0; i <= kSteps; i += 4) {
    float x[4];
    for (int l = 0; l < 4; ++l) x[l] = std::min(top, top * static_cast<float>(i + l) / kSteps);
    const auto got = lanes(sin_0_half_pi(set(x[0], x[1], x[2], x[3])));
    for (int l = 0; l < 4; ++l) {
      const double want = std::sin(double{x[l]});
      const double e = std::abs(got[l] - want);
      worst_abs = std::max(worst_abs, e);
      if (x[l] <= 1.25f) worst_low_abs = std::max(worst_low_abs, e);
      if (x[l] > 0.0f && x[l] <= 1.0f) worst_rel = std::max(worst_rel, e / want);
    }
  }
  EXPECT_LE(worst_abs, 2e-7);
  EXPECT_LE(worst_low_abs, 1e-7);
  EXPECT_LE(worst_rel, 1e-7);
  // Tiny angles (nearly identical keys): relative accuracy, not just absolute.
  for (float x = 1e-30f; x < 1e-2f; x *= 1.37f) {
    const float got = lanes(sin_0_half_pi(splat(x)))[0];
    EXPECT_LE(std::abs(got - std::sin(double{x})), 1e-7 * x) << x;
  }
  EXPECT_EQ(lanes(sin_0_half_pi(splat(0.0f)))[0], 0.0f);
}

// atan over [0, 1] (the ratio |a - b| / |a + b|), including both sides of the argument
// reduction at tan(pi/8).
TEST(Quat4, AtanPolynomialMatchesStdAtan) {
  constexpr int kSteps = 200000;
  double worst = 0.0;
  for (int i = 0; i <= kSteps; i += 4) {
    float y[4];
    for (int l = 0; l < 4; ++l) y[l] = std::min(1.0f, static_cast<float>(i + l) / kSteps);
    const auto got = lanes(atan_0_1(set(y[0], y[1], y[2], y[3])));
    for (int l = 0; l < 4; ++l) worst = std::max(worst, std::abs(got[l] - std::atan(double{y[l]})));
  }
  EXPECT_LE(worst, 1e-7);
  const float edge = 0.41421356f;
  for (float y :
       {std::nextafter(edge, 0.0f), edge, std::nextafter(edge, 1.0f), 0.0f, 1.0f, 1e-20f, 1e-4f}) {
    EXPECT_NEAR(lanes(atan_0_1(splat(y)))[0], std::atan(double{y}), 1e-7) << y;
  }
  EXPECT_EQ(lanes(atan_0_1(splat(0.0f)))[0], 0.0f);
}

}  // namespace quat4_test
}  // namespace anim::simd
