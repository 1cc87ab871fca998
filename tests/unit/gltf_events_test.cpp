// glTF animation events: read from each animation's extras.events (name, time, optional
// payload), sorted by time; entries of another shape or outside the clip are skipped with a
// warning naming them, and the asset still loads.
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "anim/loaders/gltf_loader.h"
#include "travel_gltf.h"

namespace anim {
namespace gltf_events_test {

using nlohmann::json;

bool has_warning(const Asset& a, const std::string& part) {
  for (const auto& w : a.warnings)
    if (w.find(part) != std::string::npos) return true;
  return false;
}

TEST(GltfEvents, ReadFromAnimationExtrasSortedByTime) {
  const json extras = {{"events",
                        {{{"name", "step_r"}, {"time", 0.75}, {"payload", "right"}},
                         {{"name", "step_l"}, {"time", 0.25}},
                         {{"name", "start"}, {"time", 0}}}}};
  const std::string path = animtest::travel_gltf(extras).write_glb("events_ok");
  const Expected<Asset> a = load_gltf(path);
  ASSERT_TRUE(a) << a.error().message();
  const int stride = a->find_clip("Stride");
  ASSERT_GE(stride, 0);
  const auto& ev = a->clips[stride].events;
  ASSERT_EQ(ev.size(), 3u);
  EXPECT_EQ(ev[0].name, "start");
  EXPECT_EQ(ev[0].time, 0.0f);
  EXPECT_EQ(ev[1].name, "step_l");
  EXPECT_EQ(ev[1].payload, "");
  EXPECT_EQ(ev[2].name, "step_r");
  EXPECT_EQ(ev[2].time, 0.75f);
  EXPECT_EQ(ev[2].payload, "right");
  EXPECT_TRUE(a->clips[a->find_clip("Stand")].events.empty());
  EXPECT_FALSE(has_warning(*a, "extras"));
}

TEST(GltfEvents, MalformedEntriesAreSkippedWithAWarning) {
  const json extras = {{"events",
                        {{{"name", "ok"}, {"time", 0.5}},
                         {{"name", "late"}, {"time", 3.0}},
                         {{"name", ""}, {"time", 0.1}},
                         {{"name", "no_time"}},
                         {{"name", "bad_payload"}, {"time", 0.2}, {"payload", 7}},
                         "just a string"}}};
  const std::string path = animtest::travel_gltf(extras).write_glb("events_bad");
  const Expected<Asset> a = load_gltf(path);
  ASSERT_TRUE(a) << a.error().message();
  const auto& ev = a->clips[a->find_clip("Stride")].events;
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].name, "ok");
  EXPECT_TRUE(has_warning(*a,
                          "animation 0 'Stride': extras.events[1].time 3.000000 is outside "
                          "[0, 1.000000] of clip 'Stride'; ignored"));
  EXPECT_TRUE(has_warning(*a, "extras.events[2].name is empty; ignored"));
  EXPECT_TRUE(has_warning(*a, "extras.events[3]: needs \"name\" (string), \"time\" (number)"));
  EXPECT_TRUE(has_warning(*a, "extras.events[4]: needs"));
  EXPECT_TRUE(has_warning(*a, "extras.events[5] is not an object; ignored"));

  const std::string path2 =
      animtest::travel_gltf(json{{"events", "step at 0.5"}}).write_glb("events_not_array");
  const Expected<Asset> b = load_gltf(path2);
  ASSERT_TRUE(b) << b.error().message();
  EXPECT_TRUE(has_warning(*b, "animation 0 'Stride': extras.events is not an array; ignored"));
  // Other extras are none of our business.
  const Expected<Asset> c =
      load_gltf(animtest::travel_gltf(json{{"author", "x"}}).write_glb("events_other"));
  ASSERT_TRUE(c);
  EXPECT_FALSE(has_warning(*c, "extras"));
}

}  // namespace gltf_events_test
}  // namespace anim
