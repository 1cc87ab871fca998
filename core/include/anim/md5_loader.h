#pragma once
// Doom 3 MD5 loader: one .md5mesh (skeleton + meshes) and any number of .md5anim files
// (one Clip each, at the file's frame rate, named after the file stem).
// An anim whose joint hierarchy (names, parents) does not match the mesh is an error.
// Every failure names the file and what is wrong.

#include <string>
#include <vector>

#include "anim/asset.h"
#include "anim/status.h"

namespace anim {

Expected<Asset> load_md5(const std::string& mesh_path,
                         const std::vector<std::string>& anim_paths);

}  // namespace anim
