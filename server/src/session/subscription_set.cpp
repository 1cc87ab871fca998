#include "session/subscription_set.h"

#include <algorithm>

namespace animd {

bool SubscriptionSet::any_compact() const {
  return std::any_of(active_.begin(), active_.end(), [](const StreamSubscription& sub) {
    return sub.encoding == anim::v1::ENCODING_COMPACT;
  });
}

void SubscriptionSet::expect_subscribe(uint64_t seq, StreamSubscription sub) {
  subscribing_.emplace(seq, std::move(sub));
  recount();
}

void SubscriptionSet::expect_unsubscribe(uint64_t seq, uint32_t id) {
  unsubscribing_.emplace(seq, id);
}

void SubscriptionSet::expect_region_move(uint64_t seq, uint32_t id, const StreamRegion& region) {
  region_moves_.emplace(seq, std::make_pair(id, region));
}

void SubscriptionSet::forget(uint64_t seq) {
  subscribing_.erase(seq);
  unsubscribing_.erase(seq);
  region_moves_.erase(seq);
  recount();
}

bool SubscriptionSet::settle(uint64_t seq, bool ok, uint64_t tick) {
  bool emptied = false;
  if (auto it = subscribing_.find(seq); it != subscribing_.end()) {
    if (ok) {
      it->second.start_tick = tick;
      active_.push_back(std::move(it->second));
    }
    subscribing_.erase(it);
  }
  if (auto it = region_moves_.find(seq); it != region_moves_.end()) {
    if (ok)
      for (auto& sub : active_)
        if (sub.id == it->second.first && sub.region) sub.region = it->second.second;
    region_moves_.erase(it);
  }
  if (auto it = unsubscribing_.find(seq); it != unsubscribing_.end()) {
    if (ok) {
      const uint32_t id = it->second;
      std::erase_if(active_, [id](const StreamSubscription& s) { return id == 0 || s.id == id; });
      emptied = active_.empty();
    }
    unsubscribing_.erase(it);
  }
  streaming_.store(!closed_ && !active_.empty());
  recount();
  return emptied;
}

void SubscriptionSet::end(const std::vector<uint32_t>& ids) {
  std::erase_if(active_, [&](const StreamSubscription& sub) {
    return std::find(ids.begin(), ids.end(), sub.id) != ids.end();
  });
  streaming_.store(!closed_ && !active_.empty());
  recount();
}

void SubscriptionSet::close() {
  closed_ = true;
  streaming_.store(false);
  recount();
}

void SubscriptionSet::recount() {
  int64_t compact = 0, paced = 0, total = 0;
  if (!closed_) {
    auto tally = [&](const StreamSubscription& sub) {
      const bool c = sub.encoding == anim::v1::ENCODING_COMPACT;
      compact += c;
      paced += c && sub.divisor > 1;
    };
    for (const auto& sub : active_) tally(sub);
    for (const auto& [seq, sub] : subscribing_) tally(sub);
    total = static_cast<int64_t>(count());
  }
  const int64_t floats = total - compact;
  if (compact != compact_counted_)
    metrics_.compact_subscriptions.fetch_add(compact - compact_counted_, std::memory_order_relaxed);
  if (paced != paced_counted_)
    metrics_.compact_paced_subscriptions.fetch_add(paced - paced_counted_,
                                                   std::memory_order_relaxed);
  if (floats != float_counted_)
    metrics_.float_subscriptions.fetch_add(floats - float_counted_, std::memory_order_relaxed);
  compact_counted_ = compact;
  paced_counted_ = paced;
  float_counted_ = floats;
}

}  // namespace animd
