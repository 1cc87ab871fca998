#pragma once
// Internal to the glTF loader (gltf_*.cpp): shared context, error helpers and accessor
// reading. Not a public header.

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include <glm/glm.hpp>
#include "gltf_tinygltf.h"

#include "anim/asset.h"
#include "anim/loaders/gltf_loader.h"
#include "anim/status.h"

namespace anim::gltf {

// What one load may still spend (GltfLimits): working memory, charged as it is taken and never
// refunded, and time.
class LoadBudget {
 public:
  explicit LoadBudget(const GltfLimits& limits) : limits_(limits) {}
  // Charges `bytes`; kResourceExhausted, naming `what` and the limit, when the total would
  // pass limits.max_working_bytes (nothing is charged then).
  Status charge(size_t bytes, const std::string& what);
  // kResourceExhausted, naming `what`, once limits.deadline has passed.
  Status check_time(const std::string& what) const;
  size_t used() const { return used_; }
  const GltfLimits& limits() const { return limits_; }

 private:
  const GltfLimits& limits_;
  size_t used_ = 0;
};

// What every stage needs: the parsed model, the file name for messages, the warnings list.
struct Context {
  const tinygltf::Model& model;
  std::string file;                    // the path as given, used as the prefix of messages
  std::vector<std::string>* warnings;  // Asset::warnings being filled
  LoadBudget* budget;                  // this load's memory and time
  size_t max_backed_count = 0;         // largest_backed_count(model)

  Status fail(StatusCode code, const std::string& what) const {
    return Status(code, file + ": " + what);
  }
  // Adds a warning; past kMaxWarnings, one line says that more were left out.
  void warn(const std::string& what) const {
    if (warnings->size() < kMaxWarnings)
      warnings->push_back(what);
    else if (warnings->size() == kMaxWarnings)
      warnings->push_back("further warnings left out");
  }
  static constexpr size_t kMaxWarnings = 64;
};

// "node 3 'Hip'" (or "node 3" when unnamed), for messages.
std::string node_label(const tinygltf::Model& model, int node);

// The largest count of an accessor that has a buffer view (0 when none has).
size_t largest_backed_count(const tinygltf::Model& model);

// An accessor's elements as doubles (count * components values, element after element).
// Normalized integer components are mapped to [0, 1] / [-1, 1] as the glTF spec says;
// other integers keep their value.
struct AccessorData {
  std::vector<double> values;
  size_t count = 0;
  int components = 0;      // 1 (SCALAR), 2, 3, 4, 16 (MAT4)
  int component_type = 0;  // TINYGLTF_COMPONENT_TYPE_*
  bool normalized = false;
};

// Which element layouts a caller accepts.
struct AccessorSpec {
  int type;  // TINYGLTF_TYPE_SCALAR / VEC2 / VEC3 / VEC4 / MAT4
  bool allow_float = true;
  bool allow_normalized = false;    // normalized byte/short (signed or unsigned)
  bool allow_unsigned_int = false;  // non-normalized unsigned byte/short/int (indices, joints)
};

// Reads and bounds-checks accessor `index` (offset + stride * count within the buffer view,
// the view within its buffer; sparse substitution applied). An accessor without a buffer view
// may not be larger than ctx.max_backed_count; the decoded values are charged to ctx.budget
// before they are allocated, and the deadline is checked first. `what` names the use in errors
// ("animation 'Walk' sampler 2 input").
Expected<AccessorData> read_accessor(const Context& ctx, int index, const AccessorSpec& spec,
                                     const std::string& what);

// The node's local transform as a matrix (its `matrix`, or T * R * S), in double precision so
// that folding ancestors and moving rigidly attached meshes into bind space loses nothing.
glm::dmat4 node_local_matrix(const tinygltf::Node& node);

// Checks a node's TRS / matrix arrays have the right lengths and finite values.
Status check_node_transform(const Context& ctx, int node);

// A static transform pre-multiplied onto a joint's local transform (rest pose and every
// key): the non-joint nodes between a joint and its parent joint, or, for a root joint under
// different non-joint ancestors than the first root, the difference of the two parent spaces.
// Its scale is uniform (checked when it is made), which keeps parent * local exact in TRS.
struct JointFold {
  bool active = false;
  Transform transform;
};

// Which mesh parts (MeshPart, below) have morph targets: one morph set per part whose glTF
// mesh has targets, in part order.
struct MorphPlan {
  std::vector<int> set_of_part;  // per part: its set index, or -1
  std::vector<int> set_of_node;  // per glTF node: the set of the part it instances, or -1
  std::vector<int> num_targets;  // per set: the mesh's target count (>= 1)
};

// Every animation's translation / rotation / scale channels on the skin's joints, as clips in
// skeleton order, and its `weights` channels on nodes with a morph set as morph weight
// channels. `source_of_node[n]` is node n's index in skin.joints, or -1; `folds` is indexed by
// skin.joints index.
Status load_clips(const Context& ctx, const Skeleton& skeleton,
                  const std::vector<int>& source_of_node, const std::vector<JointFold>& folds,
                  const MorphPlan& morphs, std::vector<Clip>* clips);

// Animation events from each animation's `extras.events` (docs/loader-gltf.md) into the clip
// made from it (clips[i] from animations[i], finalized: durations known). Lenient: extras
// are free-form, so an entry of another shape is skipped with a warning naming it.
void load_clip_events(const Context& ctx, std::vector<Clip>* clips);

// How one mesh node joins the character's mesh. Positions are mapped by `to_bind` into the
// palette's bind space: palette[j] * to_bind * v is then the vertex in scene space.
struct MeshPart {
  int node = -1;
  // Skinned part: skin.joints index of the node's skin -> source index of the skeleton
  // (Skeleton::joint_of_source maps it on). Empty for a rigid part.
  std::vector<int> source_of_skin_joint;
  // Rigid part (a mesh node under a joint node, no skin): the source index of that joint;
  // every vertex is bound to it with weight 1. -1 for a skinned part.
  int rigid_source = -1;
  // Skinned: the change from the node's skin's bind space to the skeleton's (identity when
  // the skins agree). Rigid: inverse(inverse bind of the joint) * the static node transforms
  // from the joint down to the mesh node.
  glm::dmat4 to_bind{1.0};
};

// The morph plan of `parts`. Refuses a mesh whose primitives have different target counts or
// more targets than limits.max_morph_targets_per_mesh, naming the mesh.
Expected<MorphPlan> plan_morph_sets(const Context& ctx, const std::vector<MeshPart>& parts);

// The triangles of every primitive of every part, joint indices mapped to skeleton order and
// positions / normals moved into bind space (winding kept front-facing when to_bind mirrors),
// and the morph sets `morphs` plans, their deltas moved into bind space alike.
Status load_mesh(const Context& ctx, const std::vector<MeshPart>& parts, const Skeleton& skeleton,
                 const MorphPlan& morphs, SkinnedMesh* mesh);

}  // namespace anim::gltf
