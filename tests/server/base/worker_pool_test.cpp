// WorkerPool: every index runs exactly once, each thread of a run has its own thread number,
// and a thread that stalls inside its block does not hold up the rest of the run (the others
// take the blocks it has not started), nor does a thread that is off its core when the run
// begins; pinned, each thread keeps to a CPU of its own.
#include "base/worker_pool.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "base/thread_affinity.h"

namespace animd {
namespace worker_pool_test {

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

// A worker that cannot run when a run begins (here: held in a signal handler, as a preempted
// thread is held by the host) does not hold the run back: the caller takes every block
// itself. With a start barrier the caller would wait for the worker to arrive; the wait for
// the run is bounded so that such a regression fails instead of hanging.
std::atomic<bool> g_held{false};
std::atomic<bool> g_release{false};
extern "C" void HoldThisThread(int) {
  g_held.store(true);
  const timespec ms{0, 1000000};
  while (!g_release.load()) nanosleep(&ms, nullptr);  // async-signal-safe
}

struct WhichThreads {
  std::vector<std::atomic<int>> ran_by;  // per index, 1 + the thread number that ran it
  std::atomic<pthread_t> worker{};
  std::atomic<bool> worker_seen{false};
  explicit WhichThreads(size_t n) : ran_by(n) {}
  static void job(void* self, size_t begin, size_t end, int thread) {
    auto& w = *static_cast<WhichThreads*>(self);
    if (thread == 1 && !w.worker_seen.load()) {
      w.worker.store(pthread_self());
      w.worker_seen.store(true);
    }
    for (size_t i = begin; i < end; ++i) w.ran_by[i].store(thread + 1);
    // Until the worker is seen, the caller's blocks take a while: a run lasts long enough
    // (~5 ms) for a worker that can run to wake and take part.
    if (thread == 0 && !w.worker_seen.load())
      std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
};

TEST(WorkerPool, ARunDoesNotWaitForAWorkerThatCannotWake) {
  WorkerPool pool(2);
  // Find the worker's thread: it takes a block of some run soon enough.
  constexpr size_t kItems = 4096;
  WhichThreads first(kItems);
  for (int round = 0; round < 200 && !first.worker_seen.load(); ++round)
    pool.run(kItems, &WhichThreads::job, &first);
  ASSERT_TRUE(first.worker_seen.load()) << "the worker never took a block";

  struct sigaction hold {
  }, previous{};
  hold.sa_handler = &HoldThisThread;
  sigemptyset(&hold.sa_mask);
  ASSERT_EQ(sigaction(SIGUSR1, &hold, &previous), 0);
  g_held = false;
  g_release = false;
  ASSERT_EQ(pthread_kill(first.worker.load(), SIGUSR1), 0);
  while (!g_held.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));

  WhichThreads second(kItems);
  std::packaged_task<void()> run([&] { pool.run(kItems, &WhichThreads::job, &second); });
  std::future<void> finished = run.get_future();
  std::thread caller(std::move(run));
  const bool in_time = finished.wait_for(std::chrono::seconds(30)) == std::future_status::ready;
  g_release = true;  // lets the worker go (and a stuck run finish) either way
  caller.join();
  sigaction(SIGUSR1, &previous, nullptr);
  EXPECT_TRUE(in_time) << "the run waited for a worker that could not run";
  for (size_t i = 0; i < kItems; ++i)
    ASSERT_EQ(second.ran_by[i].load(), 1) << "index " << i << " not run by the caller alone";
  // The worker takes part again once it can.
  WhichThreads third(kItems);
  for (int round = 0; round < 200 && !third.worker_seen.load(); ++round)
    pool.run(kItems, &WhichThreads::job, &third);
  EXPECT_TRUE(third.worker_seen.load()) << "the worker did not come back";
}

// Per thread number, where that thread ran: its affinity mask (as allowed_cpus() reads it)
// and the CPUs it was seen on. Each thread's first block waits (bounded) until every thread
// has taken one, so that every thread of the run is seen.
struct WhereThreadsRan {
  explicit WhereThreadsRan(int threads)
      : masks(static_cast<size_t>(threads)), seen_on(static_cast<size_t>(threads)) {}
  std::mutex mutex;
  std::condition_variable cv;
  std::vector<std::vector<int>> masks;
  std::vector<std::vector<int>> seen_on;
  int threads_seen = 0;
  bool gave_up = false;

