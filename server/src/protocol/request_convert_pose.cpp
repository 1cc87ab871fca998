// Held pose converters (request_convert_pose.h).
#include "protocol/request_convert_pose.h"

#include <cmath>
#include <string>

namespace animd {

namespace {

constexpr int kFloatsPerJoint = 10;  // translation xyz, rotation xyzw, scale xyz

}  // namespace

anim::Expected<WorldRequest> set_pose_request(const anim::v1::SetPoseRequest& r) {
  const int n = r.locals_size();
  if (n == 0 || n % kFloatsPerJoint != 0)
    return anim::invalid_argument("set_pose.locals: " + std::to_string(n) +
                                  " floats, not 10 per joint (translation xyz, rotation xyzw, "
                                  "scale xyz)");
  SetPose out;
  out.character = r.character_id();
  out.locals.resize(static_cast<size_t>(n / kFloatsPerJoint));
  for (int j = 0; j < n / kFloatsPerJoint; ++j) {
    const float* f = r.locals().data() + j * kFloatsPerJoint;
    for (int k = 0; k < kFloatsPerJoint; ++k)
      if (!std::isfinite(f[k]))
        return anim::invalid_argument("set_pose.locals[" + std::to_string(j * kFloatsPerJoint + k) +
                                      "] (joint " + std::to_string(j) + ") is not finite");
    anim::Transform& t = out.locals[static_cast<size_t>(j)];
    t.translation = {f[0], f[1], f[2]};
    t.rotation = glm::quat(f[6], f[3], f[4], f[5]);  // stored xyzw; glm takes w first
    t.scale = {f[7], f[8], f[9]};
  }
  return WorldRequest(std::move(out));
}

anim::Expected<WorldRequest> blend_out_pose_request(const anim::v1::BlendOutPoseRequest& r) {
  if (!std::isfinite(r.duration()) || r.duration() < 0.0f)
    return anim::invalid_argument("blend_out_pose.duration " + std::to_string(r.duration()) +
                                  " is not a finite number of seconds >= 0");
  return WorldRequest(BlendOutPose{r.character_id(), r.duration()});
}

}  // namespace animd
