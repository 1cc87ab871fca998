#pragma once
// Doom 3 MD5 loader: one .md5mesh (skeleton + meshes) and any number of .md5anim files
// (one Clip each, named after the file stem, one key per frame at t = k / frameRate, LINEAR).
//
// Coordinates: Doom 3 is Z-up, our model space is Y-up (as glTF). The loader puts the
// rotation (x, y, z) -> (x, z, -y) (-90 degrees about X) into Skeleton::root_transform and
// expresses mesh vertices, normals and inverse binds in the Y-up model space, so that the
// bind-pose palette is the identity and palettes map bind vertices to animated ones. Root
// joints' rest and animated transforms stay in Doom's Z-up space (their parent space).
//
// Mesh: one Submesh per MD5 mesh (material = shader string); triangles are flipped from
// Doom's clockwise to counter-clockwise; normals are smooth, area-weighted; each vertex keeps
// its 4 strongest joints (same joint merged first), renormalized to sum 1.
//
// An anim whose joint hierarchy (names, parents) does not match the mesh is an error.
// Every failure names the file, the line and what was expected; nothing is returned then.
// See docs/loader-md5.md.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "anim/asset.h"
#include "anim/status.h"

namespace anim {

// Asset::name is the mesh file's stem; Asset::source lists the files, separated by "; ".
// Anim files must have distinct stems (clip names are unique within an asset).
Expected<Asset> load_md5(const std::string& mesh_path, const std::vector<std::string>& anim_paths);

// The same loader on texts already in memory (uploads, fuzzing); load_md5 reads the files and
// calls this. `label` stands for the mesh file's path: Asset::name is its stem and mesh errors
// name it. Each anim is (stem, text): the stem is the clip name (distinct stems required) and
// its errors name "<stem>.md5anim". Asset::source is the label, then "; <stem>.md5anim" per anim.
// Nothing is read from disk.
Expected<Asset> load_md5_from_memory(
    std::string_view mesh_text, const std::vector<std::pair<std::string, std::string_view>>& anims,
    const std::string& label);

}  // namespace anim
