// QuantFramePool: a frame is handed out again once nobody holds it; as many frames as were in
// use at once lately stay kept (no frame made anew while subscribers hold as many again), and
// a peak longer than two windows ago lets its extras go, down to kMinFrames.
#include "snapshot/quant_frame_pool.h"

#include <algorithm>
#include <vector>

#include <gtest/gtest.h>

namespace animd {
namespace quant_frame_pool_test {

TEST(QuantFramePool, AFrameNobodyHoldsIsHandedOutAgain) {
  QuantFramePool pool;
  QuantRef held = pool.acquire();
  QuantRef other = pool.acquire();
  EXPECT_NE(held.get(), other.get());
  const QuantFrame* freed = other.get();
  other.reset();
  EXPECT_EQ(pool.acquire().get(), freed);
  EXPECT_EQ(pool.kept(), 2u);
}

TEST(QuantFramePool, KeepsAsManyAsWereHeldLatelyAndLetsALongPastPeakGo) {
  QuantFramePool pool;
  constexpr size_t kPeak = QuantFramePool::kMinFrames + 20;
  std::vector<QuantRef> held;
  for (size_t i = 0; i < kPeak; ++i) held.push_back(pool.acquire());
  EXPECT_EQ(pool.kept(), kPeak);
  std::vector<const QuantFrame*> frames;
  for (const QuantRef& r : held) frames.push_back(r.get());
  held.clear();
  // As many held again: the same frames, none made anew.
  for (size_t i = 0; i < kPeak; ++i) {
    held.push_back(pool.acquire());
    EXPECT_NE(std::find(frames.begin(), frames.end(), held.back().get()), frames.end()) << i;
  }
  held.clear();
  for (uint32_t i = 0; i < QuantFramePool::kPeakWindow; ++i) pool.acquire();
  EXPECT_EQ(pool.kept(), kPeak) << "a peak of the window before still counts";
  for (uint32_t i = 0; i < QuantFramePool::kPeakWindow; ++i) pool.acquire();
  EXPECT_EQ(pool.kept(), QuantFramePool::kMinFrames);
}

TEST(QuantFramePool, TicksThatAcquireNothingStillLetAPastPeakGo) {
  QuantFramePool pool;
  constexpr size_t kPeak = QuantFramePool::kMinFrames + 10;
  std::vector<QuantRef> held;
  for (size_t i = 0; i < kPeak; ++i) held.push_back(pool.acquire());
  QuantRef kept_one = held.front();
  held.clear();
  // The compact subscribers left: no frame is acquired, one is still held by a snapshot.
  for (uint32_t i = 0; i < 2 * QuantFramePool::kPeakWindow; ++i) pool.note_tick();
  EXPECT_EQ(pool.kept(), QuantFramePool::kMinFrames);
  // The held frame is not handed out again while held.
  for (size_t i = 0; i < QuantFramePool::kMinFrames; ++i) held.push_back(pool.acquire());
  for (const QuantRef& r : held) EXPECT_NE(r.get(), kept_one.get());
}

}  // namespace quant_frame_pool_test
}  // namespace animd
