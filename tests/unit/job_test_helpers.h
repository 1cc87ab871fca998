#pragma once
// Helpers shared by the job tests (sampling_job_test.cpp, blend_job_test.cpp, ...): sentinel
// fills that show whether a refused job wrote anything, bitwise comparison, and rotation
// comparison that ignores the quaternion sign (q and -q are the same rotation) but not
// anything else.

#include <algorithm>
#include <cmath>
#include <cstring>
#include <span>
#include <type_traits>

#include <gtest/gtest.h>
#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>

#include "anim/transform.h"

namespace animtest {

// Every byte 0x5a: 1.5e16 as a float, a value no job writes by accident.
constexpr unsigned char kSentinelByte = 0x5a;

template <class T>
void fill_sentinel(std::span<T> items) {
  // Plain floats (glm's types are standard layout, though not trivially copyable).
  static_assert(std::is_standard_layout_v<T>);
  std::memset(static_cast<void*>(items.data()), kSentinelByte, items.size_bytes());
}

template <class T>
bool all_sentinel(std::span<const T> items) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(items.data());
  for (size_t i = 0; i < items.size_bytes(); ++i)
    if (bytes[i] != kSentinelByte) return false;
  return true;
}

template <class T>
bool same_bits(const T& a, const T& b) {
  // Plain floats (glm's types are standard layout, though not trivially copyable).
  static_assert(std::is_standard_layout_v<T>);
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// Rotation `got` equals `want` component by component within eps after flipping `got` into
// `want`'s hemisphere. (|dot| close to 1 would be far weaker: 1 - |dot| is only angle^2 / 8.)
inline void expect_same_rotation(const glm::quat& got, const glm::quat& want, float eps) {
  const glm::quat g = glm::dot(got, want) < 0.0f ? -got : got;
  EXPECT_NEAR(g.x, want.x, eps) << "got (x y z w) " << got.x << " " << got.y << " " << got.z << " "
                                << got.w << ", want " << want.x << " " << want.y << " " << want.z
                                << " " << want.w;
  EXPECT_NEAR(g.y, want.y, eps);
  EXPECT_NEAR(g.z, want.z, eps);
  EXPECT_NEAR(g.w, want.w, eps);
}

// The largest component difference after the same sign alignment.
inline float rotation_error(const glm::quat& got, const glm::quat& want) {
  const glm::quat g = glm::dot(got, want) < 0.0f ? -got : got;
  return std::max({std::abs(g.x - want.x), std::abs(g.y - want.y), std::abs(g.z - want.z),
                   std::abs(g.w - want.w)});
}

inline void expect_vec3_near(const glm::vec3& got, const glm::vec3& want, float eps) {
  EXPECT_NEAR(got.x, want.x, eps);
  EXPECT_NEAR(got.y, want.y, eps);
  EXPECT_NEAR(got.z, want.z, eps);
}

// `degrees` about `axis` (normalized here).
inline glm::quat about(glm::vec3 axis, double degrees) {
  return glm::angleAxis(static_cast<float>(degrees * 3.14159265358979323846 / 180.0),
                        glm::normalize(axis));
}

}  // namespace animtest
