// WorkerPool: every index runs exactly once, each thread of a run has its own thread number,
// and a thread that stalls inside its block does not hold up the rest of the run (the others
// take the blocks it has not started).
#include "worker_pool.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace animd {
namespace {

struct Counts {
  std::vector<std::atomic<int>> runs;
  // Per thread number, the OS thread that ran it in this run (0: none yet).
  std::vector<std::atomic<size_t>> owner;
  std::atomic<int> bad_numbers{0};  // out of range, or given to two threads in one run
  Counts(size_t n, int threads) : runs(n), owner(static_cast<size_t>(threads)) {}
  void new_run() {
    for (auto& o : owner) o.store(0);
  }
  static void job(void* self, size_t begin, size_t end, int thread) {
    auto& c = *static_cast<Counts*>(self);
    if (thread < 0 || static_cast<size_t>(thread) >= c.owner.size()) {
      c.bad_numbers.fetch_add(1);
    } else {
      const size_t me = std::hash<std::thread::id>{}(std::this_thread::get_id()) | 1;
      size_t expected = 0;
      if (!c.owner[static_cast<size_t>(thread)].compare_exchange_strong(expected, me) &&
          expected != me)
        c.bad_numbers.fetch_add(1);
    }
    for (size_t i = begin; i < end; ++i) c.runs[i].fetch_add(1, std::memory_order_relaxed);
  }
};

void EveryIndexRunsExactlyOnceIn(WorkerPool&& pool) {
  const int threads = pool.threads();
  for (size_t n :
       {size_t{0}, size_t{1}, size_t{5}, size_t{16}, size_t{17}, size_t{1000}, size_t{5003}}) {
    Counts counts(n, threads);
    for (int round = 0; round < 3; ++round) {
      counts.new_run();
      pool.run(n, &Counts::job, &counts);
    }
    EXPECT_EQ(counts.bad_numbers.load(), 0)
        << "a thread number out of range or shared by two threads, " << threads << " threads";
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

  static void job(void* self, size_t begin, size_t end, int) {
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
