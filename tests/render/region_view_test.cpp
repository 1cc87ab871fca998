// animview's region following (--region): when the region moves with the camera
// (RegionFollow), the flags, and the stream state forgetting characters that left the region
// or were lost with dropped frames. Pure logic; the e2e test (animview_e2e_connection_test.cpp)
// runs it against a daemon.
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "options.h"
#include "region_follow.h"
#include "stream_state.h"

namespace animview {
namespace region_view_test {

TEST(RegionFollow, MovesOnceTheTargetIsATenthOfTheRadiusAwayOneMoveAtATime) {
  RegionFollow f(10.0f, {0, 0, 0});
  EXPECT_FLOAT_EQ(f.threshold(), 1.0f);
  EXPECT_FALSE(f.update({0.9f, 0, 0}));  // closer than a tenth of the radius
  auto c = f.update({1.0f, 0, 0});
  ASSERT_TRUE(c);
  EXPECT_EQ(*c, glm::vec3(1, 0, 0));
  EXPECT_TRUE(f.in_flight());
  EXPECT_FALSE(f.update({5.0f, 0, 0}));       // one move in flight at a time
  EXPECT_EQ(f.center(), glm::vec3(0, 0, 0));  // not yet accepted
  f.answered(true);
  EXPECT_EQ(f.center(), glm::vec3(1, 0, 0));
  EXPECT_FALSE(f.update({1.5f, 0, 0}));  // measured from the accepted centre
  c = f.update({5.0f, 0, 0});
  ASSERT_TRUE(c);
  EXPECT_EQ(*c, glm::vec3(5, 0, 0));
}

TEST(RegionFollow, SmallRegionsStillNeedFiveCentimetresAndNaNNeverMoves) {
  RegionFollow f(0.1f, {0, 0, 0});
  EXPECT_FLOAT_EQ(f.threshold(), 0.05f);
  EXPECT_FALSE(f.update({0.04f, 0, 0}));
  EXPECT_FALSE(f.update({std::nanf(""), 0, 0}));
  EXPECT_TRUE(f.update({0.05f, 0, 0}));
}

TEST(RegionFollow, ARefusedMoveKeepsTheRegionAndIsNotRetriedUntilTheTargetMovesOn) {
  RegionFollow f(10.0f, {0, 0, 0});
  ASSERT_TRUE(f.update({3, 0, 0}));
  f.answered(false);
  EXPECT_EQ(f.center(), glm::vec3(0, 0, 0));
  EXPECT_FALSE(f.update({3, 0, 0}));     // same place: not asked again every frame
  EXPECT_FALSE(f.update({3.5f, 0, 0}));  // still near the refused centre
  auto c = f.update({4.5f, 0, 0});
  ASSERT_TRUE(c);
  f.answered(true);
  EXPECT_EQ(f.center(), glm::vec3(4.5f, 0, 0));
}

TEST(RegionOptions, RadiusMarginAndTheirErrors) {
  Options o;
  std::string error;
  ASSERT_TRUE(parse_options({}, o, error)) << error;
  EXPECT_EQ(o.region_radius, 0.0f);
  EXPECT_EQ(o.region_margin, 3.0f);
  ASSERT_TRUE(parse_options({"--region", "12.5", "--region-margin=0"}, o, error)) << error;
  EXPECT_EQ(o.region_radius, 12.5f);
  EXPECT_EQ(o.region_margin, 0.0f);
  for (const char* bad : {"0", "-1", "nan", "x", "1e7"}) {
    EXPECT_FALSE(parse_options({"--region", bad}, o, error)) << bad;
    EXPECT_NE(error.find("--region"), std::string::npos) << error;
  }
  EXPECT_FALSE(parse_options({"--region-margin", "-1"}, o, error));
  EXPECT_NE(error.find("--region-margin"), std::string::npos) << error;
  EXPECT_FALSE(parse_options({"--region", "5", "--characters", "1"}, o, error));
  EXPECT_NE(error.find("exclude each other"), std::string::npos) << error;
}

anim::v1::StreamFrame frame_of(uint64_t tick, std::vector<uint32_t> ids) {
  anim::v1::StreamFrame f;
  f.set_tick(tick);
  f.set_server_time(0.1 * static_cast<double>(tick));
  for (uint32_t id : ids) {
    auto* c = f.add_characters();
    c->set_character_id(id);
    c->set_asset("builtin");
    for (int i = 0; i < 12; ++i) c->add_palette(i % 5 == 0 ? 1.0f : 0.0f);
  }
  return f;
}

TEST(RegionStream, CharactersThatLeaveTheRegionAreForgotten) {
  StreamState s;
  s.on_frame(frame_of(1, {1, 2, 3}), 1.0);
  ASSERT_EQ(s.characters().size(), 3u);
  anim::v1::StreamFrame f = frame_of(2, {1});
  f.add_left(2);
  s.on_frame(f, 1.1);
  EXPECT_EQ(s.characters().size(), 2u);
  EXPECT_EQ(s.characters().count(2), 0u);
  EXPECT_EQ(s.characters().count(3), 1u);  // not in this frame, still a member
}

TEST(RegionStream, AfterDroppedFramesOnlyTheListedMembersStay) {
  StreamState s;
  s.on_frame(frame_of(1, {1, 2, 3}), 1.0);
  anim::v1::StreamFrame f = frame_of(5, {3});
  f.set_dropped_since_last(3);  // the lost frames said 1 left; 2 is still followed
  f.add_members(2);
  f.add_members(3);
  s.on_frame(f, 1.5);
  EXPECT_EQ(s.characters().size(), 2u);
  EXPECT_EQ(s.characters().count(1), 0u);
  // A later part of a split frame does not carry members: nothing is forgotten by it.
  anim::v1::StreamFrame part = frame_of(6, {2});
  part.set_dropped_since_last(1);
  part.set_part(1);
  part.set_parts(2);
  s.on_frame(part, 1.6);
  EXPECT_EQ(s.characters().size(), 2u);
}

}  // namespace region_view_test
}  // namespace animview
