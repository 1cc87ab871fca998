#pragma once
// Runs one job over [0, n) split into contiguous chunks, on the calling thread plus
// (threads - 1) workers, and returns when every chunk is done. Two barriers per run; the
// job is a plain function pointer + context so that a run allocates nothing.

#include <barrier>
#include <cstddef>
#include <functional>
#include <thread>
#include <vector>

namespace animd {

class WorkerPool {
 public:
  using Job = void (*)(void* context, size_t begin, size_t end);

  explicit WorkerPool(int threads);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  int threads() const { return threads_; }
  void run(size_t n, Job job, void* context);

 private:
  void worker(int index);
  void run_chunk(int index);

  int threads_;
  std::barrier<> start_;
  std::barrier<> done_;
  std::vector<std::thread> workers_;
  // Written by run() before the start barrier, read by workers after it.
  size_t n_ = 0;
  Job job_ = nullptr;
  void* context_ = nullptr;
  bool stop_ = false;
};

}  // namespace animd
