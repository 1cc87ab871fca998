#include "lod/joint_lod.h"

namespace animd {

bool next_skip_detail(float significance, bool skipping, float pressure) {
  if (!(pressure > 0.0f) || significance >= 1.0f) return false;
  const float threshold = skipping ? kDetailBelow + kDetailHysteresis : kDetailBelow;
  return significance < threshold;
}

}  // namespace animd
