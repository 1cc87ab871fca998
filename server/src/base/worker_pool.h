#pragma once
// Runs one job over [0, n) split into contiguous blocks, on the calling thread plus
// (threads - 1) workers, and returns when every block is done. Blocks are taken from a
// shared cursor (about 128 per thread), not dealt out in advance: when a thread is preempted
// (the daemon shares its cores with network threads and whatever else runs on the host), the
// others take its remaining blocks, so the tick waits for one block, not for a thread's half.
// The caller does not wait for the workers to wake either: it starts on the blocks at once,
// a worker joins in when it gets a core, and run() waits only for blocks some thread took
// (docs/benchmarks.md, "Waiting for a worker to wake, and network threads during the tick").
// The job is a plain
// function pointer + context so that a run allocates nothing. The job must not assume which
// thread runs which block; it is told which thread runs it (0 the caller of run(), 1 ..
// threads - 1 the started ones), so that it can keep scratch memory per thread, made before
// the first run (thread-local scratch would be made by a thread's first block, whenever that
// comes: a run can leave a thread without any). The pool's threads can each be kept to a core
// of their own (thread_affinity.h says why).

#include <pthread.h>
#include <time.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <thread>
#include <vector>

namespace animd {

class WorkerPool {
 public:
  // Runs items [begin, end) on the pool's thread number `thread` (in [0, threads())).
  using Job = void (*)(void* context, size_t begin, size_t end, int thread);

  // `threads` in all, the caller's included (threads - 1 are started); the started ones ask
  // for `slice` (thread_slice.h; 0 = the kernel's default). `yield_between_blocks`: every
  // thread offers its core (sched_yield) after each block it runs, so that a thread queued
  // on that core (a network thread woken by a query) runs within one block's time instead of
  // at the next scheduler tick (a kernel need not preempt a worker for it). Free when nothing
  // else waits. `pin_threads`: thread number i keeps to the i-th
  // CPU the process may use (allowed_cpus(), read by the constructing thread), when the pool
  // has one thread per such CPU, 2 or more (the default --workers: the tick fills the
  // process's cores); otherwise nothing is pinned (pinned() false): with cores to spare the
  // scheduler has room, and the first CPUs are where the rest of the machine runs too. The
  // caller's thread is pinned only by pin_caller().
  explicit WorkerPool(int threads, std::chrono::microseconds slice = {},
                      bool yield_between_blocks = false, bool pin_threads = false);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  int threads() const { return threads_; }
  // The CPU of each thread number when the threads are pinned; empty otherwise.
  const std::vector<int>& cpus() const { return cpus_; }
  bool pinned() const { return !cpus_.empty(); }
  // Keeps the calling thread, the one that will call run(), to thread 0's CPU. True without
  // doing anything when the pool is not pinned; false (errno set) when the kernel refuses.
  bool pin_caller() const;
  // Started threads the kernel refused to pin (known when the constructor returns).
  int pin_failures() const { return pin_failures_; }
  // The started threads' CPU time so far, microseconds, summed (the caller's own is not in
  // it). For diagnostics (tick_overrun.h): one clock read per thread.
  double workers_cpu_us() const;
  // Wall time of the runs that woke the workers, microseconds, summed since the start (the
  // time the workers could work in; runs too small to wake them are not in it). Read by the
  // thread that calls run().
  double parallel_us() const { return parallel_us_; }
  // Runs `job` over [0, n), n < 2^32. One caller at a time (the tick thread).
  void run(size_t n, Job job, void* context);

 private:
  // One run's parameters. Two sets, used by turns (runs alternate between them), so that a
  // worker that read the cursor of one run and is slow to claim a block from it never reads
  // the parameters of the next one half written: a claim succeeds only while the cursor is
  // still that run's, and a set is rewritten only two runs later.
  struct RunParams {
    std::atomic<uint32_t> n{0};
    std::atomic<uint32_t> block{1};
    std::atomic<Job> job{nullptr};
    std::atomic<void*> context{nullptr};
  };
  void worker(int thread);
  // Takes blocks of the current run until none is left.
  void run_blocks(int thread);

  int threads_;
  std::vector<std::thread> workers_;
  std::vector<clockid_t> clocks_;  // each started thread's CPU clock
  std::vector<int> cpus_;          // thread number -> CPU when pinned; set before any thread starts
  int pin_failures_ = 0;
  RunParams params_[2];
  // (run number << 32) | the first index of that run no thread has taken yet. A thread takes
  // a block by compare-exchange, so a claim made for an earlier run fails once the next run
  // has begun, however long the thread was off its core between reading and claiming.
  std::atomic<uint64_t> cursor_{0};
  // Items of the current run done; the caller waits for it to reach n.
  std::atomic<uint32_t> done_{0};
  // The number of the latest run (the workers sleep on it between runs), and the stop flag.
  std::atomic<uint32_t> run_number_{0};
  std::atomic<bool> stop_{false};
  const bool yield_;
  double parallel_us_ = 0.0;  // the caller's thread only
};

}  // namespace animd
