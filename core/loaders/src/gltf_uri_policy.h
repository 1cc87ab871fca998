#pragma once
// Internal to the glTF loader: which buffer/image URIs a file may use, checked twice.
//
// 1. Before parsing, check_document_uris() reads the JSON's buffers[].uri and images[].uri and
//    refuses any that breaks the policy, naming the owner ("buffer 0") and the rule. Images
//    are never read (TINYGLTF_NO_EXTERNAL_IMAGE), so this is the only check they need.
// 2. While parsing, tinygltf reaches the file system only through UriGate's callbacks, which
//    apply the same confinement to the exact path tinygltf asks for and read nothing else.
//    This is the gate that matters: it holds even if step 1 and tinygltf read the JSON
//    differently.
// Messages never contain a host path, nor the size or contents of a refused file.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "anim/status.h"
#include "gltf_tinygltf.h"

namespace anim::gltf {

// Where external files may come from.
struct UriPolicy {
  // false: only base64 `data:` URIs (bytes from memory, e.g. an upload); no file is touched.
  bool allow_files = false;
  // allow_files only: the canonical folder relative URIs are resolved against (the folder of
  // the .gltf), and the canonical folder every resolved file must stay inside (base_dir or an
  // ancestor of it).
  std::filesystem::path base_dir;
  std::filesystem::path root;
};

// The policy for a file loaded from `file`: URIs resolve against its (canonical) folder and
// must stay inside `uri_root` (empty = that folder). Fails when the root does not exist or
// does not contain the file's folder; the message names no path.
Expected<UriPolicy> file_policy(const std::filesystem::path& file, const std::string& uri_root);

// Percent-decodes a URI the way tinygltf does before opening it ('+' is a space, "%2e" is
// '.'), except that a '%' not followed by two hex digits is malformed (nullopt) where
// tinygltf would guess.
std::optional<std::string> decode_uri(std::string_view uri);

// Checks one URI. `owner` names it in messages ("buffer 0", "image 2"). An empty URI is fine
// here (a .glb buffer uses the BIN chunk; tinygltf reports a missing one). `must_exist`:
// a buffer must name an existing regular file; an image may be missing (never read).
Status check_uri(const UriPolicy& policy, const std::string& uri, const std::string& owner,
                 bool must_exist);

// Step 1 above, on the document's JSON (document_json(): .gltf text or a .glb's JSON chunk).
// JSON that is not well-formed is left to tinygltf to report (returns ok).
Status check_document_uris(const UriPolicy& policy, std::span<const uint8_t> json);

// Step 2 above: tinygltf file callbacks bound to this object (keep it alive while parsing).
// Only reading is ever allowed, and only of regular files that the policy admits; the path is
// re-resolved (symlinks followed) at every call and the resolved path is what gets read.
class UriGate {
 public:
  explicit UriGate(UriPolicy policy) : policy_(std::move(policy)) {}
  UriGate(const UriGate&) = delete;
  UriGate& operator=(const UriGate&) = delete;

  tinygltf::FsCallbacks callbacks();

  // Why the first refused request was refused ("" when none was): a message naming the rule,
  // never the path.
  const std::string& refusal() const { return refusal_; }

 private:
  // The canonical path to read for tinygltf's `path`, or nullopt (refusal_ set when the path
  // breaks the policy; left alone when it is simply missing).
  std::optional<std::filesystem::path> admit(const std::string& path);

  static bool file_exists(const std::string& path, void* self);
  static std::string expand_file_path(const std::string& path, void* self);
  static bool read_whole_file(std::vector<unsigned char>* out, std::string* err,
                              const std::string& path, void* self);
  static bool write_whole_file(std::string* err, const std::string& path,
                               const std::vector<unsigned char>& contents, void* self);

  UriPolicy policy_;
  std::string refusal_;
};

// tinygltf's error text made safe to return: the base folder (a host path) removed from it,
// trailing newlines trimmed, and cut to a bounded length (a failed data: URI is echoed whole).
std::string sanitize_parser_message(std::string message, const UriPolicy& policy);

}  // namespace anim::gltf
