#pragma once
// Blend spaces: clips placed at points of a 1D or 2D parameter space ("idle at speed 0, walk
// at 1.4, run at 4"; "direction x speed"), played like one clip. A parameter value selects
// up to two (1D: the interval it falls in) or three (2D: the Delaunay triangle it falls in)
// samples with weights; their clips play on one shared normalized phase so that they stay in
// step. docs/animation.md, "Blend spaces", has the rules; the Animator plays them.
//
// A BlendSpace is built once (make_blend_space checks everything and, in 2D, triangulates)
// and is immutable: evaluating its weights allocates nothing.

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "anim/status.h"

namespace anim {

class Clip;

inline constexpr int kMaxBlendSpaceSamples = 64;    // samples per blend space
inline constexpr int kMaxBlendSpacesPerAsset = 64;  // definitions per asset (the daemon's limit)
inline constexpr size_t kMaxBlendNameBytes = 256;   // blend space and parameter names
// Largest |coordinate| of a sample point: far beyond any speed or angle, small enough that
// the triangulation's products stay exact enough in double precision.
inline constexpr float kMaxBlendCoordinate = 1.0e6f;

// One clip at one point of the space.
struct BlendSample {
  int clip = -1;             // index into the asset's clips
  glm::vec2 position{0.0f};  // 1D spaces use x only (y must be 0)
};

// What make_blend_space is given.
struct BlendSpaceDesc {
  std::string name;  // non-empty, at most kMaxBlendNameBytes
  // 1 or 2 parameter names (the Animator's parameters, set with set_parameter), non-empty,
  // at most kMaxBlendNameBytes, distinct: axis 0 is x, axis 1 is y.
  std::vector<std::string> axes;
  // 1D: at least 2 samples at distinct x; 2D: at least 3 distinct points, not all on one
  // line. At most kMaxBlendSpaceSamples; coordinates finite with |c| <= kMaxBlendCoordinate.
  // Clips must exist, have the skeleton's joint count and a positive duration.
  std::vector<BlendSample> samples;
  // Marker sync (docs/animation.md, "Blend spaces"): the sample of greatest weight leads at
  // the space's phase and the others are placed between the same two foot plants as it
  // (Animator marker sync; normalized phase where a clip has no plants). false: every sample
  // at the shared normalized phase.
  bool sync_markers = false;
};

// A sample whose interpolation weight (1D: 1 - u or u in its interval; 2D: barycentric in
// its triangle, or along the nearest hull edge) is not above this is dropped from the blend,
// in 1D and 2D alike, and the remaining weights are renormalized to sum 1. So a parameter on
// a sample, or off it by no more than a millionth of the interval or triangle it borders
// (one float step off it, unless the interval is tiny against the coordinates), gives that
// sample alone, whatever it borders: its pose bit for bit and only its clip's events.
inline constexpr double kNegligibleBlendWeight = 1e-6;

// The samples a parameter point selects: up to three, each with its weight (> 0, summing to
// 1) and the factor that blends it onto the samples before it (the pose is sample 0, then
// mix(pose, sample k, mix[k]) for k = 1, 2: mix[k] = weight[k] / (weight[0] + ... +
// weight[k])). Samples with a weight at or below kNegligibleBlendWeight are left out, so a
// point on a sample is that sample alone, count 1.
struct BlendWeights {
  int count = 0;                  // 1..3
  std::array<int, 3> sample{};    // indices into BlendSpace::samples
  std::array<float, 3> weight{};  // > kNegligibleBlendWeight before renormalizing; sum 1
  std::array<float, 3> mix{};     // mix[0] is unused (1)
};

struct BlendSpace {
  std::string name;
  int dimensions = 1;                         // 1 or 2
  std::array<std::string, 2> axes;            // axes[1] empty in 1D
  std::vector<BlendSample> samples;           // 1D: sorted by x; 2D: as given
  std::vector<std::array<int, 3>> triangles;  // 2D: Delaunay, counter-clockwise; 1D: empty
  bool sync_markers = false;                  // BlendSpaceDesc::sync_markers

  // The samples and weights at `point` (1D: x only). A point outside the samples' range
  // (1D) or convex hull (2D) is clamped to the nearest point of it; NaN counts as the first
  // sample's coordinate. Negligible weights are dropped (kNegligibleBlendWeight) by one rule
  // for both dimensions. No allocation.
  BlendWeights weights_at(glm::vec2 point) const;
};

// Checks `desc` against the asset's clips (`joints`: the skeleton's joint count) and builds
// the space (2D: its Delaunay triangulation). Errors name the field: "samples[3].clip", ...
Expected<BlendSpace> make_blend_space(const BlendSpaceDesc& desc, std::span<const Clip> clips,
                                      int joints);

// The blend spaces of one asset, by index. Immutable once shared; a definition is never
// replaced or removed, so a new table holds the old one's spaces first, in order (an
// Animator checks that: its players point at the spaces they play).
struct BlendSpaceTable {
  std::vector<std::shared_ptr<const BlendSpace>> spaces;
  int find(const std::string& name) const;  // -1 when absent
};

}  // namespace anim
