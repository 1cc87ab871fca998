#include "net/frame_reader.h"

#include <algorithm>

namespace animd {

namespace {
// Buffers up to this size are kept between frames (most requests are small).
constexpr size_t kKeepCapacity = 64u << 10;
}  // namespace

FrameReader::Step FrameReader::feed(const uint8_t* data, size_t size) {
  Step step;
  if (complete_) return step;  // consume_frame() first
  while (header_bytes_ < 4) {
    if (step.consumed == size) return step;
    header_[header_bytes_++] = data[step.consumed++];
    if (header_bytes_ == 4) {
      length_ = uint32_t(header_[0]) | uint32_t(header_[1]) << 8 | uint32_t(header_[2]) << 16 |
                uint32_t(header_[3]) << 24;
      if (length_ > limit_) {
        step.event = Event::kTooLarge;
        return step;
      }
      if (length_ == 0) {
        complete_ = true;
        step.event = Event::kFrame;
        return step;
      }
    }
  }
  const size_t want = length_ - body_.size();
  const size_t take = std::min(want, size - step.consumed);
  if (take > 0) {
    // Draw what the buffer will hold before growing it.
    if (!budget_.try_acquire(take)) {
      step.event = Event::kNoBudget;
      return step;
    }
    drawn_ += take;
    body_.append(reinterpret_cast<const char*>(data + step.consumed), take);
    step.consumed += take;
  }
  if (body_.size() == length_) {
    complete_ = true;
    step.event = Event::kFrame;
  }
  return step;
}

FrameReader::Step FrameReader::feed_message(const uint8_t* data, size_t size, bool last) {
  Step step;
  if (complete_) return step;  // consume_frame() first
  in_message_ = true;
  if (size > limit_ - std::min(limit_, body_.size())) {
    // Saturating: announced() reports how far past the limit the message had grown.
    const size_t seen = body_.size() + size;
    length_ = seen > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(seen);
    step.event = Event::kTooLarge;
    return step;
  }
  if (size > 0) {
    if (!budget_.try_acquire(size)) {
      step.event = Event::kNoBudget;
      return step;
    }
    drawn_ += size;
    body_.append(reinterpret_cast<const char*>(data), size);
    step.consumed = size;
  }
  length_ = static_cast<uint32_t>(body_.size());
  if (last) {
    complete_ = true;
    step.event = Event::kFrame;
  }
  return step;
}

void FrameReader::consume_frame() {
  budget_.release(drawn_);
  drawn_ = 0;
  if (body_.capacity() > kKeepCapacity)
    std::string().swap(body_);
  else
    body_.clear();
  header_bytes_ = 0;
  length_ = 0;
  complete_ = false;
  in_message_ = false;
}

void FrameReader::release() {
  budget_.release(drawn_);
  drawn_ = 0;
  std::string().swap(body_);
}

}  // namespace animd
