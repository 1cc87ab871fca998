#include "protocol/request_convert_assets.h"

#include <iterator>
#include <utility>

namespace animd {

LoadRequest load_request_from_proto(anim::v1::LoadAssetRequest&& r) {
  LoadRequest out;
  switch (r.source_case()) {
    case anim::v1::LoadAssetRequest::kPath:
      out.source = LoadRequest::Source::kPath;
      out.path = r.path();
      break;
    case anim::v1::LoadAssetRequest::kGlbData:
      out.source = LoadRequest::Source::kGlbData;
      out.data = std::move(*r.mutable_glb_data());
      break;
    case anim::v1::LoadAssetRequest::kBvhData:
      out.source = LoadRequest::Source::kBvhData;
      out.data = std::move(*r.mutable_bvh_data());
      break;
    case anim::v1::LoadAssetRequest::SOURCE_NOT_SET:
      break;
  }
  out.name = r.name();
  if (r.has_skin_index()) out.skin_index = r.skin_index();
  out.skin_name = r.skin_name();
  if (r.has_bvh_scale()) out.bvh_scale = r.bvh_scale();
  out.clip_name = r.clip_name();
  out.attach_to = r.attach_to();
  out.shared = r.shared();
  out.detail_joints.assign(std::make_move_iterator(r.mutable_detail_joints()->begin()),
                           std::make_move_iterator(r.mutable_detail_joints()->end()));
  out.keep_all_joints = r.keep_all_joints();
  return out;
}

}  // namespace animd
