#pragma once
// Loading assets from disk or from uploaded bytes. Pure calls into core's loaders plus path
// checks; runs on the loader thread (never on the tick thread). Thread-safe.

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "anim/asset.h"
#include "anim/loaders/gltf_loader.h"
#include "anim/status.h"
#include "assets/asset_catalog.h"
#include "assets/load_request.h"

namespace animd {

// Resolves `relative` against the asset root. Rejects (INVALID_ARGUMENT) an empty path, an
// absolute path, any ".." component, and a path whose real location (the symlinks of its
// existing part resolved) lies outside the real root, whether the file exists or not; then
// NOT_FOUND when the file does not exist; INVALID_ARGUMENT when the extension is not .glb,
// .gltf, .md5mesh or .bvh.
anim::Expected<std::filesystem::path> resolve_asset_path(const std::filesystem::path& root,
                                                         const std::string& relative);

// INVALID_ARGUMENT naming `source` when the file does not start as its extension's format
// does (.glb: the "glTF" magic; .gltf: a JSON object; .md5mesh/.md5anim: "MD5Version"; .bvh:
// "HIERARCHY"; leading white space and a UTF-8 BOM aside), so that no loader ever quotes the
// bytes of a file that is not an asset.
anim::Status check_asset_signature(const std::filesystem::path& path, const std::string& source);

// The folder the files an asset file refers to (a glTF's buffer and image URIs, the
// .md5anim files beside an .md5mesh) must resolve inside, symlinks followed: the real asset
// root, or, for a file in a folder whose real location lies outside it (a folder the operator
// linked in), that real folder.
std::filesystem::path confinement_root(const std::filesystem::path& path,
                                       const std::filesystem::path& asset_root);

// Loads a .glb/.gltf (with the skin options of `request`), an .md5mesh with every
// .md5anim in its folder whose joints match, or a .bvh (request.bvh_scale, request.clip_name). The
// asset is named `name` (default: stem) and its source set to `source` (the path relative to the
// asset root: messages name the file by it, never by its host path). The file must pass
// check_asset_signature; the files it refers to must lie inside confinement_root(). `limits`
// bound a glTF load.
anim::Expected<anim::Asset> load_asset_file(const std::filesystem::path& path,
                                            const std::string& name, const std::string& source,
                                            const LoadRequest& request,
                                            const std::filesystem::path& asset_root = {},
                                            const anim::GltfLimits& limits = {});

// Loads uploaded .glb bytes from memory: no file is written or read, and only data: URIs
// (or the .glb's BIN chunk) may supply buffers and images. `limits` bound the load.
anim::Expected<anim::Asset> load_uploaded_glb(const std::string& bytes, const std::string& name,
                                              const LoadRequest& request,
                                              const anim::GltfLimits& limits = {});

// Loads uploaded .bvh text from memory (nothing is read from disk). The clip is named
// request.clip_name, default `name`.
anim::Expected<anim::Asset> load_uploaded_bvh(const std::string& text, const std::string& name,
                                              const LoadRequest& request);

// Checks the BVH fields of `request` against its source: attach_to, bvh_scale and clip_name
// go with a .bvh path or bvh_data only; name is empty with attach_to; bvh_scale lies in
// [1e-6, 1e6]; clip_name is a valid name, required with bvh_data + attach_to.
// INVALID_ARGUMENT naming the field otherwise.
anim::Status check_bvh_fields(const LoadRequest& request);

// Checks the joint-LOD fields: detail_joints and keep_all_joints exclude each other and
// attach_to (their count is capped with the request: request_convert_caps.h).
// INVALID_ARGUMENT naming the field otherwise.
anim::Status check_detail_fields(const LoadRequest& request);
// Sets the detail joints of a newly loaded `asset` as `request` asks (anim/joint_detail.h):
// none with keep_all_joints, the named ones and those below them, or derived.
anim::Status choose_detail_joints(anim::Asset& asset, const LoadRequest& request);

// attach_to: a copy of `target` with the clip of `bvh` (a BVH asset loaded at scale 1, so
// its model space is the file's units) retargeted onto the target's skeleton
// (anim::retarget_clip, with request.bvh_scale when set) and appended to its clips. The
// copy's warnings add the animated BVH joints that matched nothing, its source adds `from`.
// FAILED_PRECONDITION when the target already has a clip of that name.
anim::Expected<anim::Asset> attach_bvh_clip(const anim::Asset& bvh, const anim::Asset& target,
                                            const LoadRequest& request, const std::string& from);

// What a load_asset request produced: a new asset, or (attach_to) a new version of the asset
// `replaces`, to be swapped in only if that version is still the current one.
struct LoadedAsset {
  std::shared_ptr<anim::Asset> asset;
  AssetPtr replaces;  // null for a new asset
};

// Everything load_asset does off the tick thread: checks the fields, reads the source (a
// path resolved under `asset_root`, or uploaded bytes), loads it and, for attach_to,
// retargets onto the asset found in `assets`. Upload size limits are the caller's.
anim::Expected<LoadedAsset> load_requested_asset(const LoadRequest& request,
                                                 const std::filesystem::path& asset_root,
                                                 const AssetMap& assets,
                                                 const anim::GltfLimits& limits = {});

// Every .glb/.gltf/.md5mesh/.bvh under `root` (recursive; symlinks placed there by the operator
// are followed), sorted.
std::vector<std::filesystem::path> scan_asset_dir(const std::filesystem::path& root);

// The state machine file of the asset file `path`, which the daemon reads at start-up:
// `<stem>.animgraph.json` beside it, the stem being the asset's default name (Hero.glb ->
// Hero.animgraph.json). The file need not exist.
std::filesystem::path state_machine_file_of(const std::filesystem::path& path);

// Every `*.animgraph.json` under `root`, walked as scan_asset_dir walks it, sorted.
std::vector<std::filesystem::path> scan_state_machine_files(const std::filesystem::path& root);

// Asset names: non-empty, at most 128 bytes, printable ASCII without '/'.
anim::Status check_asset_name(const std::string& name);

}  // namespace animd