  static void job(void* self, size_t, size_t, int thread) {
    auto& w = *static_cast<WhereThreadsRan*>(self);
    const size_t t = static_cast<size_t>(thread);
    std::unique_lock lock(w.mutex);
    w.seen_on[t].push_back(sched_getcpu());
    if (!w.masks[t].empty()) return;
    w.masks[t] = allowed_cpus();
    ++w.threads_seen;
    w.cv.notify_all();
    if (!w.cv.wait_for(lock, std::chrono::seconds(30),
                       [&] { return w.threads_seen == static_cast<int>(w.masks.size()); }))
      w.gave_up = true;
    w.seen_on[t].push_back(sched_getcpu());
  }
};

// Runs `pool` once from a thread of its own (pin_caller() pins its caller; the test's
// thread keeps its mask) and reports where each thread number ran.
void RunFromAThreadOfItsOwn(WorkerPool& pool, WhereThreadsRan& where, bool& caller_pinned) {
  std::thread caller([&] {
    caller_pinned = pool.pin_caller();
    pool.run(4096, &WhereThreadsRan::job, &where);
  });
  caller.join();
}

TEST(WorkerPool, PinnedEachThreadKeepsToACpuOfItsOwn) {
  const std::vector<int> allowed = allowed_cpus();
  if (allowed.size() < 2)
    GTEST_SKIP() << "the process may use " << allowed.size()
                 << " CPU: pinning needs at least 2 (one per thread)";
  // One thread per CPU the process may use, as the daemon's default --workers.
  const int threads = static_cast<int>(allowed.size());
  WorkerPool pool(threads, {}, true, /*pin_threads=*/true);
  ASSERT_TRUE(pool.pinned());
  EXPECT_EQ(pool.pin_failures(), 0);
  EXPECT_EQ(pool.cpus(), allowed);
  WhereThreadsRan where(threads);
  bool caller_pinned = false;
  RunFromAThreadOfItsOwn(pool, where, caller_pinned);
  EXPECT_TRUE(caller_pinned);
  ASSERT_FALSE(where.gave_up) << "a thread of the pool never took a block";
  for (size_t t = 0; t < allowed.size(); ++t) {
    EXPECT_EQ(where.masks[t], std::vector<int>{pool.cpus()[t]}) << "thread " << t;
    for (int cpu : where.seen_on[t]) EXPECT_EQ(cpu, pool.cpus()[t]) << "thread " << t;
  }
  // The test's own thread was not pinned by any of it.
  EXPECT_EQ(allowed_cpus(), allowed);
}

TEST(WorkerPool, NothingIsPinnedUnlessThereIsOneThreadPerCpuAndItIsAsked) {
  const std::vector<int> allowed = allowed_cpus();
  ASSERT_FALSE(allowed.empty());
  const int cpus = static_cast<int>(allowed.size());
  struct Case {
    int threads;
    bool pin;
  };
  std::vector<Case> cases = {{cpus + 1, true}, {std::max(cpus, 2), false}, {1, true}};
  if (cpus >= 3) cases.push_back({cpus - 1, true});  // cores to spare
  for (Case c : cases) {
    WorkerPool pool(c.threads, {}, false, c.pin);
    EXPECT_FALSE(pool.pinned()) << c.threads << " threads, pin " << c.pin;
    EXPECT_TRUE(pool.cpus().empty());
    if (c.threads < 2) continue;  // a pool of one runs everything on its caller
    WhereThreadsRan where(c.threads);
    bool caller_pinned = false;
    RunFromAThreadOfItsOwn(pool, where, caller_pinned);
    EXPECT_TRUE(caller_pinned) << "pin_caller() is true when there is nothing to pin";
    ASSERT_FALSE(where.gave_up) << "a thread of the pool never took a block";
    for (size_t t = 0; t < where.masks.size(); ++t)
      EXPECT_EQ(where.masks[t], allowed) << "thread " << t << " of " << c.threads;
  }
}

}  // namespace worker_pool_test
}  // namespace animd
