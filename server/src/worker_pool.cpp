#include "worker_pool.h"

#include <sched.h>

#include <algorithm>
#include <string>

#include "thread_affinity.h"
#include "thread_name.h"
#include "thread_slice.h"

namespace animd {

WorkerPool::WorkerPool(int threads, std::chrono::microseconds slice, bool yield_between_blocks,
                       bool pin_threads)
    : threads_(std::max(1, threads)),
      start_(threads_),
      done_(threads_),
      yield_(yield_between_blocks) {
  if (pin_threads && threads_ >= 2) {
    std::vector<int> allowed = allowed_cpus();
    if (allowed.size() == static_cast<size_t>(threads_)) cpus_ = std::move(allowed);
  }
  for (int i = 1; i < threads_; ++i)
    workers_.emplace_back([this, i, slice] {
      name_this_thread("animd-work-" + std::to_string(i));
      request_thread_slice(slice);
      worker(i);
    });
  // Pinned from here, so that pin_failures() is known when the constructor returns.
  if (!cpus_.empty())
    for (size_t i = 0; i < workers_.size(); ++i)
      if (!pin_thread(workers_[i].native_handle(), cpus_[i + 1])) ++pin_failures_;
  for (auto& t : workers_) {
    clockid_t c;
    if (pthread_getcpuclockid(t.native_handle(), &c) == 0) clocks_.push_back(c);
  }
}

bool WorkerPool::pin_caller() const {
  return cpus_.empty() || pin_this_thread(cpus_[0]);
}

double WorkerPool::workers_cpu_us() const {
  double us = 0.0;
  for (clockid_t c : clocks_) {
    timespec t{};
    if (clock_gettime(c, &t) == 0) us += double(t.tv_sec) * 1e6 + double(t.tv_nsec) / 1e3;
  }
  return us;
}

WorkerPool::~WorkerPool() {
  if (!workers_.empty()) {
    stop_ = true;
    start_.arrive_and_wait();
    for (auto& t : workers_) t.join();
  }
}

namespace {
// Blocks per thread: enough that a preempted thread leaves little behind and that a block is
// short (~20 bench64 characters, ~50 us, at 5,000 characters on 2 threads: the longest a
// thread queued behind a yielding worker waits), few enough that taking one (an atomic add,
// and a sched_yield when asked) costs nothing next to the characters it holds.
constexpr size_t kBlocksPerThread = 128;
constexpr size_t kMinBlock = 16;
}  // namespace

void WorkerPool::run_blocks(int thread) {
  for (;;) {
    const size_t begin = next_.fetch_add(block_, std::memory_order_relaxed);
    if (begin >= n_) return;
    job_(context_, begin, std::min(n_, begin + block_), thread);
    if (yield_) sched_yield();
  }
}

void WorkerPool::run(size_t n, Job job, void* context) {
  n_ = n;
  job_ = job;
  context_ = context;
  block_ = std::max(kMinBlock, n / (kBlocksPerThread * static_cast<size_t>(threads_)));
  next_.store(0, std::memory_order_relaxed);  // published to the workers by the barrier
  // Few items: not worth waking the workers.
  if (workers_.empty() || n < 2 * static_cast<size_t>(threads_)) {
    if (n > 0) job(context, 0, n, 0);
    return;
  }
  const auto t0 = std::chrono::steady_clock::now();
  start_.arrive_and_wait();
  run_blocks(0);
  done_.arrive_and_wait();
  parallel_us_ +=
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
}

void WorkerPool::worker(int thread) {
  for (;;) {
    start_.arrive_and_wait();
    if (stop_) return;
    run_blocks(thread);
    done_.arrive_and_wait();
  }
}

}  // namespace animd
