// A subscription's camera at the edge between the wire and the World (camera_from_proto,
// request_convert.h): a good one keeps its values (forward made unit length) on any kind of
// subscription; update_subscription changes only what it gives; every bad field is refused
// with a message naming it, in subscribe and in update_subscription alike.
#include <cmath>
#include <functional>
#include <limits>
#include <numbers>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "protocol/request_convert.h"
#include "session/command_table.h"

namespace animd {
namespace request_convert_camera_test {

using anim::v1::Request;

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kPi = std::numbers::pi_v<float>;  // rounds above pi

void set(anim::v1::Vec3* v, float x, float y, float z) {
  v->set_x(x);
  v->set_y(y);
  v->set_z(z);
}

// A good camera: at (1, 2, 3) looking along (0, 0, -5), 60 degrees, 16:9.
void good_camera(anim::v1::Camera* c) {
  set(c->mutable_eye(), 1, 2, 3);
  set(c->mutable_forward(), 0, 0, -5);
  c->set_vertical_fov(kPi / 3);
  c->set_aspect(16.0f / 9.0f);
}

TEST(RequestConvertCamera, ASubscribeKeepsItsCameraWithAnyWayOfChoosingCharacters) {
  for (int way = 0; way < 3; ++way) {
    Request r;
    auto* s = r.mutable_subscribe();
    if (way == 0) s->add_character_ids(7);
    if (way == 1) s->set_all_characters(true);
    if (way == 2) s->mutable_region()->mutable_sphere()->set_radius(5.0f);
    good_camera(s->mutable_camera());
    const auto converted = to_world_request(r);
    ASSERT_TRUE(converted) << converted.error().message();
    const auto& sub = std::get<Subscribe>(*converted);
    ASSERT_TRUE(sub.camera) << "way " << way;
    EXPECT_EQ(sub.camera->eye, glm::vec3(1, 2, 3));
    EXPECT_EQ(sub.camera->forward, glm::vec3(0, 0, -1));
    EXPECT_EQ(sub.camera->vertical_fov, kPi / 3);
    EXPECT_EQ(sub.camera->aspect, 16.0f / 9.0f);
  }
  Request none;
  none.mutable_subscribe()->set_all_characters(true);
  const auto converted = to_world_request(none);
  ASSERT_TRUE(converted);
  EXPECT_FALSE(std::get<Subscribe>(*converted).camera);
}

TEST(RequestConvertCamera, ForwardIsMadeUnitLengthFromAnyLength) {
  struct Case {
    glm::vec3 in, out;
  };
  for (const Case& c : {Case{{3, 0, 4}, {0.6f, 0, 0.8f}}, Case{{0, 1e-45f, 0}, {0, 1, 0}},
                        Case{{-1e18f, 0, 0}, {-1, 0, 0}}}) {
    Request r;
    r.mutable_subscribe()->set_all_characters(true);
    good_camera(r.mutable_subscribe()->mutable_camera());
    set(r.mutable_subscribe()->mutable_camera()->mutable_forward(), c.in.x, c.in.y, c.in.z);
    const auto converted = to_world_request(r);
    ASSERT_TRUE(converted) << converted.error().message();
    const glm::vec3 f = std::get<Subscribe>(*converted).camera->forward;
    EXPECT_FLOAT_EQ(f.x, c.out.x);
    EXPECT_FLOAT_EQ(f.y, c.out.y);
    EXPECT_FLOAT_EQ(f.z, c.out.z);
  }
}

TEST(RequestConvertCamera, AnUpdateChangesOnlyWhatItGives) {
  Request camera_only;
  camera_only.mutable_update_subscription()->set_subscription_id(3);
  good_camera(camera_only.mutable_update_subscription()->mutable_camera());
  auto converted = to_world_request(camera_only);
  ASSERT_TRUE(converted) << converted.error().message();
  auto u = std::get<UpdateSubscription>(*converted);
  EXPECT_EQ(u.subscription_id, 3u);
  EXPECT_FALSE(u.region);
  ASSERT_TRUE(u.camera);
  EXPECT_EQ(u.camera->eye, glm::vec3(1, 2, 3));
  EXPECT_FALSE(u.clear_camera);

  Request region_only;
  region_only.mutable_update_subscription()->mutable_region()->mutable_sphere()->set_radius(4.0f);
  converted = to_world_request(region_only);
  ASSERT_TRUE(converted) << converted.error().message();
  u = std::get<UpdateSubscription>(*converted);
  ASSERT_TRUE(u.region);
  EXPECT_EQ(u.region->radius, 4.0f);
  EXPECT_FALSE(u.camera);
  EXPECT_FALSE(u.clear_camera);

  Request clear;
  clear.mutable_update_subscription()->set_clear_camera(true);
  converted = to_world_request(clear);
  ASSERT_TRUE(converted) << converted.error().message();
  u = std::get<UpdateSubscription>(*converted);
  EXPECT_FALSE(u.region);
  EXPECT_FALSE(u.camera);
  EXPECT_TRUE(u.clear_camera);

  Request both = region_only;
  good_camera(both.mutable_update_subscription()->mutable_camera());
  converted = to_world_request(both);
  ASSERT_TRUE(converted) << converted.error().message();
  u = std::get<UpdateSubscription>(*converted);
  EXPECT_TRUE(u.region);
  EXPECT_TRUE(u.camera);
}

// One bad camera field, and the message's tail after the field's prefix.
struct BadCamera {
  const char* what;
  std::function<void(anim::v1::Camera&)> make;
  std::string message;  // after "subscribe.camera." / "update_subscription.camera."
};

std::vector<BadCamera> bad_cameras() {
  using C = anim::v1::Camera;
  auto eye = [](float x, float y, float z) { return [=](C& c) { set(c.mutable_eye(), x, y, z); }; };
  auto forward = [](float x, float y, float z) {
    return [=](C& c) { set(c.mutable_forward(), x, y, z); };
  };
  return {
      {"eye NaN", eye(0, kNan, 0), "eye.y is NaN"},
      {"eye infinite", eye(0, 0, -kInf), "eye.z is infinite"},
      {"eye too far", eye(2e18f, 0, 0), "eye: every component must be within [-1e18, 1e18]"},
      {"forward NaN", forward(kNan, 0, 0), "forward.x is NaN"},
      {"forward too long", forward(0, -2e18f, 0),
       "forward: every component must be within [-1e18, 1e18]"},
      {"forward zero", forward(0, 0, 0), "forward must not be zero"},
      {"forward unset", [](C& c) { c.clear_forward(); }, "forward must not be zero"},
      {"fov 0", [](C& c) { c.set_vertical_fov(0.0f); }, "vertical_fov must be in (0, pi) radians"},
      {"fov negative", [](C& c) { c.set_vertical_fov(-1.0f); },
       "vertical_fov must be in (0, pi) radians"},
      {"fov pi", [](C& c) { c.set_vertical_fov(kPi); }, "vertical_fov must be in (0, pi) radians"},
      {"fov NaN", [](C& c) { c.set_vertical_fov(kNan); },
       "vertical_fov must be in (0, pi) radians"},
      {"aspect 0", [](C& c) { c.set_aspect(0.0f); }, "aspect must be > 0 and <= 1e18"},
      {"aspect negative", [](C& c) { c.set_aspect(-1.0f); }, "aspect must be > 0 and <= 1e18"},
      {"aspect NaN", [](C& c) { c.set_aspect(kNan); }, "aspect must be > 0 and <= 1e18"},
      {"aspect infinite", [](C& c) { c.set_aspect(kInf); }, "aspect must be > 0 and <= 1e18"},
      {"aspect huge", [](C& c) { c.set_aspect(2e18f); }, "aspect must be > 0 and <= 1e18"},
  };
}

TEST(RequestConvertCamera, EveryBadFieldIsRefusedAndNamedInSubscribeAndUpdate) {
  for (const auto& bad : bad_cameras()) {
    Request sub;
    sub.mutable_subscribe()->mutable_region()->mutable_sphere()->set_radius(5.0f);
    good_camera(sub.mutable_subscribe()->mutable_camera());
    bad.make(*sub.mutable_subscribe()->mutable_camera());
    Request update;
    update.mutable_update_subscription()->set_subscription_id(1);
    update.mutable_update_subscription()->mutable_region()->mutable_sphere()->set_radius(5.0f);
    good_camera(update.mutable_update_subscription()->mutable_camera());
    bad.make(*update.mutable_update_subscription()->mutable_camera());
    for (const auto& [r, prefix] : {std::pair{&sub, "subscribe.camera."},
                                    std::pair{&update, "update_subscription.camera."}}) {
      const auto converted = to_world_request(*r);
      ASSERT_FALSE(converted) << bad.what << ": accepted";
      EXPECT_EQ(converted.error().code(), anim::StatusCode::kInvalidArgument) << bad.what;
      EXPECT_EQ(converted.error().message(), prefix + bad.message) << bad.what;
    }
  }
}

TEST(RequestConvertCamera, TheEdgesOfTheRangesAreAccepted) {
  Request r;
  r.mutable_subscribe()->set_all_characters(true);
  auto* c = r.mutable_subscribe()->mutable_camera();
  good_camera(c);
  set(c->mutable_eye(), -1e18f, 1e18f, 0);
  c->set_vertical_fov(std::nextafter(kPi, 0.0f));
  c->set_aspect(1e18f);
  EXPECT_TRUE(to_world_request(r));
  c->set_vertical_fov(std::numeric_limits<float>::denorm_min());
  c->set_aspect(std::numeric_limits<float>::denorm_min());
  EXPECT_TRUE(to_world_request(r));
}

TEST(RequestConvertCamera, AnUpdateMustChangeSomethingAndNotSetAndClearTheCamera) {
  Request nothing;
  nothing.mutable_update_subscription()->set_subscription_id(2);
  auto converted = to_world_request(nothing);
  ASSERT_FALSE(converted);
  EXPECT_EQ(converted.error().code(), anim::StatusCode::kInvalidArgument);
  EXPECT_EQ(converted.error().message(),
            "update_subscription: give a region, a camera or clear_camera (nothing to change)");

  Request both;
  good_camera(both.mutable_update_subscription()->mutable_camera());
  both.mutable_update_subscription()->set_clear_camera(true);
  converted = to_world_request(both);
  ASSERT_FALSE(converted);
  EXPECT_EQ(converted.error().message(),
            "update_subscription: give either camera or clear_camera, not both");

  // A bad region refuses the whole update, its good camera with it.
  Request bad_region;
  good_camera(bad_region.mutable_update_subscription()->mutable_camera());
  bad_region.mutable_update_subscription()->mutable_region()->mutable_sphere()->set_radius(-1.0f);
  converted = to_world_request(bad_region);
  ASSERT_FALSE(converted);
  EXPECT_EQ(converted.error().message(),
            "update_subscription.region.sphere.radius must be > 0 and <= 1e18");
}

}  // namespace request_convert_camera_test
}  // namespace animd
