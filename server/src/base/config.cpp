#include "base/config.h"

#include <algorithm>
#include <cmath>

namespace animd {

int Config::history_ticks() const {
  return std::max(1, static_cast<int>(std::lround(history_seconds * tick_rate)));
}

size_t Config::max_accepted_frame() const {
  return std::max(max_frame_bytes, max_upload_bytes);
}

}  // namespace animd
