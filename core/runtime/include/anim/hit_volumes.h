#pragma once
// Hit volumes: one capsule per joint, fixed in the joint's space, for hit queries (a ray or a
// sphere against characters posed as at some tick: the daemon's raycast and overlap_sphere).
//
// Fitting (fit_capsules, at asset load, deterministic): every mesh vertex belongs to the joint
// with its largest skin weight (ties: the lower joint index). A joint's vertices, taken into its
// bind-time space (inverse_bind x vertex), get the smallest capsule that encloses all of them
// around their principal axis (the covariance's dominant eigenvector, through their centroid):
// radius = the largest distance of a vertex from that axis, the segment as short as enclosure
// allows. Joints that own no vertex (roots, IK helpers, twist bones) have no volume.
// An asset without a mesh gets bone capsules instead: from each joint to its child's rest
// origin (the mean of its children's when it has several), radius kBoneRadiusFraction x that
// length; joints without children have no volume.
//
// Bounds, for the broad phase of queries over many characters:
//  - pose_bound: a sphere around the joint origins of one evaluated pose (the daemon keeps one
//    per character and tick in its pose history, so a query poses only the characters whose
//    sphere it meets);
//  - joint_scales: how much each joint's model matrix can scale, from the asset's data (rest
//    pose, every key of every clip, cubic segments by their Hermite overshoot, the ancestors'
//    products): a capsule then reaches at most extents[j] from its joint's origin in any pose
//    the asset produces. Blends and crossfades interpolate scales, IK only rotates; an additive
//    layer adds (clip - reference) x weight, which changes no scale when no scale is ever
//    animated (JointScales::unit) and is unbounded otherwise. Anything that makes evaluate_pose
//    scale joints in a new way must extend joint_scales (the unit tests check the bound
//    against sampled poses).
//
// Units: capsules in joint space (the asset's units as scaled by the joint's bind matrix);
// extents and bounds in model space. Posed, a capsule's ends go through the joint's world
// matrix (root x model) and its radius scales by the largest axis scale of the joint's model
// matrix times the root's largest scale component.

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <vector>

#include <glm/glm.hpp>

#include "anim/hit_geometry.h"
#include "anim/status.h"

