#include "anim/asset.h"

namespace anim {

int Asset::find_clip(std::string_view clip_name) const {
  for (size_t i = 0; i < clips.size(); ++i)
    if (clips[i].name == clip_name) return static_cast<int>(i);
  return -1;
}

}  // namespace anim
