#include "persist/state_writer.h"

#include <memory>

#include "base/durable_file.h"
#include "base/thread_name.h"

namespace animd {

StateWriter::StateWriter(std::filesystem::path path, OnResult on_result)
    : path_(std::move(path)), on_result_(std::move(on_result)) {
  thread_ = std::thread([this] {
    name_this_thread("animd-save");
    run();
  });
}

StateWriter::~StateWriter() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void StateWriter::offer(std::string payload) {
  offer(
      Producer([p = std::make_shared<std::string>(std::move(payload))] { return std::move(*p); }));
}

void StateWriter::offer(Producer make) {
  {
    std::lock_guard lock(mutex_);
    if (pending_) ++superseded_;
    pending_ = std::move(make);
    pending_seq_ = ++next_seq_;
  }
  wake_.notify_all();
}

anim::Status StateWriter::write_now(std::string payload) {
  uint64_t seq = 0;
  {
    std::lock_guard lock(mutex_);
    if (pending_) ++superseded_;
    pending_ = nullptr;
    seq = ++next_seq_;
  }
  std::lock_guard write(write_mutex_);
  const uint64_t bytes = payload.size();
  anim::Status s = write_durable(path_, payload);
  if (s) written_seq_ = seq;
  {
    std::lock_guard lock(mutex_);
    if (s) ++written_;
  }
  if (on_result_) on_result_(s, bytes);
  return s;
}

uint64_t StateWriter::written() const {
  std::lock_guard lock(mutex_);
  return written_;
}

uint64_t StateWriter::superseded() const {
  std::lock_guard lock(mutex_);
  return superseded_;
}

void StateWriter::run() {
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [&] { return pending_ || stopping_; });
    if (!pending_) return;  // stopping with nothing left
    Producer make = std::move(pending_);
    const uint64_t seq = pending_seq_;
    pending_ = nullptr;
    lock.unlock();
    const std::string payload = make();
    anim::Status s;
    bool stale = false;
    {
      std::lock_guard write(write_mutex_);
      stale = seq < written_seq_;  // write_now wrote a newer one meanwhile
      if (!stale) s = write_durable(path_, payload);
      if (!stale && s) written_seq_ = seq;
    }
    if (!stale && on_result_) on_result_(s, payload.size());
    lock.lock();
    if (stale) ++superseded_;
    if (!stale && s) ++written_;
  }
}

}  // namespace animd