namespace anim {

class Clip;
class Skeleton;
struct SkinnedMesh;
struct Transform;

// Bone capsules of mesh-less assets: radius = this x bone length.
inline constexpr float kBoneRadiusFraction = 0.2f;

struct HitCapsule {
  glm::vec3 a{0.0f};    // one end of the segment, joint space
  glm::vec3 b{0.0f};    // the other end (== a: a sphere)
  float radius = 0.0f;  // >= 0; 0: the joint has no hit volume
  bool present() const { return radius > 0.0f; }
};

// Bounds of how much each joint's model matrix can lengthen a vector, over every pose.
struct JointScales {
  std::vector<float> bound;  // per joint (with Skeleton::root_transform's stretch)
  // Every scale (rest pose, keys; cubic tangents 0) is exactly 1: additive layers change no
  // scale either, and `bound` holds whatever the character plays.
  bool unit = true;
};

// Everything a hit query needs of one asset. Immutable once made.
struct HitVolumes {
  std::vector<HitCapsule> capsules;  // one per joint, skeleton order
  JointScales scales;                // from the asset (capsule edits keep it)
  // Per joint: how far its capsule may reach from the joint's origin, model units (its
  // farthest point times scales.bound); 0 without a capsule.
  std::vector<float> extents;
  float capsule_reach = 0.0f;  // the largest extent
  bool empty = true;           // no joint has a volume: nothing can be hit
};

// The capsules fitted to `mesh` (or bone capsules when it has no vertex), one per joint.
std::vector<HitCapsule> fit_capsules(const Skeleton& skeleton, const SkinnedMesh& mesh);
JointScales joint_scales(const Skeleton& skeleton, std::span<const Clip> clips);
// HitVolumes of `capsules` (extents, capsule_reach and empty computed).
HitVolumes make_hit_volumes(std::vector<HitCapsule> capsules, JointScales scales);
// What an asset gets at load: fit_capsules and joint_scales.
HitVolumes fit_hit_volumes(const Skeleton& skeleton, std::span<const Clip> clips,
                           const SkinnedMesh& mesh);

// A sphere holding the joint origins of one pose, model space: the centre of their bounding
// box and its half diagonal. A posed character's capsules lie within radius + capsule_reach of
// the centre (times the root's scale, in world space) when its scales are within bounds.
struct PoseBound {
  glm::vec3 center{0.0f};
  float radius = 0.0f;
};
PoseBound pose_bound(std::span<const glm::mat4> model);

// A bound of every pose an asset's clips can give, around one joint: how far any joint's origin
// can be from `center_joint`'s (or from the model origin when the skeleton has several roots,
// center_joint -1), in model units. It holds for poses made of the clips' samples, their
// blends and crossfades, blend spaces and rotations of any kind (IK rotates only): a joint's
// origin lies within the sum, down its chain, of the largest translation each joint has (rest
// pose, keys, cubic overshoot) times its parent's scale bound. Not for additive layers or held
// poses, whose translations are not the clips'.
struct PoseReach {
  int center_joint = -1;
  float radius = std::numeric_limits<float>::infinity();  // infinity: not computed
};
PoseReach pose_reach(const Skeleton& skeleton, std::span<const Clip> clips,
                     const JointScales& scales);
// The PoseBound `reach` gives a pose with these local transforms: no local-to-model needed
// (the centre joint is a root: its model translation is root_transform x its local one).
PoseBound reach_bound(const Skeleton& skeleton, const PoseReach& reach,
                      std::span<const Transform> locals);

// One joint's new capsule (radius 0 removes its volume).
struct CapsuleEdit {
  int joint = -1;  // skeleton index
  HitCapsule capsule;
};

// `base` with `edits` applied (extents recomputed). Fails, naming the edit by its position,
// on a joint out of range or given twice, a non-finite value or a negative radius.
Expected<HitVolumes> edit_hit_volumes(const HitVolumes& base, std::span<const CapsuleEdit> edits);

// A character posed at one tick, as the tests below read it.
struct HitPose {
  std::span<const glm::mat4> model;  // model-space joint matrices (evaluate_pose's output)
  glm::mat4 root{1.0f};              // model -> world: the character's root transform
  float root_scale = 1.0f;           // the root's largest |scale| component
  // The caller vouches that every joint's scale is within JointScales::bound: the pose was
  // evaluated without additive layers, or its asset animates no scale. raycast_pose then
  // skips joints by HitVolumes::extents; otherwise it tests every capsule in full.
  bool scales_within_reach = false;
};

// HitPose::root and root_scale of a root transform.
HitPose hit_pose(std::span<const glm::mat4> model, const Transform& root,
                 bool scales_within_reach = false);

// Joint `joint`'s capsule in world space.
struct WorldCapsule {
  glm::vec3 a{0.0f}, b{0.0f};
  float radius = 0.0f;
};
WorldCapsule world_capsule(const HitCapsule& capsule, const HitPose& pose, int joint);

struct JointHit {
  int joint = -1;          // skeleton index
  float distance = 0.0f;   // along the ray, world units
  glm::vec3 point{0.0f};   // world space
  glm::vec3 normal{0.0f};  // unit, outward from the capsule (-direction when inside at t = 0)
};

// The first capsule of the posed character the ray enters (ties: the lower joint index).
std::optional<JointHit> raycast_pose(const HitVolumes& volumes, const HitPose& pose,
                                     const Ray& ray);

// Appends to `joints` every joint whose capsule the sphere overlaps, by increasing index.
void overlap_pose(const HitVolumes& volumes, const HitPose& pose, const glm::vec3& center,
                  float radius, std::vector<uint32_t>& joints);

}  // namespace anim
