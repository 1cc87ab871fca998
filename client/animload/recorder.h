#pragma once
// animload's measurements: replies, errors and stream frames, fed from the connections' I/O
// threads and the driver, turned into the Summary at the end. Counters are atomics; the
// sample vectors and the per-kind maps are behind one mutex (never on a hot path of the
// daemon: this is the load generator's side).

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include <google/protobuf/io/coded_stream.h>

#include "animclient/client.h"
#include "summary.h"

namespace animload {

// Microseconds since the Unix epoch (the clock StreamFrame.server_unix_time_us uses).
inline int64_t unix_now_us() {
  using namespace std::chrono;
  return duration_cast<microseconds>(system_clock::now().time_since_epoch()).count();
}

// Everything measured, fed from the I/O threads and the driver.
class Recorder {
 public:
  std::atomic<bool> measuring{false};
  std::atomic<uint64_t> sent{0}, ok{0}, skipped{0}, completed{0};
  std::atomic<uint64_t> frames{0}, character_frames{0}, stream_bytes{0}, dropped_server{0};
  std::atomic<uint64_t> errors{0};
  std::atomic<uint64_t> latest_tick{0}, first_tick{0}, last_tick{0};

  void count_sent(const std::string& type) {
    ++sent;
    std::lock_guard lock(mutex_);
    ++by_type_[type];
  }

  // Records a reply (or transport error) to a command of `type` sent `ms` ago. Returns true
  // when the command succeeded.
  bool reply(const std::string& type, double ms, const animclient::Result<anim::v1::Reply>& result,
             bool mix = true) {
    if (mix) ++completed;
    if (result.ok()) note_tick(result->tick());
    std::string kind;
    std::string message;
    if (!result.ok()) {
      kind = animclient::kind_name(result.error().kind);
      message = result.error().message;
    } else if (result->status().code() != anim::v1::STATUS_OK) {
      kind = animclient::status_code_name(result->status().code());
      message = result->status().message();
    }
    std::lock_guard lock(mutex_);
    // Every command of the mix counts, also one whose reply lands just after the run phase.
    if (mix) reply_ms_.push_back(ms);
    if (mix && type == "query_pose") query_ms_.push_back(ms);
    if (kind.empty()) {
      if (mix) ++ok;
      return true;
    }
    ++errors;
    const std::string key = type + " " + kind;
    if (errors_by_kind_[key]++ == 0) examples_[key] = message;
    return false;
  }

  void error(const std::string& key, const std::string& message) {
    ++errors;
    std::lock_guard lock(mutex_);
    if (errors_by_kind_[key]++ == 0) examples_[key] = message;
  }

  // `wire_bytes`: what the frame took on the wire (its messages, length prefixes included),
  // before the library decoded it (compact frames arrive with their palettes filled in).
  void frame(const anim::v1::StreamFrame& frame, uint64_t wire_bytes) {
    const int64_t now = unix_now_us();
    note_tick(frame.tick());
    if (!measuring.load()) return;
    ++frames;
    character_frames += static_cast<uint64_t>(frame.characters_size());
    stream_bytes += wire_bytes;
    dropped_server += frame.dropped_since_last();
    uint64_t expected = 0;
    first_tick.compare_exchange_strong(expected, frame.tick());
    last_tick = std::max(last_tick.load(), frame.tick());
    std::lock_guard lock(mutex_);
    frame_ms_.push_back(static_cast<double>(now - frame.server_unix_time_us()) / 1000.0);
  }

  void note_tick(uint64_t tick) {
    uint64_t seen = latest_tick.load();
    while (tick > seen && !latest_tick.compare_exchange_weak(seen, tick)) {
    }
  }

  // Median tick-to-client latency of the frames since the previous call (progress display).
  double recent_frame_p50() {
    std::lock_guard lock(mutex_);
    std::vector<double> recent(frame_ms_.begin() + static_cast<std::ptrdiff_t>(progress_mark_),
                               frame_ms_.end());
    progress_mark_ = frame_ms_.size();
    return distribution_of(std::move(recent)).p50;
  }

  void fill(Summary& s) {
    std::lock_guard lock(mutex_);
    s.commands_sent = sent;
    s.commands_ok = ok;
    s.commands_skipped = skipped;
    s.commands_by_type = by_type_;
    s.reply_latency_ms = distribution_of(reply_ms_);
    s.query_latency_ms = distribution_of(query_ms_);
    s.frames = frames;
    s.character_frames = character_frames;
    s.stream_bytes = stream_bytes;
    s.tick_to_client_ms = distribution_of(frame_ms_);
    s.dropped_by_server = dropped_server;
    s.first_tick = first_tick;
    s.last_tick = last_tick;
    s.errors = errors;
    s.errors_by_kind = errors_by_kind_;
    s.error_examples = examples_;
  }

 private:
  std::mutex mutex_;
  std::vector<double> reply_ms_, frame_ms_, query_ms_;
  size_t progress_mark_ = 0;
  std::map<std::string, uint64_t> by_type_;
  std::map<std::string, uint64_t> errors_by_kind_;
  std::map<std::string, std::string> examples_;
};

}  // namespace animload
