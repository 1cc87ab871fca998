#include "assets/asset_loader.h"

#include <algorithm>

#include "base/thread_name.h"

namespace animd {

AssetLoader::AssetLoader(int threads, const std::string& thread_name) {
  for (int i = 0; i < std::max(1, threads); ++i)
    threads_.emplace_back([this, name = thread_name + "-" + std::to_string(i + 1)] {
      name_this_thread(name);
      run();
    });
}

AssetLoader::~AssetLoader() {
  stop();
}

void AssetLoader::post(uint64_t owner, Job job) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    std::deque<Job>& queue = queues_[owner];
    if (queue.empty() && !busy_.count(owner)) turns_.push_back(owner);
    queue.push_back(std::move(job));
    ++waiting_;
  }
  wake_.notify_one();
}

bool AssetLoader::take(uint64_t* owner, Job* job) {
  std::unique_lock lock(mutex_);
  wake_.wait(lock, [this] { return stopping_ || !turns_.empty(); });
  if (stopping_) return false;
  *owner = turns_.front();
  turns_.pop_front();
  auto it = queues_.find(*owner);
  *job = std::move(it->second.front());
  it->second.pop_front();
  if (it->second.empty()) queues_.erase(it);
  --waiting_;
  busy_.insert(*owner);
  return true;
}

void AssetLoader::run() {
  uint64_t owner = 0;
  Job job;
  while (take(&owner, &job)) {
    job();
    job = nullptr;  // what it captured goes before the next turn
    bool more = false;
    {
      std::lock_guard lock(mutex_);
      busy_.erase(owner);
      // Its next load waits for a turn behind the owners already waiting.
      if (queues_.count(owner)) {
        turns_.push_back(owner);
        more = true;
      }
    }
    if (more) wake_.notify_one();
  }
}

void AssetLoader::stop() {
  std::map<uint64_t, std::deque<Job>> dropped;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    dropped.swap(queues_);
    turns_.clear();
    waiting_ = 0;
  }
  wake_.notify_all();
  for (std::thread& t : threads_)
    if (t.joinable() && t.get_id() != std::this_thread::get_id()) t.join();
  threads_.clear();
}

size_t AssetLoader::waiting() const {
  std::lock_guard lock(mutex_);
  return waiting_;
}

}  // namespace animd
