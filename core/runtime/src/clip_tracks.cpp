#include "anim/clip_tracks.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <map>

#include "anim/clip.h"
#include "quat4.h"

namespace anim {

namespace {

static_assert(sizeof(Transform) == 10 * sizeof(float), "ClipTimeline targets index floats");
// Rotation lanes are stored as x, y, z, w: glm's quaternion memory order (unless
// GLM_FORCE_QUAT_DATA_WXYZ, which this project does not set).
static_assert(offsetof(glm::quat, x) == 0 && offsetof(glm::quat, w) == 3 * sizeof(float));

// Float offsets of each property inside a Transform.
int32_t float_offset(const Transform& t, const void* field) {
  return static_cast<int32_t>(
      (static_cast<const char*>(field) - reinterpret_cast<const char*>(&t)) /
      static_cast<std::ptrdiff_t>(sizeof(float)));
}

struct Lane {
  int32_t channel;
  int32_t target;
};

// Channels that go into one timeline, before packing.
struct Group {
  std::vector<Lane> rotations;
  std::vector<Lane> vectors;
};

}  // namespace

size_t ClipTracks::memory_bytes() const {
  size_t n = loose.size() * sizeof(LooseChannel);
  for (const RestJoints* r : {&rest_translations, &rest_rotations, &rest_scales})
    n += r->joints.size() * sizeof(int32_t);
  for (const ClipTimeline& t : timelines)
    n += sizeof(ClipTimeline) + t.times.size() * sizeof(float) + t.lookup.memory_bytes() +
         t.values.size() * sizeof(float) +
         (t.rotation_targets.size() + t.vector_targets.size()) * sizeof(int32_t);
  return n;
}

ClipTracks ClipTracks::build(const Clip& clip, std::span<const uint8_t> detail) {
  const Transform probe;
  const int32_t kTranslation = float_offset(probe, &probe.translation);
  const int32_t kRotation = float_offset(probe, &probe.rotation);
  const int32_t kScale = float_offset(probe, &probe.scale);

  ClipTracks tracks;
  // Timelines keyed by their key times; std::map keeps the order of timelines deterministic.
  std::map<std::vector<float>, Group> groups;
  auto packable = [](const auto& channel) {
    return channel.interpolation == Interpolation::kLinear && channel.num_keys() >= 2;
  };
  const int num_joints = static_cast<int>(clip.joints.size());
  auto is_detail = [&](int32_t joint) {
    return static_cast<size_t>(joint) < detail.size() && detail[static_cast<size_t>(joint)] != 0;
  };
  // Per lane target: joint * 10 + offset.
  auto lane_is_detail = [&](const Lane& lane) { return is_detail(lane.target / 10); };
  for (int j = 0; j < num_joints; ++j) {
    const JointChannels& c = clip.joints[j];
    const int32_t base = j * 10;
    const std::pair<int32_t, int32_t> vectors[2] = {{c.translation, kTranslation},
                                                    {c.scale, kScale}};
    for (const auto& [channel, offset] : vectors) {
      if (channel < 0) {
        (offset == kScale ? tracks.rest_scales : tracks.rest_translations).joints.push_back(j);
        continue;
      }
      const Vec3Channel& v = clip.vec3_channels[channel];
      if (packable(v)) {
        groups[v.times].vectors.push_back({channel, base + offset});
      } else {
        tracks.loose.push_back({offset == kScale ? LooseChannel::Property::kScale
                                                 : LooseChannel::Property::kTranslation,
                                channel, j});
      }
    }
    if (c.rotation < 0) {
      tracks.rest_rotations.joints.push_back(j);
      continue;
    }
    const QuatChannel& q = clip.quat_channels[c.rotation];
    if (packable(q))
      groups[q.times].rotations.push_back({c.rotation, base + kRotation});
    else
      tracks.loose.push_back({LooseChannel::Property::kRotation, c.rotation, j});
  }

  // The non-detail joints' channels first (stable: joint order within each part).
  const auto coarse_end =
      std::stable_partition(tracks.loose.begin(), tracks.loose.end(),
                            [&](const LooseChannel& c) { return !is_detail(c.joint); });
  tracks.coarse_loose = static_cast<uint32_t>(coarse_end - tracks.loose.begin());
  for (RestJoints* r : {&tracks.rest_translations, &tracks.rest_rotations, &tracks.rest_scales}) {
    const auto coarse = std::stable_partition(r->joints.begin(), r->joints.end(),
                                              [&](int32_t j) { return !is_detail(j); });
    r->coarse = static_cast<uint32_t>(coarse - r->joints.begin());
  }
  // Key intervals over which a rotation channel moves too far for nlerp (quat4.h).
  auto wide_intervals = [&](const Lane& lane) {
    const std::vector<glm::quat>& keys = clip.quat_channels[lane.channel].values;
    size_t wide = 0;
    for (size_t k = 0; k + 1 < keys.size(); ++k)
      wide += !(std::abs(glm::dot(keys[k], keys[k + 1])) > simd::kNlerpMinDot);
    return wide;
  };
  for (auto& [times, group] : groups) {
    const auto coarse_lanes = [&](std::vector<Lane>& lanes) {
      const auto end = std::stable_partition(lanes.begin(), lanes.end(),
                                             [&](const Lane& l) { return !lane_is_detail(l); });
      return static_cast<uint32_t>((end - lanes.begin() + 3) / 4);
    };
    ClipTimeline t;
    t.coarse_rotation_blocks = coarse_lanes(group.rotations);
    // Within each part, the rotations that most often move too far for nlerp first: they
    // share blocks, and the other blocks interpolate by nlerp alone (sampling takes the slerp
    // path for a block, or a pair of blocks, only when one of its lanes needs it). Which lane
    // a channel takes changes no result.
    const auto detail_begin =
        std::partition_point(group.rotations.begin(), group.rotations.end(),
                             [&](const Lane& l) { return !lane_is_detail(l); });
    std::vector<size_t> wide(clip.quat_channels.size(), 0);
    for (const Lane& lane : group.rotations)
      wide[static_cast<size_t>(lane.channel)] = wide_intervals(lane);
    const auto widest_first = [&](const Lane& a, const Lane& b) {
      return wide[static_cast<size_t>(a.channel)] > wide[static_cast<size_t>(b.channel)];
    };
    std::stable_sort(group.rotations.begin(), detail_begin, widest_first);
    std::stable_sort(detail_begin, group.rotations.end(), widest_first);
    t.coarse_vector_blocks = coarse_lanes(group.vectors);
    t.times = times;
    t.lookup = KeyLookup(t.times);
    t.rotation_blocks = static_cast<uint32_t>((group.rotations.size() + 3) / 4);
    t.vector_blocks = static_cast<uint32_t>((group.vectors.size() + 3) / 4);
    t.floats_per_key = t.rotation_blocks * 16 + t.vector_blocks * 12;
    const size_t keys = times.size();
    t.values.assign(keys * t.floats_per_key, 0.0f);
    t.rotation_targets.assign(t.rotation_blocks * 4, -1);
    t.vector_targets.assign(t.vector_blocks * 4, -1);
    for (size_t k = 0; k < keys; ++k) {
      float* key = t.values.data() + k * t.floats_per_key;
      for (uint32_t lane = 0; lane < t.rotation_blocks * 4; ++lane) {
        float* block = key + (lane / 4) * 16 + lane % 4;
        if (lane < group.rotations.size()) {
          const glm::quat& q = clip.quat_channels[group.rotations[lane].channel].values[k];
          block[0] = q.x;
          block[4] = q.y;
          block[8] = q.z;
          block[12] = q.w;
        } else {
          block[12] = 1.0f;  // identity padding keeps the slerp of unused lanes finite
        }
      }
      float* vectors = key + t.rotation_blocks * 16;
      for (uint32_t lane = 0; lane < group.vectors.size(); ++lane) {
        float* block = vectors + (lane / 4) * 12 + lane % 4;
        const glm::vec3& v = clip.vec3_channels[group.vectors[lane].channel].values[k];
        block[0] = v.x;
        block[4] = v.y;
        block[8] = v.z;
      }
    }
    t.rotations_close = true;
    for (const Lane& lane : group.rotations)
      t.rotations_close = t.rotations_close && wide[static_cast<size_t>(lane.channel)] == 0;
    for (size_t lane = 0; lane < group.rotations.size(); ++lane)
      t.rotation_targets[lane] = group.rotations[lane].target;
    for (size_t lane = 0; lane < group.vectors.size(); ++lane)
      t.vector_targets[lane] = group.vectors[lane].target;
    tracks.timelines.push_back(std::move(t));
  }
  return tracks;
}

}  // namespace anim
