#pragma once
// The questions the pose history answers for any thread (pose_query.h, hit_query.h), and
// their answers, in the daemon's own terms (no protobuf). Requests come checked by their
// converter (protocol/): every float finite, ranges as stated per field.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "anim/palette.h"
#include "anim/transform.h"
#include "assets/asset_catalog.h"

namespace animd {

enum class PoseSpace : uint8_t {
  kModel,  // the character's model space
  kWorld,  // root transform * model space
};

// Where a character's joints were at a tick (from its pose history).
struct QueryPose {
  uint32_t character = 0;
  std::optional<uint64_t> tick;  // unset: the newest tick in the history
  // Joints by name, then by index (in that order in the answer); both empty = every joint.
  std::vector<std::string> joint_names;
  std::vector<uint32_t> joint_indices;
  PoseSpace space = PoseSpace::kModel;
};

// The first hit volume a ray enters at a tick of the pose history (hit_query.h).
struct Raycast {
  glm::vec3 origin{0.0f};        // world space, finite
  glm::vec3 direction{0.0f};     // world space, unit length (normalized by its converter)
  float max_distance = 0.0f;     // > 0, finite
  std::optional<uint64_t> tick;  // unset: the newest tick in the history
  std::vector<uint32_t> ignore;  // character ids left out; sorted, unique
};

// The characters and joints whose hit volumes a sphere overlaps at a tick of the history.
struct OverlapSphere {
  glm::vec3 center{0.0f};  // world space, finite
  float radius = 0.0f;     // >= 0, finite
  std::optional<uint64_t> tick;
  std::vector<uint32_t> ignore;  // sorted, unique
};

struct PoseJoint {
  uint32_t index = 0;  // joint index in the asset's skeleton (palette order)
  // The joint's matrix in the requested space (not the skin matrix): top three rows,
  // row-major; its translation is (m[3], m[7], m[11]).
  anim::PaletteMatrix matrix{};
};

// A character's pose at one tick of its history.
struct PoseAnswer {
  uint64_t tick = 0;
  double server_time = 0.0;       // seconds since the daemon started, at that tick
  anim::Transform root;           // the character's root transform at that tick
  AssetPtr asset;                 // the character's asset: names of `joints` (never null)
  std::vector<PoseJoint> joints;  // as asked: by name first, then by index
  std::vector<anim::PaletteMatrix> palette;  // skin palette at that tick, every joint
  // The morph weights at that tick (anim::MorphLayout order); empty for an asset without
  // morph targets.
  std::vector<float> morph_weights;
};

// What a raycast found (hit false: nothing within its distance).
struct RaycastHit {
  uint64_t tick = 0;         // the tick the characters were posed at
  double server_time = 0.0;  // seconds since the daemon started, at that tick
  bool hit = false;
  uint32_t character_id = 0;
  uint32_t joint = 0;      // skeleton index in `asset`
  AssetPtr asset;          // the hit character's asset (joint names); null without a hit
  glm::vec3 point{0.0f};   // world space
  glm::vec3 normal{0.0f};  // unit
  float distance = 0.0f;   // world units along the ray
};

struct CharacterOverlap {
  uint32_t character_id = 0;
  AssetPtr asset;                // never null
  std::vector<uint32_t> joints;  // by increasing index, not empty
};

// What overlap_sphere found: the characters overlapped, by increasing id.
struct SphereOverlap {
  uint64_t tick = 0;
  double server_time = 0.0;
  std::vector<CharacterOverlap> characters;
};

}  // namespace animd
