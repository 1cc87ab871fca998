#include "net/write_queue.h"

#include <algorithm>

namespace animd {

WriteQueue::WriteQueue(ByteBudget& budget, size_t max_queued_bytes, size_t max_held_replies)
    : budget_(budget), max_queued_bytes_(max_queued_bytes), max_held_replies_(max_held_replies) {}

WriteQueue::~WriteQueue() {
  budget_.release(drawn_bytes_);
  if (drawn_bytes_ > 0) budget_.remove_holder();
  drop_held_replies();
}

void WriteQueue::add_drawn(size_t n) {
  if (n == 0) return;
  if (drawn_bytes_ == 0) budget_.add_holder();
  drawn_bytes_ += n;
}

void WriteQueue::give_back(size_t n) {
  if (n == 0) return;
  budget_.release(n);
  drawn_bytes_ -= n;
  if (drawn_bytes_ == 0) budget_.remove_holder();
}

// ---------------------------------------------------------------------------------------------
// Request order

void WriteQueue::hold_reply(uint64_t seq, std::unique_ptr<std::string> bytes, size_t drawn) {
  held_.emplace(seq, HeldReply{std::move(bytes), drawn});
}

std::optional<WriteQueue::HeldReply> WriteQueue::next_in_order() {
  auto it = held_.find(next_seq_);
  if (it == held_.end()) return std::nullopt;
  HeldReply reply = std::move(it->second);
  held_.erase(it);
  ++next_seq_;
  return reply;
}

void WriteQueue::drop_held_replies() {
  for (auto& [seq, reply] : held_) budget_.release(reply.drawn);
  held_.clear();
}

// ---------------------------------------------------------------------------------------------
// Queuing

std::string WriteQueue::push_reply(std::unique_ptr<std::string> bytes, size_t drawn) {
  const size_t size = bytes->size();
  const size_t unsent = unsent_reply_bytes_ + size;
  // One reply alone may exceed the bound (a large get_asset_data answer); two may not.
  if (unsent > max_queued_bytes_ && unsent_reply_frames_ > 0) {
    budget_.release(drawn);
    return "client does not read its replies: " + std::to_string(unsent) +
           " bytes of replies queued, above --max-queued-bytes " +
           std::to_string(max_queued_bytes_);
  }
  // Replies draw on the daemon-wide budget too. A connection that reads its replies holds
  // little; one that lets them pile up while the budget is spent is refused (a small
  // allowance may go undrawn, so answers keep flowing to everybody else).
  if (drawn == 0 && budget_.try_acquire(size)) {
    drawn = size;
  } else if (drawn == 0 && unsent > kReplyAllowance && unsent_reply_frames_ > 0) {
    return "client does not read its replies and the daemon's outbound budget is spent "
           "(--max-stream-bytes-total " +
           std::to_string(budget_.limit()) + ")";
  }
  unsent_reply_bytes_ = unsent;
  ++unsent_reply_frames_;
  add_drawn(drawn);
  queued_bytes_ += size;
  frames_.push_back(Frame{std::move(bytes), false, drawn});
  return {};
}

uint32_t WriteQueue::push_stream(std::unique_ptr<std::string> bytes) {
  const size_t size = bytes->size();
  uint32_t dropped = 0;
  // When the daemon's budget is contended, this queue may hold its fair share of it only.
  const size_t share = budget_.holder_bound(size);
  auto too_full = [&] {
    return queued_bytes_ + size > max_queued_bytes_ || drawn_bytes_ + size > share;
  };
  // Make room by dropping the oldest queued (not in-flight) stream frames. Their buffers are
  // kept (as spares) only after this frame has drawn its bytes, so they never take its room.
  std::unique_ptr<std::string> dropped_buffers[kSpentBuffers];
  for (size_t i = in_flight_; too_full() && i < frames_.size();) {
    if (!frames_[i].stream) {
      ++i;
      continue;
    }
    std::unique_ptr<std::string> buffer = erase_queued(i);
    if (dropped < kSpentBuffers) dropped_buffers[dropped] = std::move(buffer);
    ++dropped;
  }
  // Replies and in-flight bytes fill the queue, or the daemon's budget is spent.
  const bool refused =
      queued_bytes_ + size > max_queued_bytes_ || !budget_.try_acquire_fair(size, drawn_bytes_);
  if (!refused) {
    add_drawn(size);
    queued_bytes_ += size;
    frames_.push_back(Frame{std::move(bytes), true, size});
  }
  for (auto& buffer : dropped_buffers) keep_spent(std::move(buffer));
  if (refused) keep_spent(std::move(bytes));
  return refused ? dropped + 1 : dropped;
}

bool WriteQueue::stream_frame_fits(size_t bytes) const {
  return queued_bytes_ + bytes <= max_queued_bytes_ && budget_.used() + bytes <= budget_.limit() &&
         drawn_bytes_ + bytes <= budget_.holder_bound(bytes);
}

uint32_t WriteQueue::shed_above_fair_share() {
  uint32_t dropped = 0;
  for (size_t i = in_flight_; drawn_bytes_ > budget_.holder_bound(0) && i < frames_.size();) {
    if (!frames_[i].stream) {
      ++i;
      continue;
    }
    keep_spent(erase_queued(i));
    ++dropped;
  }
  return dropped;
}

void WriteQueue::drop_queued_stream_frames() {
  for (size_t i = in_flight_; i < frames_.size();) {
    if (frames_[i].stream)
      keep_spent(erase_queued(i));
    else
      ++i;
  }
}

std::unique_ptr<std::string> WriteQueue::erase_queued(size_t i) {
  Frame& f = frames_[i];
  queued_bytes_ -= f.bytes->size();
  give_back(f.drawn);
  std::unique_ptr<std::string> buffer = f.stream ? std::move(f.bytes) : nullptr;
  frames_.erase(frames_.begin() + static_cast<std::ptrdiff_t>(i));
  return buffer;
}

void WriteQueue::keep_spent(std::unique_ptr<std::string> bytes) {
  if (!bytes || bytes->capacity() > kMaxSpentSlack * std::max<size_t>(bytes->size(), 1)) return;
  keep_buffer(std::move(bytes));
}

void WriteQueue::keep_buffer(std::unique_ptr<std::string> bytes) {
  if (!bytes || spent_.size() >= kSpentBuffers) return;
  const size_t capacity = bytes->capacity();
  if (capacity > kMaxSpentCapacity || !budget_.try_acquire_spare(capacity)) return;
  bytes->clear();
  spent_.push_back(Spent{std::move(bytes), BudgetHold(budget_, capacity, true)});
}

std::unique_ptr<std::string> WriteQueue::take_spent() {
  if (spent_.empty()) return nullptr;
  std::unique_ptr<std::string> b = std::move(spent_.back().bytes);
  spent_.pop_back();
  return b;
}

void WriteQueue::return_spent(std::unique_ptr<std::string> buffer) {
  keep_buffer(std::move(buffer));
}

size_t WriteQueue::spent_bytes() const {
  size_t n = 0;
  for (const Spent& s : spent_) n += s.hold.bytes();
  return n;
}

// ---------------------------------------------------------------------------------------------
// Writing

std::span<const boost::asio::const_buffer> WriteQueue::start_write() {
  if (in_flight_ > 0 || frames_.empty()) return {};
  buffers_.clear();
  size_t bytes = 0;
  while (in_flight_ < frames_.size() && (bytes == 0 || bytes < kWriteBatchBytes)) {
    const Frame& f = frames_[in_flight_];
    if (!f.stream) {
      unsent_reply_bytes_ -= f.bytes->size();
      --unsent_reply_frames_;
    }
    buffers_.emplace_back(f.bytes->data(), f.bytes->size());
    bytes += f.bytes->size();
    ++in_flight_;
  }
  return buffers_;
}

uint32_t WriteQueue::finish_write() {
  uint32_t stream_frames = 0;
  for (; in_flight_ > 0; --in_flight_) {
    Frame& f = frames_.front();
    stream_frames += f.stream;
    queued_bytes_ -= f.bytes->size();
    give_back(f.drawn);
    if (f.stream) keep_spent(std::move(f.bytes));
    frames_.pop_front();
  }
  return stream_frames;
}

}  // namespace animd
