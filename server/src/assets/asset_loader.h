#pragma once
// AssetLoader: the threads that run asset loads (never the tick's or the network's), shared
// fairly between owners. Each owner's loads run one at a time, in the order they were posted;
// owners with loads waiting take turns for a free thread. One owner's slow or hostile loads
// therefore hold at most one thread while anyone else waits, and every other owner's loads
// run on the rest.
//
// Thread-safe. post() never blocks. stop() drops the loads not started and waits for the
// running ones; a load must bound its own time (GltfLimits::deadline).

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace animd {

class AssetLoader {
 public:
  using Job = std::function<void()>;

  // Starts `threads` (at least 1) threads named `thread_name`-1, -2, ...
  AssetLoader(int threads, const std::string& thread_name);
  ~AssetLoader();  // stop()
  AssetLoader(const AssetLoader&) = delete;
  AssetLoader& operator=(const AssetLoader&) = delete;

  // Queues `job` behind the owner's earlier ones. Dropped (destroyed unrun) after stop().
  void post(uint64_t owner, Job job);
  // Drops waiting jobs, lets running ones finish and joins the threads. Idempotent.
  void stop();

  // Jobs waiting (not running), all owners.
  size_t waiting() const;

 private:
  void run();
  // The next job to run (its owner marked busy), or false when stopping.
  bool take(uint64_t* owner, Job* job);

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::map<uint64_t, std::deque<Job>> queues_;  // owners with jobs waiting
  std::set<uint64_t> busy_;                     // owners with a job running
  std::deque<uint64_t> turns_;                  // owners waiting for a turn, in order
  size_t waiting_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace animd
