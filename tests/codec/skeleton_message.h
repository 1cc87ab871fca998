#pragma once
// SkeletonData as get_asset_data sends it (the daemon's proto_convert builds the same), for
// tests that hand a client-side decoder (Python, the web page) a skeleton without a daemon.

#include <glm/glm.hpp>

#include "anim/skeleton.h"
#include "anim/v1/assets.pb.h"
#include "animcodec/compact.h"

namespace codectest {

inline anim::v1::SkeletonData skeleton_data(const anim::Skeleton& s,
                                            const animcodec::Layout& layout) {
  anim::v1::SkeletonData d;
  auto add_mat4 = [](const glm::mat4& m, auto* out) {
    for (int c = 0; c < 4; ++c)
      for (int r = 0; r < 4; ++r) out->Add(m[c][r]);
  };
  for (int j = 0; j < s.num_joints(); ++j) {
    d.add_joint_names(s.names[j]);
    d.add_parents(s.parents[j]);
    auto* t = d.add_rest_pose();
    const auto& r = s.rest_pose[j];
    t->mutable_translation()->set_x(r.translation.x);
    t->mutable_translation()->set_y(r.translation.y);
    t->mutable_translation()->set_z(r.translation.z);
    t->mutable_rotation()->set_x(r.rotation.x);
    t->mutable_rotation()->set_y(r.rotation.y);
    t->mutable_rotation()->set_z(r.rotation.z);
    t->mutable_rotation()->set_w(r.rotation.w);
    t->mutable_scale()->set_x(r.scale.x);
    t->mutable_scale()->set_y(r.scale.y);
    t->mutable_scale()->set_z(r.scale.z);
    add_mat4(s.inverse_bind[j], d.mutable_inverse_bind());
  }
  add_mat4(s.root_transform, d.mutable_root_transform());
  d.set_compact_precision(animcodec::precision_bytes(layout));
  d.set_compact_skeleton_id(layout.id);
  return d;
}

}  // namespace codectest
