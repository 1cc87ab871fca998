#include "anim/sampling_job.h"

#include <algorithm>

#include "anim/clip.h"
#include "quat4.h"
#include "sampling_avx2.h"
#include "simd_dispatch.h"

namespace anim {

namespace {

using simd::F4;

// The interval [key, key + 1] and the fraction u in [0, 1] of the way through it; or, with
// `held`, the value of `key` itself (before the first key or after the last: the key's value
// exactly, as Channel::sample gives it, not an interpolation that could flip a quaternion's
// sign or round its last bit).
struct Segment {
  uint32_t key;
  float u;
  bool held = false;
};

Segment find_segment(const ClipTimeline& tl, float t, uint32_t* cached) {
  const float* times = tl.times.data();
  const uint32_t n = static_cast<uint32_t>(tl.times.size());
  // `!(t > front)` also sends NaN to the first key.
  if (!(t > times[0])) return {0, 0.0f, true};
  if (t >= times[n - 1]) return {n - 1, 0.0f, true};
  uint32_t k;
  if (cached && *cached + 1 < n && times[*cached] <= t && t < times[*cached + 1]) {
    k = *cached;
  } else if (cached && *cached + 2 < n && times[*cached + 1] <= t && t < times[*cached + 2]) {
    k = *cached + 1;
  } else {
    k = tl.lookup.find(tl.times, t);
  }
  if (cached) *cached = k;
  const float dt = times[k + 1] - times[k];
  return {k, dt > 0.0f ? std::min((t - times[k]) / dt, 1.0f) : 0.0f};
}

// How much of a timeline one sample reads: every block, or the coarse prefix.
struct Extent {
  uint32_t rotation_blocks;
  uint32_t vector_blocks;
};

// The rest value of one property of the joints no channel animates (the detail joints' left
// out with skip_detail: unspecified).
template <auto Property>
void copy_rest(const RestJoints& r, bool skip_detail, std::span<const Transform> rest,
               std::span<Transform> output) {
  const size_t n = skip_detail ? r.coarse : r.joints.size();
  for (const int32_t j : std::span(r.joints).first(n))
    output[static_cast<size_t>(j)].*Property = rest[static_cast<size_t>(j)].*Property;
}

Extent extent_of(const ClipTimeline& tl, bool skip_detail) {
  return skip_detail ? Extent{tl.coarse_rotation_blocks, tl.coarse_vector_blocks}
                     : Extent{tl.rotation_blocks, tl.vector_blocks};
}

// One key's values written out as they are.
void copy_key(const ClipTimeline& tl, uint32_t key, Extent e, float* out) {
  const float* k = tl.values.data() + size_t{key} * tl.floats_per_key;
  const int32_t* target = tl.rotation_targets.data();
  for (uint32_t b = 0; b < e.rotation_blocks; ++b, k += 16, target += 4) {
    F4 x = simd::load(k), y = simd::load(k + 4), z = simd::load(k + 8), w = simd::load(k + 12);
    simd::transpose(x, y, z, w);
    const F4 lanes[4] = {x, y, z, w};
    for (int l = 0; l < 4; ++l)
      if (target[l] >= 0) simd::store(out + target[l], lanes[l]);
  }
  k = tl.values.data() + size_t{key} * tl.floats_per_key + size_t{tl.rotation_blocks} * 16;
  target = tl.vector_targets.data();
  for (uint32_t b = 0; b < e.vector_blocks; ++b, k += 12, target += 4) {
    F4 x = simd::load(k), y = simd::load(k + 4), z = simd::load(k + 8), w = simd::zero();
    simd::transpose(x, y, z, w);
    const F4 lanes[4] = {x, y, z, w};
    for (int l = 0; l < 4; ++l)
      if (target[l] >= 0) simd::store3(out + target[l], lanes[l]);
  }
}

void sample_timeline(const ClipTimeline& tl, Segment s, Extent e, float* out) {
  if (s.held) return copy_key(tl, s.key, e, out);
  const float* const key0 = tl.values.data() + size_t{s.key} * tl.floats_per_key;
  const float* k0 = key0;
  const float* k1 = k0 + tl.floats_per_key;
  const F4 u = simd::splat(s.u);
  const F4 v = simd::splat(1.0f - s.u);
  const int32_t* target = tl.rotation_targets.data();
  uint32_t b = 0;
#if defined(ANIM_HAVE_AVX2_VARIANTS)
  if (simd::wide_enabled()) {
    b = detail::sample_rotations_avx2(k0, k1, s.u, tl.rotations_close, target, e.rotation_blocks,
                                      out);
    k0 += size_t{b} * 16, k1 += size_t{b} * 16, target += size_t{b} * 4;
  }
#endif
  for (; b < e.rotation_blocks; ++b, k0 += 16, k1 += 16, target += 4) {
    const simd::Quat4 a{simd::load(k0), simd::load(k0 + 4), simd::load(k0 + 8),
                        simd::load(k0 + 12)};
    const simd::Quat4 c{simd::load(k1), simd::load(k1 + 4), simd::load(k1 + 8),
                        simd::load(k1 + 12)};
    simd::Quat4 q =
        tl.rotations_close ? simd::nlerp_shortest(a, c, u) : simd::slerp_shortest(a, c, u);
    simd::transpose(q.x, q.y, q.z, q.w);
    const F4 lanes[4] = {q.x, q.y, q.z, q.w};
    for (int l = 0; l < 4; ++l)
      if (target[l] >= 0) simd::store(out + target[l], lanes[l]);
  }
  k0 = key0 + size_t{tl.rotation_blocks} * 16;
  k1 = k0 + tl.floats_per_key;
  target = tl.vector_targets.data();
  for (uint32_t b = 0; b < e.vector_blocks; ++b, k0 += 12, k1 += 12, target += 4) {
    // a * (1 - u) + b * u, as glm::mix: exact at u = 0 and u = 1.
    F4 x = simd::load(k0) * v + simd::load(k1) * u;
    F4 y = simd::load(k0 + 4) * v + simd::load(k1 + 4) * u;
    F4 z = simd::load(k0 + 8) * v + simd::load(k1 + 8) * u;
    F4 w = simd::zero();
    simd::transpose(x, y, z, w);
    const F4 lanes[4] = {x, y, z, w};
    for (int l = 0; l < 4; ++l)
      if (target[l] >= 0) simd::store3(out + target[l], lanes[l]);
  }
}

}  // namespace

bool SamplingJob::validate() const {
  if (!clip) return false;
  const size_t n = clip->joints.size();
  if (rest.size() != n || output.size() != n) return false;
  if (n == 0) return true;
  const Transform* r0 = rest.data();
  const Transform* o0 = output.data();
  return r0 + n <= o0 || o0 + n <= r0;
}

bool SamplingJob::run() const {
  if (!validate()) return false;
  const ClipTracks& tracks = clip->tracks;
  copy_rest<&Transform::translation>(tracks.rest_translations, skip_detail, rest, output);
  copy_rest<&Transform::rotation>(tracks.rest_rotations, skip_detail, rest, output);
  copy_rest<&Transform::scale>(tracks.rest_scales, skip_detail, rest, output);
  float* out = reinterpret_cast<float*>(output.data());
  const bool use_cursor = cursor != nullptr;
  if (use_cursor && cursor->clip != clip) {
    cursor->clip = clip;
    std::fill(std::begin(cursor->key), std::end(cursor->key), 0u);
  }
  for (size_t i = 0; i < tracks.timelines.size(); ++i) {
    const ClipTimeline& tl = tracks.timelines[i];
    uint32_t* cached = use_cursor && i < SamplingCursor::kSlots ? &cursor->key[i] : nullptr;
    sample_timeline(tl, find_segment(tl, time, cached), extent_of(tl, skip_detail), out);
  }
  const size_t loose = skip_detail ? tracks.coarse_loose : tracks.loose.size();
  for (const LooseChannel& c : std::span(tracks.loose).first(loose)) {
    Transform& t = output[c.joint];
    switch (c.property) {
      case LooseChannel::Property::kTranslation:
        t.translation = clip->vec3_channels[c.channel].sample(time);
        break;
      case LooseChannel::Property::kRotation:
        t.rotation = clip->quat_channels[c.channel].sample(time);
        break;
      case LooseChannel::Property::kScale:
        t.scale = clip->vec3_channels[c.channel].sample(time);
        break;
    }
  }
  return true;
}

}  // namespace anim
