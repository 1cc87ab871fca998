// StateWriter (persist/state_writer.h): the newest save offered is the one on disk once the
// writer is done; write_now writes on the caller's thread and an older save waiting never
// lands over it; a failing write is reported, not thrown.
#include "persist/state_writer.h"

#include <atomic>
#include <string>

#include <gtest/gtest.h>

#include "base/durable_file.h"
#include "process_tmp_dir.h"

namespace animd {
namespace state_writer_test {

TEST(StateWriter, TheNewestOfferIsWhatTheFileHolds) {
  const auto path = animtest::process_tmp_dir() / "characters.state";
  std::atomic<int> reports{0};
  {
    StateWriter w(path, [&](const anim::Status& s, uint64_t) {
      EXPECT_TRUE(s) << s.message();
      ++reports;
    });
    for (int k = 0; k < 200; ++k) w.offer("save " + std::to_string(k));
  }  // the destructor writes what waits
  auto got = read_durable(path, 1 << 20);
  ASSERT_TRUE(got) << got.error().message();
  EXPECT_EQ(*got, "save 199");
  EXPECT_GE(reports.load(), 1);
}

TEST(StateWriter, WriteNowWinsOverOlderOffers) {
  const auto path = animtest::process_tmp_dir() / "final.state";
  StateWriter w(path, {});
  for (int k = 0; k < 50; ++k) w.offer("periodic " + std::to_string(k));
  ASSERT_TRUE(w.write_now("final"));
  auto got = read_durable(path, 1 << 20);
  ASSERT_TRUE(got);
  EXPECT_EQ(*got, "final");
  EXPECT_GE(w.written(), 1u);
}

TEST(StateWriter, AFailedWriteIsReported) {
  const auto path = animtest::process_tmp_dir() / "no-such-folder" / "x.state";
  std::atomic<int> failures{0};
  {
    StateWriter w(path, [&](const anim::Status& s, uint64_t) { failures += s ? 0 : 1; });
    w.offer("lost");
  }
  EXPECT_EQ(failures.load(), 1);
  const anim::Status s = StateWriter(path, {}).write_now("x");
  EXPECT_FALSE(s);
}

}  // namespace state_writer_test
}  // namespace animd
