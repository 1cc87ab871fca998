// ConnectionTable: admission, eviction of the longest-waiting connection, and the operations
// reserve, step by step.

#include "animops/connection_table.h"

#include <gtest/gtest.h>

namespace connection_table_test {

using animops::ConnectionTable;
using Verdict = ConnectionTable::Verdict;

TEST(ConnectionTable, AdmitsWithinTheLimits) {
  ConnectionTable t({4, 2, 1});
  const auto a = t.admit("a");
  const auto b = t.admit("b");
  EXPECT_EQ(a.verdict, Verdict::kAdmitted);
  EXPECT_EQ(b.verdict, Verdict::kAdmitted);
  EXPECT_NE(a.id, b.id);
  EXPECT_EQ(a.evicted, 0u);
  EXPECT_EQ(t.size(), 2u);
  t.remove(a.id);
  t.remove(a.id);  // twice: no-op
  EXPECT_EQ(t.size(), 1u);
  EXPECT_EQ(t.count("a"), 0u);
}

TEST(ConnectionTable, AnAddressAtItsLimitPushesOutItsOwnOldestWaitingConnection) {
  ConnectionTable t({10, 2, 1});
  const auto other = t.admit("b");
  const auto a1 = t.admit("a");
  const auto a2 = t.admit("a");
  ASSERT_TRUE(t.begin_request(a2.id));  // busy: not a candidate
  const auto a3 = t.admit("a");
  EXPECT_EQ(a3.verdict, Verdict::kAdmitted);
  EXPECT_EQ(a3.evicted, a1.id);
  EXPECT_EQ(a3.evicted_address, "a");
  EXPECT_EQ(t.count("a"), 2u);
  EXPECT_FALSE(t.begin_request(a1.id));  // evicted: close without answering
  // The other address was older and waiting, but not the one at its limit: untouched.
  EXPECT_TRUE(t.begin_request(other.id));
}

TEST(ConnectionTable, AFullTablePushesOutTheLongestWaiting) {
  ConnectionTable t({3, 3, 1});
  const auto a = t.admit("a");
  const auto b = t.admit("b");
  const auto c = t.admit("c");
  // a served a request and waits again: now b has waited longest.
  ASSERT_TRUE(t.begin_request(a.id));
  t.end_request(a.id);
  const auto d = t.admit("d");
  EXPECT_EQ(d.verdict, Verdict::kAdmitted);
  EXPECT_EQ(d.evicted, b.id);
  EXPECT_EQ(t.size(), 3u);
  const auto e = t.admit("e");
  EXPECT_EQ(e.evicted, c.id);
}

TEST(ConnectionTable, EveryoneBusyGivesTheReserveThenRefuses) {
  ConnectionTable t({2, 1, 2});
  const auto a = t.admit("a");
  const auto b = t.admit("b");
  ASSERT_TRUE(t.begin_request(a.id));
  ASSERT_TRUE(t.begin_request(b.id));
  // Address a at its limit, nothing of its own to evict: the reserve.
  const auto r1 = t.admit("a");
  EXPECT_EQ(r1.verdict, Verdict::kReserve);
  EXPECT_EQ(r1.evicted, 0u);
  // The table full, nothing waiting: the reserve.
  const auto r2 = t.admit("c");
  EXPECT_EQ(r2.verdict, Verdict::kReserve);
  EXPECT_EQ(t.reserve_size(), 2u);
  // The reserve full: its longest-waiting connection makes room.
  const auto r3 = t.admit("c");
  EXPECT_EQ(r3.verdict, Verdict::kReserve);
  EXPECT_EQ(r3.evicted, r1.id);
  // Everything busy: refused, by the limit that applied.
  ASSERT_TRUE(t.begin_request(r2.id));
  ASSERT_TRUE(t.begin_request(r3.id));
  EXPECT_EQ(t.admit("a").verdict, Verdict::kRefusedAddress);
  EXPECT_EQ(t.admit("d").verdict, Verdict::kRefusedTotal);
  EXPECT_TRUE(t.admit("d").refused());
  // A reserve slot comes back when its connection closes.
  t.remove(r2.id);
  EXPECT_EQ(t.admit("d").verdict, Verdict::kReserve);
  // A normal one likewise.
  t.remove(a.id);
  EXPECT_EQ(t.admit("a").verdict, Verdict::kAdmitted);
}

TEST(ConnectionTable, WithoutAReserveEveryoneBusyRefuses) {
  ConnectionTable t({1, 1, 0});
  ASSERT_TRUE(t.begin_request(t.admit("a").id));
  EXPECT_EQ(t.admit("b").verdict, Verdict::kRefusedTotal);
}

}  // namespace connection_table_test
