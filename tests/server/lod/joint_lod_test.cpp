// Joint LOD decisions (lod/joint_lod.h): no skipping at pressure 0 or significance 1; below
// kDetailBelow under pressure, skipping; once skipping, kept until kDetailBelow +
// kDetailHysteresis, so a significance moving around the threshold does not flicker.
#include "lod/joint_lod.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

namespace animd {
namespace joint_lod_test {

TEST(JointLod, NothingIsSkippedWhileEverythingFits) {
  for (float s : {0.0f, 0.3f, 0.99f})
    for (bool skipping : {false, true}) EXPECT_FALSE(next_skip_detail(s, skipping, 0.0f));
  EXPECT_FALSE(next_skip_detail(0.0f, true, std::numeric_limits<float>::quiet_NaN()));
}

TEST(JointLod, SignificanceOneKeepsEveryJoint) {
  for (bool skipping : {false, true}) EXPECT_FALSE(next_skip_detail(1.0f, skipping, 64.0f));
}

TEST(JointLod, BelowTheThresholdUnderPressureSkips) {
  EXPECT_TRUE(next_skip_detail(0.0f, false, 0.25f));
  EXPECT_TRUE(next_skip_detail(0.49f, false, 0.25f));
  EXPECT_FALSE(next_skip_detail(0.5f, false, 0.25f));
  EXPECT_FALSE(next_skip_detail(0.8f, false, 64.0f));
}

TEST(JointLod, TheBandAboveTheThresholdKeepsTheCurrentChoice) {
  // 0.5 <= s < 0.6: whatever the character does now, it keeps doing.
  for (float s : {0.5f, 0.55f, 0.59f}) {
    EXPECT_TRUE(next_skip_detail(s, true, 1.0f)) << s;
    EXPECT_FALSE(next_skip_detail(s, false, 1.0f)) << s;
  }
  EXPECT_FALSE(next_skip_detail(0.6f, true, 1.0f));
  // A significance oscillating across 0.5 by less than the band changes the choice once.
  bool skipping = false;
  int changes = 0;
  for (int k = 0; k < 40; ++k) {
    const float s = k % 2 ? 0.48f : 0.57f;
    const bool next = next_skip_detail(s, skipping, 2.0f);
    changes += next != skipping;
    skipping = next;
  }
  EXPECT_EQ(changes, 1);
  EXPECT_TRUE(skipping);
}

}  // namespace joint_lod_test
}  // namespace animd
