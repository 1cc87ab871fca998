#pragma once
// Internal to the MD5 loader: the parsed contents of .md5mesh / .md5anim files (in Doom 3's
// own Z-up model space and source joint order) and the steps that turn them into an Asset.

#include <array>
#include <string>
#include <vector>

#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>

#include "anim/asset.h"
#include "anim/status.h"

namespace anim::md5 {

// Doom 3 stores unit quaternions as (x, y, z) and recovers w = -sqrt(1 - x² - y² - z²)
// (clamped at 0 for inputs whose length slightly exceeds 1).
glm::quat quat_from_xyz(const glm::vec3& xyz);

// Doom 3 model space is Z-up; ours is Y-up like glTF: a rotation of -90 degrees about X,
// (x, y, z) -> (x, z, -y). It becomes Skeleton::root_transform.
glm::mat4 z_up_to_y_up();
glm::vec3 z_up_to_y_up(const glm::vec3& p);

struct MeshJoint {
  std::string name;
  int parent = -1;        // source index, -1 for a root
  glm::vec3 position;     // Doom model space
  glm::quat orientation;  // Doom model space, unit
  int line = 0;
};

struct MeshVert {
  glm::vec2 uv;
  int start_weight = 0;
  int count_weight = 0;
  int line = 0;
};

struct MeshWeight {
  int joint = 0;  // source joint index (checked < numJoints while parsing)
  float bias = 0.0f;
  glm::vec3 position;  // in the joint's space
};

struct MeshPart {
  std::string shader;
  std::vector<MeshVert> verts;
  std::vector<std::array<int, 3>> tris;  // as in the file (clockwise), checked < numverts
  std::vector<MeshWeight> weights;
};

struct MeshFile {
  std::vector<MeshJoint> joints;
  std::vector<MeshPart> meshes;
};

// Reads and checks an .md5mesh file's text. `path` is used in messages.
Expected<MeshFile> parse_mesh(const std::string& path, std::string text);

// Builds the skeleton and skinned mesh into `asset` (fields name/source/clips untouched).
Status build_mesh_asset(const std::string& path, const MeshFile& file, Asset& asset);

// Reads an .md5anim file's text and builds its clip for `skeleton` (built from `mesh`).
// The hierarchy must match mesh's joints (names and parents, in order).
Expected<Clip> load_anim(const std::string& path, std::string text, const std::string& mesh_path,
                         const MeshFile& mesh, const Skeleton& skeleton, std::string clip_name);

}  // namespace anim::md5
