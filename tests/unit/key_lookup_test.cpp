// KeyLookup::find must agree with a brute-force reference (the last key at or before t,
// capped so that [i, i + 1] is an interval) for every key spacing and every query time.
#include "anim/key_lookup.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

namespace anim {
namespace key_lookup_test {

uint32_t reference(const std::vector<float>& times, float t) {
  const auto it = std::upper_bound(times.begin(), times.end(), t);
  const uint32_t i = it == times.begin() ? 0u : static_cast<uint32_t>(it - times.begin()) - 1;
  return std::min(i, static_cast<uint32_t>(times.size()) - 2);
}

// Query times: every key time, the floats just either side of it, the slot edges of a table
// with one slot per interval (and their neighbours), and a dense sweep.
std::vector<float> queries(const std::vector<float>& times) {
  std::vector<float> q;
  const float lo = times.front(), hi = times.back();
  for (float k : times) {
    q.push_back(k);
    q.push_back(std::nextafter(k, -INFINITY));
    q.push_back(std::nextafter(k, INFINITY));
  }
  const size_t slots = times.size() - 1;
  for (size_t s = 0; s <= slots; ++s) {
    const float edge = lo + (hi - lo) * static_cast<float>(s) / static_cast<float>(slots);
    q.push_back(edge);
    q.push_back(std::nextafter(edge, -INFINITY));
    q.push_back(std::nextafter(edge, INFINITY));
  }
  for (int i = 0; i <= 1000; ++i) q.push_back(lo + (hi - lo) * static_cast<float>(i) / 1000.0f);
  // find() is specified inside [front, back] only.
  std::erase_if(q, [&](float t) { return t < lo || t > hi; });
  return q;
}

void expect_matches_reference(const std::vector<float>& times) {
  const KeyLookup lookup(times);
  for (float t : queries(times))
    ASSERT_EQ(lookup.find(times, t), reference(times, t))
        << "t = " << t << " with " << times.size() << " keys";
}

TEST(KeyLookup, EvenlySpacedKeys) {
  std::vector<float> times;
  for (int i = 0; i <= 30; ++i) times.push_back(static_cast<float>(i) / 30.0f);
  expect_matches_reference(times);
}

TEST(KeyLookup, EvenlySpacedKeysNotStartingAtZero) {
  std::vector<float> times;
  for (int i = 0; i < 50; ++i) times.push_back(1.25f + 0.04f * static_cast<float>(i));
  expect_matches_reference(times);
}

TEST(KeyLookup, UnevenKeys) {
  expect_matches_reference({0.0f, 0.1f, 0.15f, 0.9f, 1.0f, 2.5f, 2.51f, 4.0f});
}

TEST(KeyLookup, ClusteredKeys) {
  // Most keys in a tiny burst, then a long gap: many slots hold the same key.
  std::vector<float> times;
  for (int i = 0; i < 40; ++i) times.push_back(0.001f * static_cast<float>(i));
  times.push_back(10.0f);
  for (int i = 1; i <= 20; ++i) times.push_back(10.0f + 0.0005f * static_cast<float>(i));
  times.push_back(100.0f);
  expect_matches_reference(times);
}

TEST(KeyLookup, DuplicateKeyTimes) {
  // Repeated times (a step in the data): the answer is the last of the equal keys, capped.
  expect_matches_reference({0.0f, 0.5f, 0.5f, 0.5f, 1.0f, 1.0f, 2.0f});
  expect_matches_reference({0.0f, 0.0f, 1.0f, 2.0f, 2.0f});
  const std::vector<float> times = {0.0f, 0.5f, 0.5f, 1.0f};
  EXPECT_EQ(KeyLookup(times).find(times, 0.5f), 2u);
  EXPECT_EQ(KeyLookup(times).find(times, 0.4999f), 0u);
}

TEST(KeyLookup, TwoKeys) {
  const std::vector<float> times = {0.25f, 0.75f};
  const KeyLookup lookup(times);
  EXPECT_EQ(lookup.find(times, 0.25f), 0u);
  EXPECT_EQ(lookup.find(times, 0.5f), 0u);
  EXPECT_EQ(lookup.find(times, 0.75f), 0u);  // capped at size - 2
  expect_matches_reference(times);
}

TEST(KeyLookup, AllKeysAtOneTime) {
  const std::vector<float> times = {1.0f, 1.0f, 1.0f};
  EXPECT_EQ(KeyLookup(times).find(times, 1.0f), 0u);
}

TEST(KeyLookup, ThousandsOfKeys) {
  // Evenly spaced with a deterministic jitter, so slot edges fall everywhere between keys.
  std::vector<float> times;
  uint32_t state = 12345;
  float t = 0.0f;
  for (int i = 0; i < 5000; ++i) {
    times.push_back(t);
    state = state * 1664525u + 1013904223u;
    t += 1.0f / 60.0f + static_cast<float>(state >> 8) / static_cast<float>(1u << 24) * 0.01f;
  }
  expect_matches_reference(times);
}

TEST(KeyLookup, ThousandsOfKeysWithLargeGaps) {
  std::vector<float> times;
  float t = 0.0f;
  for (int i = 0; i < 3000; ++i) {
    times.push_back(t);
    t += (i % 97 == 0) ? 3.0f : 0.001f;
  }
  expect_matches_reference(times);
}

}  // namespace key_lookup_test
}  // namespace anim
