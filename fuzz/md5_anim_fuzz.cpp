// Fuzz target: load_md5_from_memory with a mesh and up to 4 anims.
//
// Input: the mesh text, then each anim text, separated by NUL bytes (seeds/md5_anim holds a
// matching pair). Anims are named fuzz_a0, fuzz_a1, ... so every error names "fuzz" (the mesh
// label is fuzz.md5mesh, anim labels fuzz_aN.md5anim). Checked as md5_mesh_fuzz.cpp.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "anim/loaders/md5_loader.h"
#include "asset_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view rest(reinterpret_cast<const char*>(data), size);
  const size_t mesh_end = rest.find('\0');
  if (mesh_end == std::string_view::npos) return 0;  // the mesh alone is md5_mesh_fuzz's job
  const std::string_view mesh = rest.substr(0, mesh_end);
  rest.remove_prefix(mesh_end + 1);
  std::vector<std::pair<std::string, std::string_view>> anims;
  while (anims.size() < 4) {
    const size_t end = rest.find('\0');
    anims.emplace_back("fuzz_a" + std::to_string(anims.size()), rest.substr(0, end));
    if (end == std::string_view::npos) break;
    rest.remove_prefix(end + 1);
  }
  animfuzz::check_result(anim::load_md5_from_memory(mesh, anims, "fuzz.md5mesh"), "fuzz");
  return 0;
}
