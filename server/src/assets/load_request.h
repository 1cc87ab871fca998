#pragma once
// What a load_asset asks for, in the daemon's own terms (no protobuf): made from the wire
// request by load_request_from_proto (protocol/request_convert_assets.h) with its values as
// sent; asset_loading.h checks them.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace animd {

struct LoadRequest {
  enum class Source : uint8_t {
    kNone,     // no source given (refused)
    kPath,     // a file under the asset root: `path`
    kGlbData,  // uploaded .glb bytes: `data`
    kBvhData,  // uploaded .bvh text: `data`
  };
  Source source = Source::kNone;
  std::string path;  // kPath: relative to the asset root
  std::string data;  // kGlbData, kBvhData: the uploaded bytes
  std::string name;  // the new asset's name; empty: the file's stem
  // glTF: which skin (by index, else by name; neither: the loader's choice).
  std::optional<uint32_t> skin_index;
  std::string skin_name;
  // BVH: the scale applied to the file's units (default 1), and the clip's name.
  std::optional<float> bvh_scale;
  std::string clip_name;
  // BVH: the asset whose skeleton the clip is retargeted onto and appended to; empty: none.
  std::string attach_to;
  bool shared = false;  // usable and changeable by every control client (World::add_asset)
  // Joint LOD: the named joints (and those below them) are the detail joints; empty: derived
  // (anim/joint_detail.h), or none with keep_all_joints.
  std::vector<std::string> detail_joints;
  bool keep_all_joints = false;
};

}  // namespace animd
