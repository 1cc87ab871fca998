// Fuzz target: load_md5_from_memory with the input as the .md5mesh text and no anims.
// Checked: no crash or sanitizer report, and the result is an error naming the label or an
// asset keeping every loader invariant (asset_checks.h).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "anim/loaders/md5_loader.h"
#include "asset_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  animfuzz::check_result(anim::load_md5_from_memory(text, {}, "fuzz.md5mesh"), "fuzz.md5mesh");
  return 0;
}
