#include "frame_inbox.h"

#include <string>
#include <utility>

namespace animclient::detail {

using namespace anim::v1;

void PendingCall::complete(Result<Reply> result) {
  if (timer) timer->cancel();
  if (promise)
    promise->set_value(std::move(result));
  else
    callback(std::move(result));
}

// ---------------------------------------------------------------------------------------------
// Calls

bool FrameInbox::expect(uint64_t id, PendingCall call) {
  {
    std::lock_guard lock(pending_mutex_);
    if (!closed_) {
      pending_.emplace(id, std::move(call));
      return true;
    }
  }
  // close_error_ was set before closed_ and never changes again: read it unlocked.
  call.complete(Error{Error::Kind::kDisconnected, STATUS_INTERNAL,
                      "connection closed (" + close_error_.to_string() + ")"});
  return false;
}

bool FrameInbox::set_timer(uint64_t id, std::shared_ptr<boost::asio::steady_timer> timer) {
  std::lock_guard lock(pending_mutex_);
  auto it = pending_.find(id);
  if (it == pending_.end()) return false;
  it->second.timer = std::move(timer);
  return true;
}

std::optional<PendingCall> FrameInbox::withdraw(uint64_t id) {
  std::lock_guard lock(pending_mutex_);
  auto it = pending_.find(id);
  if (it == pending_.end()) return std::nullopt;
  PendingCall call = std::move(it->second);
  pending_.erase(it);
  return call;
}

// ---------------------------------------------------------------------------------------------
// Incoming

std::optional<Error> FrameInbox::receive(const uint8_t* data, size_t size) {
  if (!incoming_.ParseFromArray(data, static_cast<int>(size)))
    return Error{Error::Kind::kProtocol, STATUS_INTERNAL,
                 "server sent a frame of " + std::to_string(size) +
                     " bytes that does not parse as anim.v1.ServerMessage"};
  switch (incoming_.kind_case()) {
    case ServerMessage::kReply:
      deliver_reply();
      break;
    case ServerMessage::kFrame:
      stream_bytes_received_ += 4 + size;
      if (join_parts()) on_frame(std::move(*incoming_.mutable_frame()));
      break;
    case ServerMessage::kSubscriptionEnded:
      decoder_.forget_subscription(incoming_.subscription_ended().subscription_id());
      deliver_message();
      add_ended();
      break;
    default:  // KIND_NOT_SET (a kind this generated code does not know) or one added since
      deliver_message();
      break;
  }
  return std::nullopt;
}

void FrameInbox::deliver_message() {
  std::shared_ptr<const Client::MessageCallback> callback;
  {
    std::lock_guard lock(frame_mutex_);
    callback = message_callback_;
  }
  if (callback) (*callback)(incoming_);
}

void FrameInbox::deliver_reply() {
  ++replies_received_;
  auto call = withdraw(incoming_.reply().request_id());
  if (!call) return;  // its caller timed out and left
  call->complete(Reply(std::move(*incoming_.mutable_reply())));
}

// A tick's frame sent in parts (StreamFrame.part/parts) is joined here: true when
// `incoming_` now holds a whole frame to deliver. A part out of order (its predecessors were
// dropped by a slow connection) discards the frame, counted as dropped.
bool FrameInbox::join_parts() {
  auto& f = *incoming_.mutable_frame();
  if (f.parts() <= 1) return true;
  auto it = partial_.find(f.subscription_id());
  if (f.part() == 0) {
    if (it != partial_.end()) ++frames_dropped_locally_;
    partial_[f.subscription_id()] = std::move(f);
    return false;
  }
  if (it == partial_.end()) {
    ++frames_dropped_locally_;
    return false;
  }
  StreamFrame& whole = it->second;
  const uint32_t have = whole.part();
  if (whole.tick() != f.tick() || f.part() != have + 1 || f.parts() != whole.parts()) {
    partial_.erase(it);
    ++frames_dropped_locally_;
    return false;
  }
  for (auto& c : *f.mutable_characters()) *whole.add_characters() = std::move(c);
  whole.set_part(f.part());
  if (f.part() + 1 < f.parts()) return false;
  whole.clear_part();
  whole.clear_parts();
  f = std::move(whole);
  partial_.erase(it);
  return true;
}

void FrameInbox::on_frame(StreamFrame frame) {
  if (!decode_compact_) {
    deliver_frame(std::move(frame));
    return;
  }
  waiting_.push_back(std::move(frame));
  drain_waiting();
}

void FrameInbox::drain_waiting() {
  while (!waiting_.empty()) {
    if (!fetching_.empty()) return;  // an answer is on its way
    const std::string missing = fetch_skeleton_ ? decoder_.missing_skeleton(waiting_.front()) : "";
    if (!missing.empty()) {
      fetching_ = missing;
      fetch_skeleton_(missing);
      return;
    }
    StreamFrame frame = std::move(waiting_.front());
    waiting_.pop_front();
    decoder_.decode(frame);
    deliver_frame(std::move(frame));
  }
}

void FrameInbox::set_skeleton_fetcher(std::function<void(const std::string&)> fetch) {
  fetch_skeleton_ = std::move(fetch);
}

void FrameInbox::skeleton_reply(const std::string& asset, const Result<Reply>& reply) {
  if (!reply.ok()) {
    decoder_.skeleton_unavailable(asset, "get_asset_data failed: " + reply.error().to_string());
  } else if (reply->status().code() != STATUS_OK) {
    decoder_.skeleton_unavailable(asset, "get_asset_data: " + reply->status().message());
  } else {
    decoder_.add_skeleton(asset, reply->get_asset_data().skeleton());
  }
  if (asset == fetching_) fetching_.clear();
  drain_waiting();
}

void FrameInbox::deliver_frame(StreamFrame frame) {
  ++frames_received_;
  std::shared_ptr<const Client::FrameCallback> callback;
  {
    std::lock_guard lock(frame_mutex_);
    callback = frame_callback_;
    if (!callback) {
      if (capacity_ == 0) {
        ++frames_dropped_locally_;
        return;
      }
      while (frame_queue_.size() >= capacity_) {
        frame_queue_.pop_front();  // a slow reader loses the oldest frames, never blocks reading
        ++frames_dropped_locally_;
      }
      frame_queue_.push_back(std::move(frame));
    }
  }
  if (callback) {
    (*callback)(frame);
  } else {
    frame_cv_.notify_one();
  }
}

void FrameInbox::add_ended() {
  std::lock_guard lock(frame_mutex_);
  if (ended_.size() >= kMaxEnded) ended_.erase(ended_.begin());
  ended_.push_back(std::move(*incoming_.mutable_subscription_ended()));
  frame_cv_.notify_all();
}

// ---------------------------------------------------------------------------------------------
// Closing

void FrameInbox::close(const Error& reason) {
  std::unordered_map<uint64_t, PendingCall> failed;
  {
    std::lock_guard lock(pending_mutex_);
    if (closed_) return;
    close_error_ = reason;
    closed_ = true;
    failed.swap(pending_);
  }
  for (auto& [id, call] : failed) call.complete(reason);
  {
    std::lock_guard lock(frame_mutex_);
    frames_closed_ = true;
  }
  frame_cv_.notify_all();
}

bool FrameInbox::closed() const {
  std::lock_guard lock(pending_mutex_);
  return closed_;
}

// ---------------------------------------------------------------------------------------------
// Stream frames

void FrameInbox::set_frame_callback(Client::FrameCallback callback) {
  std::lock_guard lock(frame_mutex_);
  frame_callback_ =
      callback ? std::make_shared<const Client::FrameCallback>(std::move(callback)) : nullptr;
}

void FrameInbox::set_message_callback(Client::MessageCallback callback) {
  std::lock_guard lock(frame_mutex_);
  message_callback_ =
      callback ? std::make_shared<const Client::MessageCallback>(std::move(callback)) : nullptr;
}

std::optional<StreamFrame> FrameInbox::next_frame(std::chrono::milliseconds timeout) {
  std::unique_lock lock(frame_mutex_);
  frame_cv_.wait_for(lock, timeout, [&] { return !frame_queue_.empty() || frames_closed_; });
  if (frame_queue_.empty()) return std::nullopt;
  StreamFrame frame = std::move(frame_queue_.front());
  frame_queue_.pop_front();
  return frame;
}

std::vector<SubscriptionEnded> FrameInbox::ended_subscriptions() const {
  std::lock_guard lock(frame_mutex_);
  return ended_;
}

}  // namespace animclient::detail
