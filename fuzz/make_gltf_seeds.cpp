// Writes the glTF fuzz inputs under the folder given as argv[1] (<build>/fuzz; run at build
// time, so no binary glTF is checked into the repo).
//
// seeds/gltf/: the `gltf` target's seeds, each one options byte (0: the default skin) followed
// by the file:
//   tiny.glb / tiny.gltf  a 2-joint skin, one triangle, one LINEAR rotation and one STEP
//                         translation channel (the .gltf embeds its buffer as a data: URI);
//   cubic.glb             the same with a CUBICSPLINE rotation channel;
//   builtin_part.glb      the built-in character's 22-joint skeleton, its first 24 triangles
//                         and its "wave" clip at 6 keys/s, so the fuzzer starts from a real rig;
//   events.glb            tests/support/travel_gltf.h with animation events in its extras,
//                         good and malformed ones (docs/loader-gltf.md);
//   deep_extras_62.glb ... aliasing_clips.glb: the attacks of tests/support/hostile_gltf.h at
//                         small sizes (below).
// regressions/gltf/: reproducers too large to check into fuzz/regressions/gltf/;
// regressions/gltf_json/: the same attack as a `gltf_json` program.
// seeds/gltf_json/: the `gltf_json` target's seeds (gltf_program.h): every base document.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gltf_program.h"
#include "gltf_seed_files.h"
#include "hostile_gltf.h"
#include "travel_gltf.h"

namespace {

void write_seed(const std::filesystem::path& dir, const std::string& name,
                const std::string& bytes) {
  std::ofstream out(dir / name, std::ios::binary | std::ios::trunc);
  out.put('\0');
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s FUZZ_BUILD_DIR\n", argv[0]);
    return 2;
  }
  const std::filesystem::path root = argv[1];
  const std::filesystem::path dir = root / "seeds" / "gltf";
  std::filesystem::create_directories(dir);
  write_seed(dir, "tiny.glb", animfuzz::tiny_gltf(false).glb_bytes());
  write_seed(dir, "tiny.gltf", animfuzz::embedded_gltf(animfuzz::tiny_gltf(false)));
  write_seed(dir, "cubic.glb", animfuzz::tiny_gltf(true).glb_bytes());
  write_seed(dir, "builtin_part.glb", animfuzz::builtin_part_gltf().glb_bytes());
  write_seed(dir, "events.glb", animtest::travel_gltf(animfuzz::events_extras()).glb_bytes());
  // The attacks of hostile_gltf.h, small: JSON nested 2 + 62 levels (the deepest accepted)
  // and 2 + 63 (refused), a node list, a node chain, a sparse accessor of 2^28 elements with
  // no buffer view, 16 clips reading one pair of accessors.
  write_seed(dir, "deep_extras_62.glb", animtest::deep_extras_glb(62));
  write_seed(dir, "deep_extras_63.glb", animtest::deep_extras_glb(63));
  write_seed(dir, "empty_nodes_1000.glb", animtest::empty_nodes_glb(1000));
  write_seed(dir, "node_chain_200.glb", animtest::node_chain_glb(200));
  write_seed(dir, "sparse_bomb.glb", animtest::sparse_bomb_glb(uint64_t{1} << 28));
  write_seed(dir, "aliasing_clips.glb", animtest::aliasing_clips_glb(16, 64));

  // Regressions of the `gltf` target that are too large to check in (run-fuzz.sh replays
  // <build>/fuzz/regressions/<target>/ beside fuzz/regressions/<target>/): the upload of
  // issue 39, asset.extras nesting 30,000 arrays, which overflowed tinygltf's recursive
  // conversion of JSON values (docs/security.md, "Hostile assets").
  const std::filesystem::path regressions = root / "regressions" / "gltf";
  std::filesystem::create_directories(regressions);
  write_seed(regressions, "deep-extras-30000-levels.glb", animtest::deep_extras_glb(30000));

  // The `gltf_json` target's seeds: each base document, unedited, as .glb and as .gltf.
  const std::filesystem::path programs = root / "seeds" / "gltf_json";
  std::filesystem::create_directories(programs);
  namespace prog = animfuzz::gltfprog;
  for (size_t i = 0; i < prog::bases().size(); ++i)
    for (const bool text : {false, true}) {
      prog::Program p;
      p.flags = text ? 4 : 0;
      p.base = static_cast<uint8_t>(i);
      uint8_t bytes[prog::kHeaderBytes];
      const size_t n = prog::encode(p, bytes, sizeof bytes);
      std::ofstream out(programs / (prog::bases()[i].name + (text ? ".gltf" : ".glb")),
                        std::ios::binary | std::ios::trunc);
      out.write(reinterpret_cast<const char*>(bytes), static_cast<std::streamsize>(n));
    }

  // The `gltf_json` regression of the same attack: the program that wraps the deep_extras
  // base's asset.extras in 30,000 arrays (the target, run with the depth bound off, finds
  // programs like it: docs/security.md, "Fuzzing").
  const std::filesystem::path json_regressions = root / "regressions" / "gltf_json";
  std::filesystem::create_directories(json_regressions);
  prog::Program deep;
  while (prog::base_of(deep).name != "deep_extras") ++deep.base;
  prog::Value tree = prog::build(deep);
  const std::vector<prog::Slot> all = prog::slots(tree);
  for (size_t i = 0; i < all.size(); ++i)
    if (all[i].depth == 3 && all[i].parent->kind == prog::Value::Kind::kObject &&
        all[i].parent->keys[all[i].index] == "extras")
      deep.ops.push_back({prog::kWrap, 0, static_cast<uint16_t>(i), 30000});
  if (deep.ops.size() != 1 || prog::render(deep).shape.depth < 30000) {
    std::fprintf(stderr, "make_gltf_seeds: the deep_extras base has no asset.extras\n");
    return 1;
  }
  uint8_t bytes[prog::kMaxProgramBytes];
  const size_t n = prog::encode(deep, bytes, sizeof bytes);
  std::ofstream out(json_regressions / "deep-extras-30000-levels.prog",
                    std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes), static_cast<std::streamsize>(n));
  return 0;
}
