#pragma once
// FrameReader: splits a connection's byte stream into frames (4-byte little-endian length,
// then that many body bytes) without trusting the length. Pure: no socket, no thread, no log;
// the Session feeds it what it read, and the fuzzer feeds it anything.
//
// Memory: the body buffer grows only as body bytes arrive (a header announcing 4 GiB buffers
// nothing), and every buffered body byte is drawn from a daemon-wide ByteBudget first; the
// draw is given back when the frame is consumed or the reader is destroyed. A header above
// the current limit is refused before a single body byte is buffered.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/byte_budget.h"

namespace animd {

class FrameReader {
 public:
  enum class Event : uint8_t {
    kNeedMore,  // every byte given was consumed; feed more
    kFrame,     // a whole frame is ready: frame(), then consume_frame()
    kTooLarge,  // the header announced more than limit(): close the connection
    kNoBudget,  // the daemon-wide budget cannot hold more buffered bytes: close
  };
  struct Step {
    size_t consumed = 0;  // bytes of the input used by this step
    Event event = Event::kNeedMore;
  };

  // `budget` outlives the reader. `limit`: the largest body accepted (bytes).
  FrameReader(ByteBudget& budget, size_t limit) : budget_(budget), limit_(limit) {}
  ~FrameReader() { release(); }
  FrameReader(const FrameReader&) = delete;
  FrameReader& operator=(const FrameReader&) = delete;

  // Applies to headers not yet complete (a frame already announced keeps its check).
  void set_limit(size_t limit) { limit_ = limit; }
  size_t limit() const { return limit_; }

  // Consumes bytes until a frame completes, an error, or the input ends. After kFrame, call
  // consume_frame() before feeding again. After kTooLarge/kNoBudget the reader is spent.
  Step feed(const uint8_t* data, size_t size);

  // Message framing (WebSocket: one binary message = one body, no length header): `data` is
  // the next piece of the current message's payload, `last` says it ends the message. The
  // limit is checked on the bytes received so far (announced() then gives that count), the
  // budget drawn as for feed(). Returns kFrame once `last` arrives (an empty message is an
  // empty frame). Do not mix feed() and feed_message() on one reader.
  Step feed_message(const uint8_t* data, size_t size, bool last);

  // The complete frame's body (valid after kFrame until consume_frame()).
  std::string_view frame() const { return body_; }
  // Drops the frame (and its budget draw); large buffers are freed, small ones kept.
  void consume_frame();
  // Hands the current frame's budget draw to the caller, who holds it while a copy of the
  // frame's bytes lives on (a parsed upload waiting to load); consume_frame() then gives
  // back nothing for this frame.
  BudgetHold take_draw() {
    BudgetHold hold(budget_, drawn_);
    drawn_ = 0;
    return hold;
  }

  // The length the current header announced (valid once the header is complete).
  uint32_t announced() const { return length_; }
  // True while a frame is partly received (some header or body bytes, not all).
  bool mid_frame() const { return (header_bytes_ > 0 || in_message_) && !complete_; }
  // Body bytes of the current frame received so far.
  size_t body_received() const { return body_.size(); }
  // Frees the buffer and gives its budget back.
  void release();

 private:
  ByteBudget& budget_;
  size_t limit_;
  uint8_t header_[4] = {};
  size_t header_bytes_ = 0;
  uint32_t length_ = 0;
  bool complete_ = false;
  bool in_message_ = false;  // feed_message(): some payload of the current message arrived
  std::string body_;
  size_t drawn_ = 0;  // bytes drawn from budget_ for body_
};

}  // namespace animd
