// Fuzz target: load_bvh_from_memory with the input as the .bvh text, then the loaded clip
// retargeted onto its own skeleton (every joint matches: the transfer runs on whatever poses
// the file holds). Checked: no crash or sanitizer report; the load is an error naming the
// label or an asset keeping every loader invariant (asset_checks.h); a retargeted clip is for
// the skeleton and samples to finite transforms.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "anim/loaders/bvh_loader.h"
#include "anim/retarget.h"
#include "asset_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto asset = anim::load_bvh_from_memory(text, "fuzz.bvh");
  animfuzz::check_result(asset, "fuzz.bvh");
  if (!asset) return 0;
  const anim::Skeleton& s = asset->skeleton;
  auto r = anim::retarget_clip(s, asset->clips[0], s);
  FUZZ_CHECK(r.has_value());
  FUZZ_CHECK(static_cast<int>(r->clip.joints.size()) == s.num_joints());
  std::vector<anim::Transform> pose(s.num_joints());
  for (float t : {0.0f, r->clip.duration * 0.5f, r->clip.duration}) {
    r->clip.sample(t, s.rest_pose, pose);
    for (const anim::Transform& x : pose) FUZZ_CHECK(anim::is_finite(x));
  }
  return 0;
}
