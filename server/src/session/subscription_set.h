#pragma once
// The stream subscriptions of one connection: the active ones, and the changes waiting for
// the World's answer (a subscribe, an unsubscribe, a region move), each under its request's
// sequence number until its reply settles it. Keeps the daemon's counts of subscriptions by
// encoding (Metrics::compact_subscriptions, float_subscriptions, compact_paced_subscriptions)
// equal to its share: pending subscribes count. On the session's strand, but streaming() may
// be read by any thread.

#include <atomic>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "base/metrics.h"
#include "snapshot/stream_region.h"
#include "stream/stream_encoder.h"

namespace animd {

class SubscriptionSet {
 public:
  explicit SubscriptionSet(Metrics& metrics) : metrics_(metrics) {}
  SubscriptionSet(const SubscriptionSet&) = delete;
  SubscriptionSet& operator=(const SubscriptionSet&) = delete;

  // Active subscriptions, in the order they took effect.
  std::vector<StreamSubscription>& active() { return active_; }
  const std::vector<StreamSubscription>& active() const { return active_; }
  bool empty() const { return active_.empty(); }
  // Any thread: whether any is active (what the tick's snapshots are offered for).
  bool streaming() const { return streaming_.load(std::memory_order_relaxed); }
  bool any_compact() const;
  // Active and pending subscribes (what --max-subscriptions-per-connection caps).
  size_t count() const { return active_.size() + subscribing_.size(); }
  // The id the next subscribe gets (ids are per connection, from 1).
  uint32_t next_id() { return next_id_++; }

  // Changes waiting for the World's answer to request `seq`.
  void expect_subscribe(uint64_t seq, StreamSubscription sub);
  void expect_unsubscribe(uint64_t seq, uint32_t id);  // id 0: all of them
  void expect_region_move(uint64_t seq, uint32_t id, const StreamRegion& region);
  // The request `seq` was refused before it reached the World: nothing changes.
  void forget(uint64_t seq);
  // The World answered request `seq` (`ok`: it took effect at `tick`): what it waited for
  // takes effect. Returns true when no subscription is left active by it.
  bool settle(uint64_t seq, bool ok, uint64_t tick);

  // Ends the active subscriptions `ids`.
  void end(const std::vector<uint32_t>& ids);
  // The connection closed: its share of the counts goes, and nothing streams.
  void close();

 private:
  // Brings the metrics' counts up to this set's (none once closed).
  void recount();

  Metrics& metrics_;
  std::vector<StreamSubscription> active_;
  std::map<uint64_t, StreamSubscription> subscribing_;                  // by seq
  std::map<uint64_t, uint32_t> unsubscribing_;                          // by seq
  std::map<uint64_t, std::pair<uint32_t, StreamRegion>> region_moves_;  // by seq
  uint32_t next_id_ = 1;
  std::atomic<bool> streaming_{false};
  bool closed_ = false;
  // What recount() last added to each metric.
  int64_t compact_counted_ = 0;
  int64_t float_counted_ = 0;
  int64_t paced_counted_ = 0;  // compact ones at a rate divisor above 1
};

}  // namespace animd
