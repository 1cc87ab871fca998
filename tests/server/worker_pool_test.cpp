// WorkerPool: every index runs exactly once, and a thread that stalls inside its block does
// not hold up the rest of the run (the others take the blocks it has not started).
#include "worker_pool.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace animd {
namespace {

struct Counts {
  std::vector<std::atomic<int>> runs;
  explicit Counts(size_t n) : runs(n) {}
  static void job(void* self, size_t begin, size_t end) {
    auto& c = *static_cast<Counts*>(self);
    for (size_t i = begin; i < end; ++i) c.runs[i].fetch_add(1, std::memory_order_relaxed);
  }
};

void EveryIndexRunsExactlyOnceIn(WorkerPool&& pool) {
  const int threads = pool.threads();
  for (size_t n :
       {size_t{0}, size_t{1}, size_t{5}, size_t{16}, size_t{17}, size_t{1000}, size_t{5003}}) {
    Counts counts(n);
    for (int round = 0; round < 3; ++round) pool.run(n, &Counts::job, &counts);
    for (size_t i = 0; i < n; ++i)
      ASSERT_EQ(counts.runs[i].load(), 3)
          << "index " << i << " of " << n << ", " << threads << " threads";
  }
}

TEST(WorkerPool, EveryIndexRunsExactlyOnce) {
  for (int threads : {1, 2, 3, 8}) {
    EveryIndexRunsExactlyOnceIn(WorkerPool(threads));
    // Yielding the core after each block changes nothing of what runs.
    EveryIndexRunsExactlyOnceIn(WorkerPool(threads, {}, true));
  }
}

// The thread that takes index 0 stalls before doing anything until three quarters of the
// indices are done. With the work dealt out in halves that never happens (the other thread
// owns only half); with blocks taken from a shared cursor, the other thread takes every block
// but the stalled one. The wait is bounded so that a regression fails instead of hanging.
struct StallFirst {
  size_t n = 0;
  std::atomic<size_t> done{0};
  std::atomic<bool> gave_up{false};
  std::mutex mutex;
  std::condition_variable cv;

  static void job(void* self, size_t begin, size_t end) {
    auto& s = *static_cast<StallFirst*>(self);
    if (begin == 0) {
      std::unique_lock lock(s.mutex);
      if (!s.cv.wait_for(lock, std::chrono::seconds(30),
                         [&] { return s.done.load() >= s.n - s.n / 4; }))
        s.gave_up = true;
    }
    for (size_t i = begin; i < end; ++i) {
      s.done.fetch_add(1);
      std::lock_guard lock(s.mutex);
      s.cv.notify_all();
    }
  }
};

TEST(WorkerPool, AStalledThreadsRemainingBlocksAreTakenByTheOthers) {
  for (bool yield : {false, true}) {
    WorkerPool pool(2, {}, yield);
    StallFirst s;
    s.n = 4096;
    pool.run(s.n, &StallFirst::job, &s);
    EXPECT_FALSE(s.gave_up) << "the other thread could not take the stalled thread's blocks";
    EXPECT_EQ(s.done.load(), s.n);
  }
}

}  // namespace
}  // namespace animd
