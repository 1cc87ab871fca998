// LogLimiter: a burst of each key is logged, the rest counted, and one summary line per key
// says how many were suppressed when its window ends. The clock is the test's.
#include "base/log_limiter.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace animd {
namespace log_limiter_test {

struct Recorder {
  std::vector<std::string> lines;
  LogLimiter::Emit emit() {
    return [this](const std::string& line) { lines.push_back(line); };
  }
};

TEST(LogLimiter, BurstThenSuppressionThenOneSummary) {
  Recorder rec;
  LogLimiter lim(3, 60.0, rec.emit());
  int allowed = 0;
  for (int i = 0; i < 1237; ++i) allowed += lim.allow("session closed: bad frame", 10.0 + i * 0.01);
  EXPECT_EQ(allowed, 3);
  EXPECT_TRUE(rec.lines.empty());  // nothing said before the window ends
  lim.flush(69.9);                 // 59.9 s after the first: still the same window
  EXPECT_TRUE(rec.lines.empty());
  lim.flush(70.0);
  ASSERT_EQ(rec.lines.size(), 1u);
  EXPECT_EQ(rec.lines[0],
            "1,234 similar messages suppressed in the last minute: session closed: bad frame");
  // Said once only.
  lim.flush(200.0);
  EXPECT_EQ(rec.lines.size(), 1u);
}

TEST(LogLimiter, NewWindowAllowsABurstAgain) {
  Recorder rec;
  LogLimiter lim(2, 60.0, rec.emit());
  EXPECT_TRUE(lim.allow("k", 0.0));
  EXPECT_TRUE(lim.allow("k", 1.0));
  EXPECT_FALSE(lim.allow("k", 2.0));
  // The next call after the window ends emits the summary and starts a fresh burst.
  EXPECT_TRUE(lim.allow("k", 61.0));
  ASSERT_EQ(rec.lines.size(), 1u);
  EXPECT_EQ(rec.lines[0], "1 similar messages suppressed in the last minute: k");
  EXPECT_TRUE(lim.allow("k", 62.0));
  EXPECT_FALSE(lim.allow("k", 63.0));
}

TEST(LogLimiter, NoSummaryWhenNothingWasSuppressed) {
  Recorder rec;
  LogLimiter lim(5, 60.0, rec.emit());
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(lim.allow("quiet", i));
  lim.flush(1000.0);
  EXPECT_TRUE(rec.lines.empty());
}

TEST(LogLimiter, KeysAreIndependent) {
  Recorder rec;
  LogLimiter lim(1, 60.0, rec.emit());
  EXPECT_TRUE(lim.allow("a", 0.0));
  EXPECT_FALSE(lim.allow("a", 0.1));
  EXPECT_FALSE(lim.allow("a", 0.2));
  // "a" being suppressed does not touch "b", whose window starts later.
  EXPECT_TRUE(lim.allow("b", 30.0));
  EXPECT_FALSE(lim.allow("b", 31.0));
  lim.flush(60.0);  // a's window ended, b's has not
  ASSERT_EQ(rec.lines.size(), 1u);
  EXPECT_EQ(rec.lines[0], "2 similar messages suppressed in the last minute: a");
  lim.flush(90.0);
  ASSERT_EQ(rec.lines.size(), 2u);
  EXPECT_EQ(rec.lines[1], "1 similar messages suppressed in the last minute: b");
}

TEST(LogLimiter, OtherWindowsNameTheirLength) {
  Recorder rec;
  LogLimiter lim(1, 10.0, rec.emit());
  lim.allow("x", 0.0);
  lim.allow("x", 1.0);
  lim.flush(10.0);
  ASSERT_EQ(rec.lines.size(), 1u);
  EXPECT_EQ(rec.lines[0], "1 similar messages suppressed in the last 10 s: x");
}

TEST(LogLimiter, WithCommas) {
  EXPECT_EQ(with_commas(0), "0");
  EXPECT_EQ(with_commas(7), "7");
  EXPECT_EQ(with_commas(999), "999");
  EXPECT_EQ(with_commas(1000), "1,000");
  EXPECT_EQ(with_commas(1234), "1,234");
  EXPECT_EQ(with_commas(12345), "12,345");
  EXPECT_EQ(with_commas(123456), "123,456");
  EXPECT_EQ(with_commas(1234567), "1,234,567");
  EXPECT_EQ(with_commas(1000000000), "1,000,000,000");
  EXPECT_EQ(with_commas(18446744073709551615ull), "18,446,744,073,709,551,615");
}

}  // namespace log_limiter_test
}  // namespace animd
