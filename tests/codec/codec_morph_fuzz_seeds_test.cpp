// The compact_morphs fuzz target's checked-in seeds (fuzz/seeds/compact_morphs) are the bytes
// the codec writes today for fuzz/compact_morphs_support.h's weights: when the bytes change,
// this fails and says how to rewrite them, so the fuzzer never starts from stale inputs.
// ANIMD_REWRITE_SEEDS=1 in the environment rewrites them instead (then commit the files).
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "animcodec/morph_codec.h"
#include "compact_morphs_support.h"

TEST(MorphFuzzSeeds, CheckedInSeedsAreTodaysBytes) {
  // held: the selector byte (which weights the target holds); unchanged: empty bytes.
  struct Seed {
    const char* name;
    int held;
    bool unchanged;
  };
  for (const Seed& s : {Seed{"key.bin", 0, false}, Seed{"delta3.bin", 1, false},
                        Seed{"delta64.bin", 2, false}, Seed{"unchanged64.bin", 2, true}}) {
    const std::vector<uint16_t> baseline = morphfuzz::baseline(s.held);
    const std::vector<uint16_t> next = s.unchanged ? baseline : morphfuzz::next(s.held);
    std::string bytes;
    ASSERT_TRUE(s.held == 0 ? animcodec::encode_morph_key(next, bytes)
                            : animcodec::encode_morph_delta(next, baseline, bytes));
    const std::string seed = std::string(1, static_cast<char>(s.held)) + bytes;
    const std::string path = std::string(ANIMD_SOURCE_DIR) + "/fuzz/seeds/compact_morphs/" + s.name;
    if (const char* rewrite = std::getenv("ANIMD_REWRITE_SEEDS"); rewrite && *rewrite == '1') {
      std::ofstream out(path, std::ios::binary | std::ios::trunc);
      out.write(seed.data(), static_cast<std::streamsize>(seed.size()));
      ASSERT_TRUE(out.good()) << "cannot write " << path;
    }
    std::ifstream in(path, std::ios::binary);
    const std::string file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(file, seed) << path << " is stale: write byte " << s.held
                          << " followed by these bytes into it (ANIMD_REWRITE_SEEDS=1 does)";
    if (file.empty()) continue;
    std::vector<uint16_t> decoded;
    EXPECT_EQ(animcodec::decode_morphs(std::string_view(file).substr(1), baseline, decoded), "")
        << path;
    EXPECT_EQ(decoded, next) << path;
  }
}
