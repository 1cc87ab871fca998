#pragma once
// Interpolation between two received poses of a character: skin palettes (12 floats per
// joint, the top three rows of each skin matrix, row-major) and root transforms. No GL.

#include <cstddef>

#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>

#include "anim/v1/types.pb.h"

namespace animview {

inline constexpr size_t kFloatsPerJoint = 12;  // 3 rows x 4 columns

// World placement of a character: the matrix is T * R * S.
struct RootTransform {
  glm::vec3 translation{0.0f};
  glm::quat rotation{1.0f, 0.0f, 0.0f, 0.0f};  // unit (w, x, y, z in glm's constructor)
  glm::vec3 scale{1.0f};

  glm::mat4 matrix() const;
};

// From the wire: an all-zero rotation means identity and an unset scale means (1, 1, 1)
// (types.proto). A rotation that is not unit length is normalized. Returns false (leaving
// `out` unchanged) when a value is not finite or the scale has a zero component.
bool root_from_proto(const anim::v1::Transform& t, RootTransform& out);

// Where `render_time` falls between two frames stamped t0 < t1, clamped to [0, 1]
// (no extrapolation: a stalled stream holds the newest pose). t1 <= t0 gives 1.
float interpolation_alpha(double render_time, double t0, double t1);

// out = a + (b - a) * alpha, element-wise over `count` floats (alpha in [0, 1]).
// Blending matrices linearly is exact for translation and slightly shortens rotated axes
// in between (by 1 - cos(angle / 2) at alpha 0.5: 0.1% for 5 degrees between frames). At
// stream rates (tens of Hz) that is invisible, and it needs neither the skeleton nor a
// polar decomposition per joint.
void lerp_palette(const float* a, const float* b, size_t count, float alpha, float* out);

// Translation and scale lerp, rotation slerp along the shortest arc.
RootTransform interpolate_root(const RootTransform& a, const RootTransform& b, float alpha);

}  // namespace animview
