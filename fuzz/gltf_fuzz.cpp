// Fuzz target: load_gltf_from_memory on the input bytes (.glb or .gltf JSON, as an upload).
//
// The first byte picks the skin selection (default, an index, or a name) so the fuzzer also
// reaches the non-default paths; the rest is the file. Checked: no crash or sanitizer report,
// nothing read from disk (uploads refuse external URIs), and the result is an error naming
// the label or an asset keeping every loader invariant (asset_checks.h).
#include <cstddef>
#include <cstdint>
#include <span>

#include "anim/loaders/gltf_loader.h"
#include "asset_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  anim::GltfOptions options;
  switch (data[0] % 4) {
    case 1:
      options.skin_index = data[0] / 4 % 3;
      break;
    case 2:
      options.skin_name = "skin";
      break;
    default:
      break;
  }
  const std::span<const uint8_t> bytes(data + 1, size - 1);
  animfuzz::check_result(anim::load_gltf_from_memory(bytes, "fuzz.glb", options), "fuzz.glb");
  return 0;
}
