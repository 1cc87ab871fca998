// Update-rate LOD: the allocator's step after each update, and set_significance
// (docs/animation.md, "Update rates").
#include <algorithm>

#include "world/world.h"

namespace animd {

void World::plan_update_rates(double update_ms) {
  SignificanceHistogram histogram{};
  size_t evaluated = 0, skipped = 0, detail_skipped = 0;
  std::fill(interval_counts_.begin(), interval_counts_.end(), 0);
  for (const UpdateRateCounts& t : lod_threads_) {
    for (size_t b = 0; b < histogram.size(); ++b) histogram[b] += t.histogram[b];
    for (size_t k = 0; k < t.intervals.size(); ++k) interval_counts_[k] += t.intervals[k];
    evaluated += t.evaluated;
    skipped += t.skipped;
    detail_skipped += t.detail_skipped;
  }
  cost_model_.observe(update_ms, evaluated, skipped, rate_policy_.skipped_cost);
  const double capacity = cost_model_.capacity(anim_budget_ms());
  pressure_ = choose_pressure(histogram, capacity, pressure_, rate_policy_);
  metrics_.anim_pressure.store(pressure_, std::memory_order_relaxed);
  metrics_.reduced_rate_characters.store(
      static_cast<uint32_t>(characters_.size() -
                            std::min<size_t>(characters_.size(), interval_counts_[0])),
      std::memory_order_relaxed);
  metrics_.detail_skipped_characters.store(static_cast<uint32_t>(detail_skipped),
                                           std::memory_order_relaxed);
  metrics_.character_updates_skipped.fetch_add(skipped, std::memory_order_relaxed);
}

double World::anim_budget_ms() const {
  if (config_.anim_budget_ms < 0.0) return auto_budget_share_ * 1000.0 / config_.tick_rate;
  return config_.anim_budget();
}

anim::Status World::handle(const SetSignificance& r, const CommandContext& ctx) {
  std::vector<Character*> found;
  found.reserve(r.characters.size());
  for (size_t k = 0; k < r.characters.size(); ++k) {
    const std::string field = "set_significance.character_ids[" + std::to_string(k) + "]";
    auto c = find_controlled(r.characters[k], field.c_str(), ctx.owner);
    if (!c) return c.error();
    found.push_back(*c);
  }
  for (Character* c : found) {
    c->significance_override = r.clear ? -1.0f : r.significance;
    if (r.clear) continue;
    // A rise takes effect at the next tick (the update plans from the override on).
    c->significance = r.significance;
  }
  return {};
}

}  // namespace animd
