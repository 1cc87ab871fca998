// animview's camera following (--region): the orbit camera as the protocol's Camera
// (view_of), and when a changed camera is sent with the region subscription (CameraFollow):
// the first at once, then only once the eye has moved a tenth of the radius, the view has
// turned 5 degrees or the lens has changed 5 %, one change at a time, a refused one not
// retried until the view moves on. Pure logic; the e2e test
// (animview_e2e_connection_test.cpp) runs it against a daemon.
#include <cmath>

#include <gtest/gtest.h>

#include "camera_follow.h"

namespace animview {
namespace camera_follow_test {

CameraView looking_down_minus_z() {
  CameraView v;
  v.eye = {0, 1, 4};
  v.forward = {0, 0, -1};
  v.fov_y = 0.8f;
  v.aspect = 1.5f;
  return v;
}

// `v` turned by `degrees` around +Y.
CameraView turned(CameraView v, float degrees) {
  const float a = degrees * 3.14159265f / 180.0f;
  v.forward = {-std::sin(a), 0.0f, -std::cos(a)};
  return v;
}

TEST(CameraFollow, TheOrbitCameraLooksAtItsTarget) {
  OrbitCamera c;
  c.target = {0, 1, 0};
  c.yaw = 0.0f;
  c.pitch = 0.0f;
  c.distance = 4.0f;
  const auto v = view_of(c, 1.5f);
  ASSERT_TRUE(v);
  EXPECT_NEAR(v->eye.x, 0.0f, 1e-6f);
  EXPECT_NEAR(v->eye.y, 1.0f, 1e-6f);
  EXPECT_NEAR(v->eye.z, 4.0f, 1e-6f);
  EXPECT_NEAR(v->forward.z, -1.0f, 1e-6f);
  EXPECT_EQ(v->fov_y, OrbitCamera::kDefaultFovY);
  EXPECT_EQ(v->aspect, 1.5f);
  EXPECT_FALSE(view_of(c, 0.0f));  // a minimised window: no camera
  c.target = {std::nanf(""), 0, 0};
  EXPECT_FALSE(view_of(c, 1.5f));
}

TEST(CameraFollow, SendsTheFirstAtOnceThenWhenTheEyeHasMovedATenthOfTheRadius) {
  CameraFollow f(10.0f, std::nullopt);
  EXPECT_FLOAT_EQ(f.threshold(), 1.0f);
  const CameraView v = looking_down_minus_z();
  ASSERT_TRUE(f.update(v));
  EXPECT_TRUE(f.in_flight());
  CameraView moved = v;
  moved.eye.x = 5.0f;
  EXPECT_FALSE(f.update(moved));  // one change in flight at a time
  EXPECT_FALSE(f.accepted());
  f.answered(true);
  ASSERT_TRUE(f.accepted());
  EXPECT_EQ(f.accepted()->eye, v.eye);
  moved.eye.x = 0.9f;
  EXPECT_FALSE(f.update(moved));
  moved.eye.x = 1.0f;
  EXPECT_TRUE(f.update(moved));
}

TEST(CameraFollow, ATurnOfFiveDegreesOrALensChangeOfFivePercentIsSent) {
  const CameraView v = looking_down_minus_z();
  CameraFollow f(10.0f, v);  // the subscription started with it
  EXPECT_FALSE(f.update(v));
  EXPECT_FALSE(f.update(turned(v, 4.0f)));
  CameraView lens = v;
  lens.fov_y = v.fov_y * 1.04f;
  EXPECT_FALSE(f.update(lens));
  lens.aspect = v.aspect * 0.96f;
  EXPECT_FALSE(f.update(lens));
  EXPECT_TRUE(f.update(turned(v, 5.5f)));
  f.answered(true);
  lens = *f.accepted();
  lens.fov_y *= 1.06f;
  EXPECT_TRUE(f.update(lens));
  f.answered(true);
  lens.aspect *= 0.94f;
  EXPECT_TRUE(f.update(lens));
}

TEST(CameraFollow, ARefusedCameraIsNotRetriedUntilTheViewMovesOn) {
  const CameraView v = looking_down_minus_z();
  CameraFollow f(10.0f, v);
  const CameraView away = turned(v, 30.0f);
  ASSERT_TRUE(f.update(away));
  f.answered(false);
  EXPECT_EQ(f.accepted()->forward, v.forward);
  EXPECT_FALSE(f.update(away));              // not asked again every frame
  EXPECT_FALSE(f.update(turned(v, 33.0f)));  // still near the refused one
  ASSERT_TRUE(f.update(turned(v, 40.0f)));
  f.answered(true);
  EXPECT_FLOAT_EQ(f.accepted()->forward.z, -std::cos(40.0f * 3.14159265f / 180.0f));
}

}  // namespace camera_follow_test
}  // namespace animview
