// The compact_frame fuzz target's checked-in seeds (fuzz/seeds/compact_frame) are the frames
// the codec writes today for fuzz/compact_frame_support.h's motion: when the bytes change,
// this fails and says how to rewrite them, so the fuzzer never starts from stale frames.
// ANIMD_REWRITE_SEEDS=1 in the environment rewrites them instead (then commit the files).
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <span>

#include <gtest/gtest.h>

#include "animcodec/compact.h"
#include "compact_frame_support.h"

TEST(CodecFuzzSeeds, CheckedInSeedsAreTodaysFrames) {
  const animcodec::Layout l = compactfuzz::layout();
  const auto p0 = compactfuzz::pose(l, 0), p1 = compactfuzz::pose(l, 1),
             p2 = compactfuzz::pose(l, 2);
  const auto r0 = compactfuzz::root(0), r1 = compactfuzz::root(1), r2 = compactfuzz::root(2);
  const char* names[] = {"key.bin", "delta1.bin", "delta2.bin"};
  for (int k = 0; k < 3; ++k) {
    animcodec::Baseline b;
    if (k >= 1) b.prev1 = p1, b.root1 = &r1;
    if (k >= 2) b.prev2 = p0, b.root2 = &r0;
    std::vector<uint8_t> frame(animcodec::max_frame_bytes(l.num_joints()));
    frame.resize(
        animcodec::encode_frame(l, static_cast<animcodec::FrameKind>(k), p2, r2, b, frame));
    std::vector<uint8_t> seed{static_cast<uint8_t>(k)};
    seed.insert(seed.end(), frame.begin(), frame.end());
    const std::string path =
        std::string(ANIMD_SOURCE_DIR) + "/fuzz/seeds/compact_frame/" + names[k];
    if (const char* rewrite = std::getenv("ANIMD_REWRITE_SEEDS"); rewrite && *rewrite == '1') {
      std::ofstream out(path, std::ios::binary | std::ios::trunc);
      out.write(reinterpret_cast<const char*>(seed.data()),
                static_cast<std::streamsize>(seed.size()));
      ASSERT_TRUE(out.good()) << "cannot write " << path;
    }
    std::ifstream in(path, std::ios::binary);
    const std::vector<uint8_t> file((std::istreambuf_iterator<char>(in)),
                                    std::istreambuf_iterator<char>());
    EXPECT_EQ(file, seed) << path << " is stale: write byte " << k
                          << " followed by this frame's bytes into it (ANIMD_REWRITE_SEEDS=1 does)";
    std::vector<animcodec::QJoint> pose(l.num_joints());
    animcodec::QRoot root;
    EXPECT_EQ(animcodec::decode_frame(l, std::span(file).subspan(1), b, pose, root), "") << path;
    EXPECT_TRUE(pose == p2);
  }
}
