#pragma once
// glTF 2.0 loader (.gltf with .bin or data: URIs, and .glb), built on tinygltf.
//
// Picks one skin (by index or name; default the skin of the first skinned mesh node in the
// default scene, as three.js does) and merges every skin sharing joints with it; builds the
// Skeleton (joints reordered parent-first; the root joints' non-joint ancestors in
// Skeleton::root_transform, so model space is the scene space and palette = joint world x
// inverse bind, where three.js draws each skinned vertex; static non-joint nodes between
// joints folded into the joint below them), every animation's translation/rotation/scale
// channels that target the joints as Clips, and the SkinnedMesh of the whole character: every
// primitive of every mesh node skinned by a merged skin, plus every mesh node hanging under a
// joint, bound to that joint with weight 1. Skins sharing no joint are left out with a
// warning. Each of those mesh nodes whose mesh has morph targets gives a morph set
// (SkinnedMesh::morph_sets: POSITION and NORMAL deltas, sparse accessors included), and
// `weights` channels on those nodes become the clips' morph weight channels.
// Every failure names the file and what is wrong; nothing is returned on failure. Images are
// never decoded. Details: docs/loader-gltf.md.
//
// URIs (docs/loader-gltf.md, "URIs and confinement"): a file never makes the loader read a
// path it was not given. From memory, only `data:` URIs load; every other buffer or image URI
// fails with "external URI not allowed in an upload". From a path, every buffer and image
// URI must be a relative reference (no scheme but `data:`, not absolute, no `..` escape) that,
// percent-decoded and with symlinks resolved, names a file inside GltfOptions::uri_root. Error
// messages name the file by its label, the URI's owner ("buffer 0") and the rule broken;
// never a host path, nor the size or contents of a refused file.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "anim/asset.h"
#include "anim/status.h"

namespace anim {

// Bounds on what one file may make the loader hold or do. A file past any of them fails with
// kResourceExhausted naming the limit; the JSON bounds are checked by a streaming pass before
// anything is built from the document, so a refused file costs a linear read and no more.
struct GltfLimits {
  // Nesting of JSON arrays and objects (a glTF document needs about 6; extras may nest more).
  int max_json_depth = 64;
  // JSON values of every kind (objects, arrays, strings, numbers, ...) in the whole document.
  size_t max_json_values = size_t{1} << 20;
  // Items in each top-level array of the document (nodes, meshes, accessors, bufferViews,
  // buffers, animations, skins, materials, images, textures, samplers, scenes, cameras).
  size_t max_collection_items = 65536;
  // Working memory of one load, in bytes: the estimated size of the parsed document plus
  // every accessor decoded from it (8 bytes a component, charged as each is read, never
  // refunded). Bounds a file whose accessors alias one buffer many times as well as a large
  // one.
  size_t max_working_bytes = size_t{256} << 20;
  // Morph targets of one glTF mesh (the length of each of its primitives' `targets`).
  int max_morph_targets_per_mesh = 64;
  // Bytes the loaded morph targets keep (SkinnedMesh::morph_sets), summed over every target
  // of the file: 16 bytes for each vertex a target moves (index and position delta), 12 more
  // when the target has normal deltas.
  size_t max_morph_delta_bytes = size_t{64} << 20;
  // The load fails once this time has passed (checked between stages and per accessor,
  // animation channel and mesh primitive). Default: no deadline.
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
};

struct GltfOptions {
  int skin_index = -1;    // >= 0: use this skin (an index past the last skin is kNotFound)
  std::string skin_name;  // non-empty (and skin_index < 0): use the skin with this name
  // load_gltf only: the folder every buffer/image URI must stay inside, after symlinks are
  // resolved. Empty = the folder of the file itself. Must exist and contain the file's folder
  // (a file outside its root is kInvalidArgument). Ignored by load_gltf_from_memory, which
  // reads no files at all.
  std::string uri_root;
  // load_gltf only: how messages name the file (e.g. its path relative to an asset root, so
  // that a daemon's replies never carry host paths). Empty = the path as given.
  std::string label;
  GltfLimits limits;
};

// Loads a .gltf or .glb file. Buffer/image URIs are confined to options.uri_root.
Expected<Asset> load_gltf(const std::string& path, const GltfOptions& options = {});

// Loads .glb or .gltf bytes (binary or text by the "glTF" magic) held in memory: no file is
// created, opened or probed. Only `data:` URIs (and a .glb's own BIN chunk) may supply buffers
// and images. `label` names the bytes in every message (e.g. "upload 'Fox'") and becomes
// Asset::source; Asset::name is "" (the caller names the asset). options.uri_root and
// options.label are ignored.
Expected<Asset> load_gltf_from_memory(std::span<const uint8_t> bytes, const std::string& label,
                                      const GltfOptions& options = {});

}  // namespace anim
