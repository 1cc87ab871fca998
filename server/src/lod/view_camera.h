#pragma once
// The camera a subscription may carry (SubscribeRequest.camera, stream.proto): where a
// client's renderer looks from. It feeds the characters' significance only (significance.h);
// it never changes which characters a subscription receives. Checked when made
// (request_convert.h: camera_from_proto); the World keeps one per subscription and turns it
// into a CameraCone once per tick.

#include <glm/glm.hpp>

namespace animd {

struct ViewCamera {
  glm::vec3 eye{0.0f};                   // world space, metres; each component in [-1e18, 1e18]
  glm::vec3 forward{0.0f, 0.0f, -1.0f};  // the view direction, unit length
  float vertical_fov = 1.0f;             // the full vertical field of view, radians, in (0, pi)
  float aspect = 1.0f;                   // width / height, in (0, 1e18]
};

}  // namespace animd
