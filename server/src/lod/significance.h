#pragma once
// A character's significance: how much its animation matters to someone, in [0, 1]. The
// update-rate allocator (update_rates.h) gives the most significant characters the most
// updates. Computed per character and tick from what watches it, unless the game server set
// one (set_significance), which then wins.
//
// Rules, highest first:
//   1. an override in [0, 1] (set_significance) is the significance;
//   2. watched by id or by an all-characters subscription: 1;
//   3. otherwise the largest of what each region and each camera gives (0 with none):
//      a region: the root in its shape: 1; in its outer zone: kOuterZone; otherwise
//        kNearRegion / (1 + d / kFalloffMetres), d = the root's distance to the region's shape
//        (its outer zone excluded);
//      a camera (ViewCamera, of any subscription), d = the root's distance to the eye:
//        on screen: 1 within kCameraNearMetres, farther kCameraNearMetres / d (the character's
//          size on screen relative to its size at kCameraNearMetres);
//        off screen: kOffScreen / (1 + d / kOffScreenFalloffMetres);
//      on screen: a sphere of kOnScreenMarginMetres around the root meets the camera's view
//      cone (apex the eye, axis forward, half-angle to the frustum's corners: tan =
//      tan(vertical_fov / 2) * sqrt(1 + aspect^2)), so a character whose root is just off the
//      frame's edge but whose body shows counts, and the eye's own surroundings count.
// Ties are broken by the allocator (by character id), so equal inputs give equal rates.

#include <span>

#include <glm/glm.hpp>

#include "lod/view_camera.h"
#include "snapshot/stream_region.h"

namespace animd {

inline constexpr float kOuterZone = 0.8f;
inline constexpr float kNearRegion = 0.6f;
inline constexpr float kFalloffMetres = 20.0f;

inline constexpr float kOnScreenMarginMetres = 2.0f;
inline constexpr float kCameraNearMetres = 20.0f;
inline constexpr float kOffScreen = 0.5f;
inline constexpr float kOffScreenFalloffMetres = 10.0f;

// A camera as the significance rules read it, made once per tick (camera_cone): no
// trigonometry per character.
struct CameraCone {
  glm::vec3 eye{0.0f};                   // world space, metres, finite
  glm::vec3 forward{0.0f, 0.0f, -1.0f};  // unit length
  // The cone's half-angle h, in (0, pi/2), as cos h and sin h.
  float cos_half = 1.0f;
  float sin_half = 0.0f;

  bool operator==(const CameraCone&) const = default;
};

CameraCone camera_cone(const ViewCamera& camera);

// Metres from `p` to the region's shape (0 inside it).
float distance_to_region(const StreamRegion& region, const glm::vec3& p);

// Whether a character whose root is at `root` is on the camera's screen (rule 3's test).
bool on_screen(const CameraCone& camera, const glm::vec3& root);

// What one camera gives a character whose root is at `root` (rule 3), in [0, 1].
float camera_significance(const CameraCone& camera, const glm::vec3& root);

// Rules 2-3 for a character whose root is at `root`: `watched` when a subscription names it
// or watches every character. Allocates nothing.
float watched_significance(bool watched, const glm::vec3& root,
                           std::span<const StreamRegion> regions,
                           std::span<const CameraCone> cameras = {});

}  // namespace animd
