#pragma once
// StateWriter: writes the daemon's saved state to its file on a thread of its own, so that
// neither the tick nor a network thread ever waits for a disk. The tick hands it each full
// save as bytes, or as a function that makes them on the writer's thread (offer); a save not
// yet started when a newer one arrives is replaced by it (only the newest matters). Every
// write is durable (base/durable_file.h).

#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "anim/status.h"

namespace animd {

class StateWriter {
 public:
  // `on_result` is called on the writer's thread after each write (its status and payload
  // bytes), for logs and metrics.
  using OnResult = std::function<void(const anim::Status&, uint64_t bytes)>;
  StateWriter(std::filesystem::path path, OnResult on_result);
  // Writes what was offered and not yet written, then stops the thread.
  ~StateWriter();
  StateWriter(const StateWriter&) = delete;
  StateWriter& operator=(const StateWriter&) = delete;

  // Queues `payload` as the next save, replacing one still waiting. Never blocks on the disk.
  void offer(std::string payload);
  // The same with the payload made by `make` on the writer's thread, just before it is
  // written (a save replaced before that is never made).
  using Producer = std::function<std::string()>;
  void offer(Producer make);
  // Writes `payload` now on the caller's thread, after any save in progress, and drops the
  // one waiting (older). For the last save at shutdown.
  anim::Status write_now(std::string payload);
  // Saves written since the start, and those replaced before they were written.
  uint64_t written() const;
  uint64_t superseded() const;

 private:
  void run();

  const std::filesystem::path path_;
  OnResult on_result_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  // The waiting save and its number (saves are numbered in the order they were handed in;
  // one older than the last written is never written over it).
  Producer pending_;
  uint64_t pending_seq_ = 0;
  uint64_t next_seq_ = 0;
  bool stopping_ = false;
  uint64_t written_ = 0;
  uint64_t superseded_ = 0;
  std::mutex write_mutex_;    // one write at a time (the thread's, write_now's)
  uint64_t written_seq_ = 0;  // under write_mutex_: the number of the last save written
  std::thread thread_;
};

}  // namespace animd
