#pragma once
// Internal to the glTF loader: one streaming pass over the document's JSON (a .gltf's text or
// a .glb's JSON chunk) that enforces GltfLimits' JSON bounds before tinygltf builds anything
// from it, and measures what the parsed document will hold.

#include <cstddef>
#include <cstdint>
#include <span>

#include "anim/loaders/gltf_loader.h"
#include "anim/status.h"

namespace anim::gltf {

// What the scan saw of a well-formed document (or of its well-formed prefix).
struct DocumentShape {
  size_t values = 0;        // JSON values of every kind
  size_t string_bytes = 0;  // bytes of every string and object key
  size_t items = 0;         // items of the top-level collections (nodes, accessors, ...)
  // Upper estimate of the memory, in bytes, that parsing the document takes: the JSON tree
  // tinygltf parses through, the model it builds (including a copy of every buffer) and the
  // strings both hold. The caller adds it to the load's working memory.
  size_t parsed_bytes = 0;
};

// The JSON of a glTF file's bytes: all of them for text, the JSON chunk for a .glb (by the
// "glTF" magic). Empty when a .glb's header or chunk length is malformed (tinygltf then
// reports the file).
std::span<const uint8_t> document_json(std::span<const uint8_t> bytes);

// Scans `json`. kResourceExhausted, naming the bound and where it was crossed, when the
// document nests deeper than limits.max_json_depth, holds more than limits.max_json_values
// values, or has a top-level collection of more than limits.max_collection_items items.
// JSON that is not well-formed is not an error here: tinygltf reports it, and the shape of the
// prefix read is returned. `file_bytes`: the size of the whole file (a .glb's buffers).
Expected<DocumentShape> scan_document(std::span<const uint8_t> json, size_t file_bytes,
                                      const GltfLimits& limits);

}  // namespace anim::gltf
