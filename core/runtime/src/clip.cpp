#include "anim/clip.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "anim/sampling_job.h"

namespace anim {

namespace {

glm::vec3 lerp_value(const glm::vec3& a, const glm::vec3& b, float u) {
  return glm::mix(a, b, u);
}
glm::quat lerp_value(const glm::quat& a, const glm::quat& b, float u) {
  return slerp_shortest(a, b, u);
}

// `fallback` is the segment's first key (unit for rotations), used when a cubic rotation
// comes out as zero. Dividing by the largest component first keeps huge rotations from
// overflowing the length (which turned them into zero or NaN: found by fuzz/gltf_fuzz.cpp).
glm::vec3 finish(const glm::vec3& v, const glm::vec3&) {
  return v;
}
glm::quat finish(const glm::quat& q, const glm::quat& fallback) {
  const float m = std::max({std::abs(q.w), std::abs(q.x), std::abs(q.y), std::abs(q.z)});
  if (!(m > 0.0f)) return fallback;
  return glm::normalize(q / m);
}

// Largest absolute component (vec3 and quat alike).
template <class V>
float max_abs(const V& v) {
  float m = 0.0f;
  for (int c = 0; c < V::length(); ++c) m = std::max(m, std::abs(v[c]));
  return m;
}

bool finite_value(const glm::vec3& v) {
  return is_finite(v);
}
bool finite_value(const glm::quat& q) {
  return is_finite(q);
}

// Hermite basis on values of type V (glm::quat supports + and scalar *).
template <class V>
V hermite(const V& p0, const V& m0, const V& p1, const V& m1, float u) {
  const float u2 = u * u, u3 = u2 * u;
  return p0 * (2 * u3 - 3 * u2 + 1) + m0 * (u3 - 2 * u2 + u) + p1 * (-2 * u3 + 3 * u2) +
         m1 * (u3 - u2);
}

}  // namespace

template <class V>
Status Channel<V>::finalize(const std::string& what) {
  const size_t n = times.size();
  if (n == 0) return invalid_argument(what + ": channel has no keys");
  const size_t per_key = interpolation == Interpolation::kCubicSpline ? 3 : 1;
  if (values.size() != n * per_key)
    return invalid_argument(what + ": " + std::to_string(values.size()) + " values for " +
                            std::to_string(n) + " keys (expected " + std::to_string(n * per_key) +
                            ")");
  for (size_t i = 0; i < n; ++i) {
    if (!std::isfinite(times[i])) return invalid_argument(what + ": key time is NaN or infinite");
    if (i > 0 && times[i] < times[i - 1])
      return invalid_argument(what + ": key times decrease at key " + std::to_string(i));
  }
  if (times.front() < 0.0f) return invalid_argument(what + ": negative key time");
  for (const V& v : values)
    if (!finite_value(v)) return invalid_argument(what + ": key value is NaN or infinite");
  if (per_key == 3) {
    // Each term of a Hermite segment is at most |p0|, |p1|, |m0| dt or |m1| dt in size, so when
    // their sum stays well inside the float range no sample can overflow to infinity.
    // Rotation values count as 1: they are normalized below.
    auto value_size = [](const V& v) -> double {
      return std::is_same_v<V, glm::quat> ? 1.0 : max_abs(v);
    };
    for (size_t i = 0; i + 1 < n; ++i) {
      const double dt = static_cast<double>(times[i + 1]) - times[i];
      const double bound = value_size(values[3 * i + 1]) + value_size(values[3 * i + 4]) +
                           (double{max_abs(values[3 * i + 2])} + max_abs(values[3 * i + 3])) * dt;
      if (!(bound <= 0.25 * std::numeric_limits<float>::max()))
        return invalid_argument(what + ": cubic spline values and tangents between keys " +
                                std::to_string(i) + " and " + std::to_string(i + 1) +
                                " are too large to interpolate");
    }
  }
  if constexpr (std::is_same_v<V, glm::quat>) {
    // Check every key before normalizing any, so that a rejected channel is left unchanged.
    const size_t value_offset = per_key == 3 ? 1 : 0;
    // Lengths are taken after dividing by the largest component: squaring components above
    // ~1.8e19 overflows, and dividing by that infinite length gave zero quaternions.
    for (size_t i = 0; i < n; ++i) {
      const glm::quat& q = values[i * per_key + value_offset];
      const float m = max_abs(q);
      if (!(m > 0.0f) || !(m * glm::length(q / m) > 1e-6f))
        return invalid_argument(what + ": zero-length rotation key " + std::to_string(i));
    }
    for (size_t i = 0; i < n; ++i) {
      glm::quat& q = values[i * per_key + value_offset];
      q = glm::normalize(q / max_abs(q));
    }
  }
  lookup = KeyLookup(times);
  return Status::ok();
}

template <class V>
V Channel<V>::sample(float t) const {
  const int n = num_keys();
  const bool cubic = interpolation == Interpolation::kCubicSpline;
  auto value_at = [&](int k) -> const V& { return values[cubic ? 3 * k + 1 : k]; };
  // `!(t > front)` also sends a NaN time to the first key instead of interpolating NaN.
  if (n == 1 || !(t > times.front())) return value_at(0);
  if (t >= times.back()) return value_at(n - 1);

  const uint32_t i = lookup.find(times, t);
  const float t0 = times[i], t1 = times[i + 1];
  const float dt = t1 - t0;
  switch (interpolation) {
    case Interpolation::kStep:
      return value_at(t >= t1 ? i + 1 : i);
    case Interpolation::kLinear: {
      const float u = dt > 0.0f ? (t - t0) / dt : 0.0f;
      return lerp_value(value_at(i), value_at(i + 1), u);
    }
    case Interpolation::kCubicSpline: {
      const float u = dt > 0.0f ? (t - t0) / dt : 0.0f;
      const V& p0 = values[3 * i + 1];
      const V m0 = values[3 * i + 2] * dt;  // out-tangent of key i
      const V& p1 = values[3 * (i + 1) + 1];
      const V m1 = values[3 * (i + 1)] * dt;  // in-tangent of key i+1
      return finish(hermite(p0, m0, p1, m1, u), p0);
    }
  }
  return value_at(i);
}

template struct Channel<glm::vec3>;
template struct Channel<glm::quat>;

Status Clip::finalize(int num_joints) {
  if (static_cast<int>(joints.size()) != num_joints)
    return invalid_argument("clip '" + name + "': has tracks for " + std::to_string(joints.size()) +
                            " joints, the skeleton has " + std::to_string(num_joints));
  const int nv = static_cast<int>(vec3_channels.size());
  const int nq = static_cast<int>(quat_channels.size());
  for (const JointChannels& j : joints) {
    if (j.translation >= nv || j.scale >= nv || j.rotation >= nq || j.translation < -1 ||
        j.scale < -1 || j.rotation < -1)
      return invalid_argument("clip '" + name + "': channel index out of range");
  }
  duration = 0.0f;
  for (int i = 0; i < nv; ++i) {
    if (Status s = vec3_channels[i].finalize("clip '" + name + "' channel " + std::to_string(i));
        !s)
      return s;
    duration = std::max(duration, vec3_channels[i].times.back());
  }
  for (int i = 0; i < nq; ++i) {
    if (Status s =
            quat_channels[i].finalize("clip '" + name + "' rotation channel " + std::to_string(i));
        !s)
      return s;
    duration = std::max(duration, quat_channels[i].times.back());
  }
  for (size_t i = 0; i < morph_channels.size(); ++i) {
    const MorphWeightChannel& ch = morph_channels[i];
    if (i > 0 && ch.set <= morph_channels[i - 1].set)
      return invalid_argument("clip '" + name +
                              "': morph weight channels are not in increasing set order");
    if (Status s = morph_channels[i].finalize("clip '" + name + "' morph weight channel " +
                                              std::to_string(i));
        !s)
      return s;
    duration = std::max(duration, ch.times.back());
  }
  tracks = ClipTracks::build(*this);
  return Status::ok();
}

size_t Clip::memory_bytes() const {
  size_t n = joints.size() * sizeof(joints[0]) + tracks.memory_bytes();
  for (const auto& ch : vec3_channels)
    n += ch.times.size() * sizeof(float) + ch.values.size() * sizeof(ch.values[0]) +
         ch.lookup.memory_bytes();
  for (const auto& ch : quat_channels)
    n += ch.times.size() * sizeof(float) + ch.values.size() * sizeof(ch.values[0]) +
         ch.lookup.memory_bytes();
  for (const auto& ch : morph_channels)
    n += ch.times.size() * sizeof(float) + ch.values.size() * sizeof(float) +
         ch.lookup.memory_bytes();
  return n;
}

Transform Clip::sample_joint(int joint, float time, const Transform& rest) const {
  const JointChannels& c = joints[joint];
  Transform t = rest;
  if (c.translation >= 0) t.translation = vec3_channels[c.translation].sample(time);
  if (c.rotation >= 0) t.rotation = quat_channels[c.rotation].sample(time);
  if (c.scale >= 0) t.scale = vec3_channels[c.scale].sample(time);
  return t;
}

void Clip::sample(float time, std::span<const Transform> rest, std::span<Transform> out) const {
  SamplingJob job;
  job.clip = this;
  job.time = time;
  job.rest = rest;
  job.output = out;
  if (job.run()) return;
  // When `rest` and `out` overlap (the job refuses that): joint by joint, as far as the
  // spans go (a size mismatch writes nothing past either).
  const size_t n = std::min({joints.size(), rest.size(), out.size()});
  for (size_t j = 0; j < n; ++j) out[j] = sample_joint(static_cast<int>(j), time, rest[j]);
}

}  // namespace anim
