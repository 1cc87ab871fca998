#include "base/config.h"

#include <algorithm>
#include <cmath>

namespace animd {

int Config::history_ticks() const {
  return std::max(1, static_cast<int>(std::lround(history_seconds * tick_rate)));
}

double Config::anim_budget() const {
  if (anim_budget_ms < 0.0) return kAutoBudgetShare * 1000.0 / tick_rate;
  return anim_budget_ms;
}

size_t Config::max_accepted_frame() const {
  return std::max(max_frame_bytes, max_upload_bytes);
}

}  // namespace animd
