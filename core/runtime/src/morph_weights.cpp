#include "anim/morph_weights.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace anim {

Status MorphWeightChannel::finalize(const std::string& what) {
  const size_t n = times.size();
  if (n == 0) return invalid_argument(what + ": channel has no keys");
  if (set < 0) return invalid_argument(what + ": negative morph set index");
  if (num_targets < 1) return invalid_argument(what + ": no morph targets");
  const size_t per_key =
      (interpolation == Interpolation::kCubicSpline ? 3u : 1u) * static_cast<size_t>(num_targets);
  if (values.size() != n * per_key)
    return invalid_argument(what + ": " + std::to_string(values.size()) + " values for " +
                            std::to_string(n) + " keys of " + std::to_string(num_targets) +
                            " targets (expected " + std::to_string(n * per_key) + ")");
  for (size_t i = 0; i < n; ++i) {
    if (!std::isfinite(times[i])) return invalid_argument(what + ": key time is NaN or infinite");
    if (i > 0 && times[i] < times[i - 1])
      return invalid_argument(what + ": key times decrease at key " + std::to_string(i));
  }
  if (times.front() < 0.0f) return invalid_argument(what + ": negative key time");
  for (float v : values)
    if (!std::isfinite(v)) return invalid_argument(what + ": key value is NaN or infinite");
  if (interpolation == Interpolation::kCubicSpline) {
    // As for Channel: each Hermite term is at most |p0|, |p1|, |m0| dt or |m1| dt, so a sum
    // well inside the float range keeps every sample finite.
    const size_t nt = static_cast<size_t>(num_targets);
    for (size_t i = 0; i + 1 < n; ++i) {
      const double dt = static_cast<double>(times[i + 1]) - times[i];
      const float* k0 = &values[3 * nt * i];
      const float* k1 = k0 + 3 * nt;
      for (size_t t = 0; t < nt; ++t) {
        const double bound = std::abs(double{k0[nt + t]}) + std::abs(double{k1[nt + t]}) +
                             (std::abs(double{k0[2 * nt + t]}) + std::abs(double{k1[t]})) * dt;
        if (!(bound <= 0.25 * std::numeric_limits<float>::max()))
          return invalid_argument(what + ": cubic spline weights and tangents between keys " +
                                  std::to_string(i) + " and " + std::to_string(i + 1) +
                                  " are too large to interpolate");
      }
    }
  }
  lookup = KeyLookup(times);
  return Status::ok();
}

int find_morph_channel(const Clip& clip, int set) {
  const auto& chs = clip.morph_channels;
  const auto it = std::lower_bound(chs.begin(), chs.end(), set,
                                   [](const MorphWeightChannel& c, int s) { return c.set < s; });
  return it != chs.end() && it->set == set ? static_cast<int>(it - chs.begin()) : -1;
}

void sample_morph_channel(const MorphWeightChannel& channel, float time, std::span<float> out) {
  const size_t nt = static_cast<size_t>(channel.num_targets);
  const size_t n = channel.times.size();
  const bool cubic = channel.interpolation == Interpolation::kCubicSpline;
  const float* values = channel.values.data();
  // The weights of key k (the middle third of a cubic key).
  auto key = [&](size_t k) { return values + (cubic ? 3 * nt * k + nt : nt * k); };
  auto copy_key = [&](size_t k) { std::copy_n(key(k), nt, out.begin()); };
  // `!(time > front)` also sends a NaN time to the first key.
  if (n == 1 || !(time > channel.times.front())) return copy_key(0);
  if (time >= channel.times.back()) return copy_key(n - 1);

  const uint32_t i = channel.lookup.find(channel.times, time);
  const float t0 = channel.times[i], t1 = channel.times[i + 1];
  const float dt = t1 - t0;
  const float u = dt > 0.0f ? (time - t0) / dt : 0.0f;
  switch (channel.interpolation) {
    case Interpolation::kStep:
      return copy_key(time >= t1 ? i + 1 : i);
    case Interpolation::kLinear: {
      const float* a = key(i);
      const float* b = key(i + 1);
      for (size_t t = 0; t < nt; ++t) out[t] = a[t] + (b[t] - a[t]) * u;
      return;
    }
    case Interpolation::kCubicSpline: {
      const float* k0 = values + 3 * nt * i;
      const float* k1 = k0 + 3 * nt;
      const float u2 = u * u, u3 = u2 * u;
      const float h00 = 2 * u3 - 3 * u2 + 1, h10 = u3 - 2 * u2 + u;
      const float h01 = -2 * u3 + 3 * u2, h11 = u3 - u2;
      for (size_t t = 0; t < nt; ++t) {
        const float p0 = k0[nt + t], m0 = k0[2 * nt + t] * dt;  // value, out-tangent of i
        const float p1 = k1[nt + t], m1 = k1[t] * dt;           // value, in-tangent of i + 1
        out[t] = h00 * p0 + h10 * m0 + h01 * p1 + h11 * m1;
      }
      return;
    }
  }
}

bool sample_morph_weights(const Clip& clip, const SkinnedMesh& mesh, int set, float time,
                          std::span<float> out) {
  if (set < 0 || set >= static_cast<int>(mesh.morph_sets.size())) return false;
  const MorphSet& ms = mesh.morph_sets[set];
  if (out.size() != ms.default_weights.size()) return false;
  const int c = find_morph_channel(clip, set);
  if (c < 0) {
    std::copy(ms.default_weights.begin(), ms.default_weights.end(), out.begin());
    return true;
  }
  const MorphWeightChannel& ch = clip.morph_channels[c];
  if (static_cast<size_t>(ch.num_targets) != out.size()) return false;
  sample_morph_channel(ch, time, out);
  return true;
}

}  // namespace anim
