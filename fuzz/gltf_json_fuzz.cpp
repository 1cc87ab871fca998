// Fuzz target `gltf_json`: structure-aware glTF documents of hostile size and shape.
//
// The input is a program (gltf_program.h): a base document (the `gltf` target's seeds and
// small instances of every attack of tests/support/hostile_gltf.h) and up to 48 edits of it
// (wrap a value in N arrays, repeat an item N times, set a number or a count, add a member,
// a sparse accessor, a counter for node chains, ...). LLVMFuzzerCustomMutator edits the
// program, so one mutation can nest a value 30,000 levels deep or repeat a node 400,000 times;
// byte-level mutation of the file (the `gltf` target) cannot grow an input that far.
//
// The document is rendered as text, as .gltf or .glb (about 4 MiB at most), and loaded with
// load_gltf_from_memory under the default GltfLimits. Checked: no crash or sanitizer report;
// the result is an error naming the label or an asset keeping every loader invariant
// (asset_checks.h); and a document past a JSON bound of GltfLimits (depth, values, items of
// a top-level collection) is refused with kResourceExhausted.
#include <cstddef>
#include <cstdint>
#include <random>
#include <span>
#include <string>

#include "anim/loaders/gltf_loader.h"
#include "asset_checks.h"
#include "fuzz_check.h"
#include "gltf_program.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace {

namespace prog = animfuzz::gltfprog;

// Larger documents enter the corpus only when a bound refuses them (below).
constexpr size_t kKeepBytes = size_t{64} << 10;

anim::GltfOptions options_of(const prog::Program& p) {
  anim::GltfOptions options;
  switch (p.flags & 3) {
    case 1:
      options.skin_index = (p.flags >> 3 & 3) % 3;
      break;
    case 2:
      options.skin_name = "skin";
      break;
    default:
      break;
  }
  return options;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const prog::Program p = prog::decode(data, size);
  const prog::Rendered r = prog::render(p);
  const anim::GltfOptions options = options_of(p);
  const std::string label = prog::renders_text(p) ? "fuzz.gltf" : "fuzz.glb";
  const std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(r.bytes.data()),
                                       r.bytes.size());
  const anim::Expected<anim::Asset> result = anim::load_gltf_from_memory(bytes, label, options);
  animfuzz::check_result(result, label);
  const anim::GltfLimits& limits = options.limits;
  const bool past_bound = r.shape.depth > limits.max_json_depth ||
                          r.shape.values > limits.max_json_values ||
                          r.widest_collection > limits.max_collection_items;
  if (past_bound) {
    FUZZ_CHECK(!result);
    FUZZ_CHECK(result.error().code() == anim::StatusCode::kResourceExhausted);
  }
  // Checked, but kept out of the corpus (-1): a document over kKeepBytes not refused by a
  // bound, which tinygltf parses whole, far slower than most inputs. libFuzzer replays its
  // whole corpus before fuzzing, whatever the time limit, and derives most inputs from it, so
  // such entries would make every short run start with a long replay. Mutation makes them
  // again; documents refused by a bound, cheap at any size, are kept.
  const bool refused = !result && result.error().code() == anim::StatusCode::kResourceExhausted;
  if (r.bytes.size() > kKeepBytes && !refused) return -1;
  return 0;
}

// Structured edits of the program; one in 32 is libFuzzer's own byte mutation (any bytes are
// a program). Not more: its random counts are mostly huge, so nearly every such input renders
// to the size cap, and documents that big but inside GltfLimits take a second to load.
extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  std::minstd_rand rng(seed);
  if (rng() % 32 == 0) return LLVMFuzzerMutate(data, size, max_size);
  prog::Program p = prog::decode(data, size);
  const int edits = 1 + static_cast<int>(rng() % 3 == 0 ? rng() % 4 : 0);
  for (int i = 0; i < edits; ++i) prog::mutate(p, rng);
  return prog::encode(p, data, max_size);
}

// Two programs crossed: one's header and first operations, then the other's last ones.
extern "C" size_t LLVMFuzzerCustomCrossOver(const uint8_t* data1, size_t size1,
                                            const uint8_t* data2, size_t size2, uint8_t* out,
                                            size_t max_out_size, unsigned int seed) {
  std::minstd_rand rng(seed);
  const prog::Program a = prog::decode(data1, size1);
  const prog::Program b = prog::decode(data2, size2);
  prog::Program c = a;
  c.ops.resize(a.ops.empty() ? 0 : rng() % (a.ops.size() + 1));
  const size_t from = b.ops.empty() ? 0 : rng() % (b.ops.size() + 1);
  for (size_t i = from; i < b.ops.size() && c.ops.size() < prog::kMaxOps; ++i)
    c.ops.push_back(b.ops[i]);
  return prog::encode(c, out, max_out_size);
}
