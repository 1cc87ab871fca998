// SnapshotInbox (session/snapshot_inbox.h): one wake-up posted at a time, the newest few
// snapshots kept in order, and the discarded ones counted once.
#include "session/snapshot_inbox.h"

#include <gtest/gtest.h>

namespace animd {
namespace snapshot_inbox_test {

SnapshotPtr snapshot_of(uint64_t tick) {
  auto s = std::make_shared<Snapshot>();
  s->tick = tick;
  return s;
}

TEST(SnapshotInbox, OneWakeUpAtATimeAndTheNewestKeptInOrder) {
  SnapshotInbox inbox;
  EXPECT_TRUE(inbox.offer(snapshot_of(1)));   // post a wake-up
  EXPECT_FALSE(inbox.offer(snapshot_of(2)));  // one is posted already
  EXPECT_FALSE(inbox.nudge());
  for (uint64_t t = 3; t <= 7; ++t) inbox.offer(snapshot_of(t));
  std::deque<SnapshotPtr> taken{snapshot_of(99)};
  EXPECT_EQ(inbox.take(taken), 7u - SnapshotInbox::kMaxPending);
  ASSERT_EQ(taken.size(), SnapshotInbox::kMaxPending);
  for (size_t i = 0; i < taken.size(); ++i) EXPECT_EQ(taken[i]->tick, 8 - taken.size() + i);
  // Taken: the next offer or nudge posts again, and nothing is counted twice.
  EXPECT_TRUE(inbox.nudge());
  EXPECT_FALSE(inbox.offer(snapshot_of(8)));
  EXPECT_EQ(inbox.take(taken), 0u);
  ASSERT_EQ(taken.size(), 1u);
  EXPECT_EQ(taken[0]->tick, 8u);
  EXPECT_EQ(inbox.take(taken), 0u);
  EXPECT_TRUE(taken.empty());
}

}  // namespace snapshot_inbox_test
}  // namespace animd
