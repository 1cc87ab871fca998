#include "base/worker_pool.h"

#include <sched.h>

#include <algorithm>
#include <string>

#include "base/thread_affinity.h"
#include "base/thread_name.h"
#include "base/thread_slice.h"

namespace animd {

WorkerPool::WorkerPool(int threads, std::chrono::microseconds slice, bool yield_between_blocks,
                       bool pin_threads)
    : threads_(std::max(1, threads)), yield_(yield_between_blocks) {
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
    stop_.store(true, std::memory_order_relaxed);
    run_number_.fetch_add(1);  // sequentially consistent: see run()
    run_number_.notify_all();
    for (auto& t : workers_) t.join();
  }
}

namespace {
// Blocks per thread: enough that a preempted thread leaves little behind and that a block is
// short (the longest a thread queued behind a yielding worker waits), few enough that taking one (a
// compare-exchange, and a sched_yield when asked) costs nothing next to the characters it
// holds.
constexpr size_t kBlocksPerThread = 128;
constexpr size_t kMinBlock = 16;
// The caller spins this many times (a pause instruction each) for the last blocks before it
// sleeps: the last block is usually close to done, and a futex sleep and wake-up costs more
// than the wait.
constexpr int kSpinsBeforeSleep = 1000;

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}
}  // namespace

void WorkerPool::run_blocks(int thread) {
  uint64_t cursor = cursor_.load(std::memory_order_acquire);
  for (;;) {
    const RunParams& p = params_[(cursor >> 32) & 1u];
    const uint32_t n = p.n.load(std::memory_order_relaxed);
    const uint32_t begin = static_cast<uint32_t>(cursor);
    if (begin >= n) return;
    const uint32_t end = begin + std::min(p.block.load(std::memory_order_relaxed), n - begin);
    // On failure `cursor` is reloaded: another thread took the block, or a newer run began
    // (whose parameters are then read from its own set).
    if (!cursor_.compare_exchange_weak(cursor, (cursor & ~uint64_t{0xffffffffu}) | end,
                                       std::memory_order_acq_rel, std::memory_order_acquire))
      continue;
    // The claim succeeded while the cursor was this run's: `p` holds this run's parameters
    // (written before the cursor was published, rewritten only two runs later, and this run
    // does not end before this block is done).
    p.job.load(std::memory_order_relaxed)(p.context.load(std::memory_order_relaxed), begin, end,
                                          thread);
    // Sequentially consistent, as the change a notify follows must be: libstdc++'s notify
    // skips the wake-up when it sees no waiter, and the waiter's count must not be read
    // before this write is visible (else a caller about to sleep is never woken).
    if (done_.fetch_add(end - begin) + (end - begin) == n) done_.notify_one();
    if (yield_) sched_yield();
    cursor = cursor_.load(std::memory_order_acquire);
  }
}

void WorkerPool::run(size_t n, Job job, void* context) {
  // Few items: not worth waking the workers.
  if (workers_.empty() || n < 2 * static_cast<size_t>(threads_)) {
    if (n > 0) job(context, 0, n, 0);
    return;
  }
  const auto t0 = std::chrono::steady_clock::now();
  const uint32_t number = run_number_.load(std::memory_order_relaxed) + 1;
  RunParams& p = params_[number & 1u];
  const auto count = static_cast<uint32_t>(n);
  p.n.store(count, std::memory_order_relaxed);
  p.block.store(static_cast<uint32_t>(
                    std::max(kMinBlock, n / (kBlocksPerThread * static_cast<size_t>(threads_)))),
                std::memory_order_relaxed);
  p.job.store(job, std::memory_order_relaxed);
  p.context.store(context, std::memory_order_relaxed);
  done_.store(0, std::memory_order_relaxed);
  // Publishes the parameters (and the reset count) to whoever claims a block of this run.
  cursor_.store(uint64_t{number} << 32, std::memory_order_release);
  run_number_.store(number);  // sequentially consistent, for the notify (see run_blocks)
  run_number_.notify_all();
  run_blocks(0);
  // Every block is taken; wait for the ones other threads still run.
  uint32_t done = done_.load(std::memory_order_acquire);
  for (int spin = 0; done != count && spin < kSpinsBeforeSleep; ++spin) {
    cpu_relax();
    done = done_.load(std::memory_order_acquire);
  }
  while (done != count) {
    done_.wait(done, std::memory_order_acquire);
    done = done_.load(std::memory_order_acquire);
  }
  parallel_us_ +=
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
}

void WorkerPool::worker(int thread) {
  uint32_t seen = 0;
  for (;;) {
    run_number_.wait(seen, std::memory_order_acquire);
    seen = run_number_.load(std::memory_order_acquire);
    if (stop_.load(std::memory_order_relaxed)) return;
    // A run that ended while this thread was waking has no block left: it goes back to sleep.
    run_blocks(thread);
  }
}

}  // namespace animd
