#include "worker_pool.h"

#include <algorithm>

namespace animd {

WorkerPool::WorkerPool(int threads)
    : threads_(std::max(1, threads)), start_(threads_), done_(threads_) {
  for (int i = 1; i < threads_; ++i) workers_.emplace_back([this, i] { worker(i); });
}

WorkerPool::~WorkerPool() {
  if (!workers_.empty()) {
    stop_ = true;
    start_.arrive_and_wait();
    for (auto& t : workers_) t.join();
  }
}

void WorkerPool::run_chunk(int index) {
  const size_t per = (n_ + threads_ - 1) / threads_;
  const size_t begin = std::min(n_, per * index);
  const size_t end = std::min(n_, begin + per);
  if (begin < end) job_(context_, begin, end);
}

void WorkerPool::run(size_t n, Job job, void* context) {
  n_ = n;
  job_ = job;
  context_ = context;
  // Few items: not worth waking the workers.
  if (workers_.empty() || n < 2 * static_cast<size_t>(threads_)) {
    if (n > 0) job(context, 0, n);
    return;
  }
  start_.arrive_and_wait();
  run_chunk(0);
  done_.arrive_and_wait();
}

void WorkerPool::worker(int index) {
  for (;;) {
    start_.arrive_and_wait();
    if (stop_) return;
    run_chunk(index);
    done_.arrive_and_wait();
  }
}

}  // namespace animd
