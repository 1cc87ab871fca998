#pragma once
// Loading assets from disk or from uploaded bytes. Pure calls into core's loaders plus path
// checks; runs on the loader thread (never on the tick thread). Thread-safe.

#include <filesystem>
#include <string>
#include <vector>

#include "anim/asset.h"
#include "anim/status.h"
#include "anim/v1/assets.pb.h"

namespace animd {

// Resolves `relative` against the asset root. Rejects (INVALID_ARGUMENT) an empty path, an
// absolute path, any ".." component, and a path whose real location (symlinks resolved)
// lies outside the real root; NOT_FOUND when the file does not exist; INVALID_ARGUMENT when
// the extension is not .glb, .gltf or .md5mesh.
anim::Expected<std::filesystem::path> resolve_asset_path(const std::filesystem::path& root,
                                                         const std::string& relative);

// Loads a .glb/.gltf (with the skin options of `request`) or an .md5mesh with every
// .md5anim in its folder whose joints match. The asset is named `name` (default: stem) and
// its source set to `source` (the path relative to the asset root: messages name the file by
// it, never by its host path). A glTF's buffer/image URIs must resolve inside `asset_root`
// (symlinks followed); empty = inside the file's own folder.
anim::Expected<anim::Asset> load_asset_file(const std::filesystem::path& path,
                                            const std::string& name, const std::string& source,
                                            const anim::v1::LoadAssetRequest& request,
                                            const std::filesystem::path& asset_root = {});

// Loads uploaded .glb bytes from memory: no file is written or read, and only data: URIs
// (or the .glb's BIN chunk) may supply buffers and images.
anim::Expected<anim::Asset> load_uploaded_glb(const std::string& bytes, const std::string& name,
                                              const anim::v1::LoadAssetRequest& request);

// Every .glb/.gltf/.md5mesh under `root` (recursive; symlinks placed there by the operator
// are followed), sorted.
std::vector<std::filesystem::path> scan_asset_dir(const std::filesystem::path& root);

// Asset names: non-empty, at most 128 bytes, printable ASCII without '/'.
anim::Status check_asset_name(const std::string& name);

}  // namespace animd
