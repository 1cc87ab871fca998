// The pose history's frames are recycled: a frame that leaves the window is filled again by a
// later tick with the room its vectors already have, also when the tick loop skips numbers
// (each skip empties ring slots at once); frames made while readers hold retired ones are
// freed again once idle, down to one per ring slot and a few spares; a frame's vectors grow to
// what its tick needs and an eighth more, not to twice their size.
#include <cstdint>
#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "history/pose_history.h"

namespace animd {
namespace history_frames_test {

constexpr int kWindow = 16;
constexpr size_t kEntries = 100;

// One tick's frame filled with `words` words; returns the words' capacity the frame had
// before it was filled.
size_t fill_tick(PoseHistory& h, uint64_t tick, size_t words) {
  HistoryFrame& f = h.begin_tick(tick, static_cast<double>(tick) / 60.0);
  const size_t room = f.words.capacity();
  f.entries.resize(kEntries);
  f.placements.resize(kEntries);
  f.words.resize(words);
  h.publish();
  return room;
}

TEST(HistoryFrames, FramesRetiredBySkippedTicksAreFilledAgainWithTheirRoom) {
  PoseHistory h(kWindow);
  constexpr size_t kWide = 4000, kNarrow = 1000;
  uint64_t tick = 1;
  // Every frame made grows to kWide words; the ticks after fill kNarrow. A frame that was
  // freed and made again would show in the history's bytes.
  for (; tick <= 2 * kWindow; ++tick) fill_tick(h, tick, kWide);
  const size_t bytes = h.bytes();
  for (int round = 0; round < 40; ++round) {
    tick += 3 + round % 11;  // a late loop: up to 13 numbers skipped
    for (int k = 0; k < 1 + round % 3; ++k, ++tick) {
      EXPECT_GE(fill_tick(h, tick, kNarrow), kWide)
          << "tick " << tick << " (round " << round << ") was filled in a new frame";
      EXPECT_EQ(h.bytes(), bytes) << "frames were freed or made at tick " << tick;
    }
  }
}

TEST(HistoryFrames, FramesMadeWhileReadersHeldTheRetiredAreFreedOnceIdle) {
  PoseHistory h(kWindow);
  constexpr size_t kWords = 1000;
  uint64_t tick = 1;
  for (; tick <= 2 * kWindow; ++tick) fill_tick(h, tick, kWords);
  const size_t steady = h.bytes();
  // Readers hold every frame of the window while a window's worth of ticks runs: all but the
  // first of those ticks (it takes the one frame retired and not held) need a new frame.
  std::vector<FrameRef> held;
  for (uint64_t t = tick - kWindow; t < tick; ++t) held.push_back(h.at(t));
  for (int k = 0; k < kWindow; ++k, ++tick) fill_tick(h, tick, kWords);
  const size_t grown = h.bytes();
  EXPECT_GT(grown, steady + (kWindow - 1) * kWords * sizeof(uint32_t));
  held.clear();
  for (int k = 0; k < 2 * kWindow; ++k, ++tick) fill_tick(h, tick, kWords);
  // What is left: one frame per ring slot and 4 spares, i.e. 3 more than the steady state's
  // window and the one retired last.
  const size_t frame = (steady - sizeof(PoseHistory)) / (kWindow + 1);
  EXPECT_LT(h.bytes(), grown);
  EXPECT_LE(h.bytes(), steady + 3 * frame + 4 * sizeof(void*) * (kWindow + 8));
  EXPECT_GE(h.bytes(), steady);
}

TEST(HistoryFrames, AFrameGrowsToWhatItsTickNeedsNotToTwiceThat) {
  PoseHistory h(kWindow);
  auto asset = std::make_shared<const anim::Asset>();
  // One more entry than a power of two: growing by doubling would take twice the room.
  constexpr uint32_t kCharacters = 1025, kRoom = 13;
  HistoryFrame& f = h.begin_tick(1, 1.0 / 60.0);
  for (uint32_t id = 1; id <= kCharacters; ++id) add_entry(f, id, asset.get(), asset, kRoom);
  h.publish();
  EXPECT_LE(f.entries.capacity(), kCharacters + kCharacters / 8);
  EXPECT_LE(f.placements.capacity(), kCharacters + kCharacters / 8);
  EXPECT_LE(f.words.capacity(), (kCharacters + kCharacters / 8) * kRoom);
  EXPECT_GE(f.words.size(), kCharacters * kRoom);
}

}  // namespace history_frames_test
}  // namespace animd
