// SubscriptionSet (session/subscription_set.h): subscription changes wait for the World's
// answer and take effect only when it is OK; the daemon's counts by encoding follow the set
// (pending subscribes included) and lose its share when the connection closes.
#include "session/subscription_set.h"

#include <gtest/gtest.h>

namespace animd {
namespace subscription_set_test {

StreamSubscription sub_of(uint32_t id, anim::v1::Encoding encoding, uint32_t divisor = 1) {
  StreamSubscription s;
  s.id = id;
  s.all = true;
  s.encoding = encoding;
  s.divisor = divisor;
  return s;
}

struct Counts {
  int64_t compact, paced, floats;
  bool operator==(const Counts&) const = default;
};
Counts counts(const Metrics& m) {
  return {m.compact_subscriptions.load(), m.compact_paced_subscriptions.load(),
          m.float_subscriptions.load()};
}

TEST(SubscriptionSet, ASubscribeCountsWhilePendingAndTakesEffectWhenAnswered) {
  Metrics metrics;
  SubscriptionSet set(metrics);
  EXPECT_EQ(set.next_id(), 1u);
  set.expect_subscribe(10, sub_of(1, anim::v1::ENCODING_COMPACT, 2));
  EXPECT_EQ(set.count(), 1u);
  EXPECT_TRUE(set.empty());
  EXPECT_FALSE(set.streaming());
  EXPECT_EQ(counts(metrics), (Counts{1, 1, 0}));
  EXPECT_FALSE(set.settle(10, true, 77));
  ASSERT_EQ(set.active().size(), 1u);
  EXPECT_EQ(set.active()[0].start_tick, 77u);
  EXPECT_TRUE(set.streaming());
  EXPECT_TRUE(set.any_compact());
  EXPECT_EQ(set.count(), 1u);
  EXPECT_EQ(counts(metrics), (Counts{1, 1, 0}));
}

TEST(SubscriptionSet, RefusedSubscribesLeaveNothing) {
  Metrics metrics;
  SubscriptionSet set(metrics);
  set.expect_subscribe(1, sub_of(1, anim::v1::ENCODING_FLOAT_3X4));
  set.expect_subscribe(2, sub_of(2, anim::v1::ENCODING_FLOAT_3X4));
  EXPECT_EQ(counts(metrics), (Counts{0, 0, 2}));
  set.forget(1);            // refused before it reached the World
  set.settle(2, false, 5);  // refused by the World
  EXPECT_EQ(set.count(), 0u);
  EXPECT_FALSE(set.streaming());
  EXPECT_EQ(counts(metrics), (Counts{0, 0, 0}));
  set.settle(99, true, 5);  // an answer to a request that changed no subscription
  EXPECT_EQ(set.count(), 0u);
}

TEST(SubscriptionSet, UnsubscribeAndRegionMovesWaitForAnOkAnswer) {
  Metrics metrics;
  SubscriptionSet set(metrics);
  StreamSubscription region = sub_of(1, anim::v1::ENCODING_COMPACT);
  region.all = false;
  region.region = StreamRegion{};
  region.region->radius = 1.0f;
  set.expect_subscribe(1, region);
  set.expect_subscribe(2, sub_of(2, anim::v1::ENCODING_FLOAT_3X4));
  set.settle(1, true, 3);
  set.settle(2, true, 3);
  StreamRegion moved;
  moved.radius = 5.0f;
  set.expect_region_move(3, 1, moved);
  set.settle(3, false, 4);
  EXPECT_EQ(set.active()[0].region->radius, 1.0f);
  set.expect_region_move(4, 1, moved);
  set.settle(4, true, 4);
  EXPECT_EQ(set.active()[0].region->radius, 5.0f);
  set.expect_unsubscribe(5, 2);
  EXPECT_EQ(set.active().size(), 2u) << "not before the answer";
  EXPECT_FALSE(set.settle(5, true, 6));
  ASSERT_EQ(set.active().size(), 1u);
  EXPECT_EQ(set.active()[0].id, 1u);
  EXPECT_EQ(counts(metrics), (Counts{1, 0, 0}));
  set.expect_unsubscribe(6, 0);  // 0: all of them
  EXPECT_TRUE(set.settle(6, true, 7)) << "the last one went";
  EXPECT_FALSE(set.streaming());
  EXPECT_EQ(counts(metrics), (Counts{0, 0, 0}));
}

TEST(SubscriptionSet, EndingAndClosingTakeTheirShareOutOfTheCounts) {
  Metrics metrics;
  metrics.float_subscriptions = 5;  // other connections' share
  SubscriptionSet set(metrics);
  for (uint32_t id = 1; id <= 3; ++id) {
    set.expect_subscribe(
        id, sub_of(id, id == 1 ? anim::v1::ENCODING_COMPACT : anim::v1::ENCODING_FLOAT_3X4));
    set.settle(id, true, 1);
  }
  EXPECT_EQ(counts(metrics), (Counts{1, 0, 7}));
  set.end({1});
  EXPECT_FALSE(set.any_compact());
  EXPECT_EQ(counts(metrics), (Counts{0, 0, 7}));
  set.expect_subscribe(9, sub_of(9, anim::v1::ENCODING_COMPACT));
  set.close();
  EXPECT_FALSE(set.streaming());
  EXPECT_EQ(counts(metrics), (Counts{0, 0, 5}));
}

}  // namespace subscription_set_test
}  // namespace animd
