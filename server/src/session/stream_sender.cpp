// StreamSender (stream_sender.h): snapshots handed over by the tick are encoded for each
// subscription on the session's strand; frames the connection cannot take are counted as
// dropped, and subscriptions that cannot be served are ended with SubscriptionEnded.
#include "session/stream_sender.h"

#include <algorithm>

#include <spdlog/spdlog.h>

#include "stream/compact_frame_choice.h"

namespace animd {

StreamSender::StreamSender(SessionHost& host, Connection& connection, uint64_t session_id)
    : host_(host), connection_(connection), session_id_(session_id), subs_(host.metrics()) {}

bool StreamSender::offer(const SnapshotPtr& snapshot) {
  return subs_.streaming() && inbox_.offer(snapshot);
}

bool StreamSender::nudge() {
  return subs_.streaming() && inbox_.nudge();
}

void StreamSender::settle(uint64_t seq, bool ok, uint64_t tick) {
  if (subs_.settle(seq, ok, tick)) drops_.all_since.reset();
  release_unwanted_snapshots();
}

void StreamSender::frames_written(uint32_t stream_frames) {
  if (stream_frames > 0) drops_.all_since.reset();
  if (subs_.empty()) release_buffers();
}

void StreamSender::release_buffers() {
  encoded_.messages.clear();
  connection_.release_spent_buffers();
}

void StreamSender::check_stall(Clock::time_point now) {
  const double stall_s = host_.config().stream_stall_s;
  if (drops_.all_since && now - *drops_.all_since > std::chrono::duration_cast<Clock::duration>(
                                                        std::chrono::duration<double>(stall_s)))
    end_subscriptions("the connection reads too slowly: every frame was dropped for " +
                      std::to_string(stall_s) + " s (--stream-stall-seconds)");
}

void StreamSender::close() {
  subs_.close();
  compact_waiting_.clear();
  release_buffers();
}

void StreamSender::release_unwanted_snapshots() {
  if (connection_.closed() || !subs_.any_compact()) compact_waiting_.clear();
  if (subs_.empty()) release_buffers();
}

void StreamSender::count_drops(uint32_t n, bool encoded) {
  if (n == 0) return;
  // A lost frame that was encoded may have carried compact frames that later deltas refer
  // to: every subscription starts over with key frames (the client discards deltas that
  // arrive before them against frames it never got). A tick skipped before encoding loses
  // nothing: the next deltas name the ticks the client holds.
  if (encoded)
    for (auto& sub : subs_.active()) sub.baselines_lost();
  drops_.since_last += n;
  drops_.total += n;
  host_.metrics().stream_frames_dropped.fetch_add(n, std::memory_order_relaxed);
  if (!drops_.all_since) drops_.all_since = Clock::now();
}

void StreamSender::encode_waiting() {
  if (const uint32_t discarded = inbox_.take(batch_))
    // The session was too busy to encode a tick: each subscription missed a frame.
    count_drops(discarded * static_cast<uint32_t>(subs_.active().size()), false);
  const bool compact = subs_.any_compact();
  // Each new snapshot, in order: kept frames let go, events gathered, float frames encoded.
  for (const SnapshotPtr& snap : batch_) {
    if (stopped()) break;
    newest_seen_ = std::max(newest_seen_, snap->tick);
    for (StreamSubscription& sub : subs_.active()) {
      // A compact frame may wait kStageGraceTicks for the encode stage: the frames its deltas
      // name stay kept for that much longer (encode_compact lets go of the rest).
      const bool compact_sub = sub.encoding == anim::v1::ENCODING_COMPACT;
      sub.let_go_before(compact_sub ? snap->tick - std::min(snap->tick, kStageGraceTicks + 1)
                                    : snap->tick);
      if (snap->tick < sub.start_tick) continue;
      // Every tick's events, also of ticks whose frame is skipped or dropped below.
      if (sub.events)
        if (const uint64_t lost = collect_events(sub, *snap))
          host_.metrics().events_dropped.fetch_add(lost, std::memory_order_relaxed);
      if (!compact_sub && frame_due(sub, *snap)) send_frame(sub, *snap);
      if (connection_.closed()) break;
    }
    // Only quantized snapshots can be sent compact: the World skips quantizing ticks the
    // encode stage could not take (Metrics::stage_busy), and those are not frames at all
    // for a compact subscription (not dropped: its deltas name the ticks between, and the
    // events of those ticks go out with the next frame).
    if (compact && snap->quant) compact_waiting_.push_back(snap);
  }
  encode_compact();
  // A draining connection sends no more frames: it lets go of the frames its deltas would
  // refer to now, not when it closes.
  if (connection_.draining()) {
    for (auto& sub : subs_.active()) sub.baselines_lost();
    compact_waiting_.clear();
  }
  batch_.clear();  // release the snapshots now, not at the next tick
  if (!ending_.ids.empty()) {
    std::vector<uint32_t> ids;
    std::swap(ids, ending_.ids);
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    end_subscriptions(ending_.reason, ids);
  }
}

void StreamSender::encode_compact() {
  // The rules are compact_frame_choice.h's: each compact subscription sends the newest
  // snapshot the encode stage prepared (or, once the stage is starved, one of its own
  // encoding), and what the stage will never prepare stops waiting.
  const bool staged = host_.encode_staged();
  const SessionHost::StageTicks stage = host_.stage_ticks();
  const bool starved = stage_starved(staged, stage.progress, newest_seen_);
  Metrics& metrics = host_.metrics();
  for (StreamSubscription& sub : subs_.active()) {
    if (stopped()) break;
    if (sub.encoding != anim::v1::ENCODING_COMPACT) continue;
    const CompactChoiceState state{staged, starved, host_.tick_holds_cores(), newest_seen_};
    const CompactChoice choice = choose_compact_frame(sub, compact_waiting_, state);
    if (choice.hold_began) metrics.frames_held_for_tick.fetch_add(1, std::memory_order_relaxed);
    if (!choice.frame) continue;
    if (choice.fallback) metrics.stage_fallbacks.fetch_add(1, std::memory_order_relaxed);
    sub.let_go_before(choice.frame->tick);
    count_drops(choice.skipped, false);
    sub.compact_through = choice.frame->tick;
    send_frame(sub, *choice.frame);
  }
  // Kept while some compact subscription may still send it (a whole tick's quantized poses).
  std::erase_if(compact_waiting_, [&](const SnapshotPtr& snap) {
    if (stopped()) return true;
    uint32_t drops = 0;
    if (keep_waiting(*snap, subs_.active(), starved, stage.taken, drops)) return false;
    count_drops(drops, false);
    return true;
  });
}

void StreamSender::send_frame(StreamSubscription& sub, const Snapshot& snap) {
  const Config& cfg = host_.config();
  // A part is at most a quarter of the write queue, so a frame always fits in pieces.
  const size_t part_bytes = std::max<size_t>(cfg.max_queued_bytes / 4, 4096);
  // Nothing to gain from encoding what the queue or the daemon's budget cannot take
  // (a crowd of readers that do not read must not cost the network threads either).
  if (!connection_.stream_frame_fits(sub.last_bytes)) {
    const uint32_t shed = connection_.shed_above_fair_share();  // encoded, queued
    count_drops(1, false);
    count_drops(shed, true);
    return;
  }
  const auto now_us = std::chrono::duration_cast<std::chrono::microseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  // The buffers of frames this connection already sent or dropped, to encode into; those
  // the frame did not need go back (where they count on the daemon's outbound budget).
  while (encoded_.buffers.size() < WriteQueue::kSpentBuffers)
    if (auto spent = connection_.spent_buffer())
      encoded_.buffers.push_back(std::move(spent));
    else
      break;
  encode_stream_frame(sub, snap, drops_.since_last, now_us, part_bytes, encoded_);
  for (auto& unused : encoded_.buffers) connection_.return_spent_buffer(std::move(unused));
  encoded_.buffers.clear();
  if (encoded_.messages.empty()) return;  // nothing to send from this snapshot
  if (encoded_.bytes > cfg.max_queued_bytes) {
    // Even in parts it would never fit the queue: say so instead of going dark.
    ending_.ids.push_back(sub.id);
    ending_.reason = "a frame of this subscription is " + std::to_string(encoded_.bytes) +
                     " bytes, more than --max-queued-bytes " +
                     std::to_string(cfg.max_queued_bytes) +
                     " can hold; subscribe to fewer characters";
    encoded_.messages.clear();
    return;
  }
  const uint32_t dropped_before = drops_.since_last;
  drops_.since_last = 0;
  if (encoded_.events)
    host_.metrics().events_sent.fetch_add(encoded_.events, std::memory_order_relaxed);
  for (auto& m : encoded_.messages) count_drops(connection_.send_stream(std::move(m)), true);
  // A part that did not fit was counted; the frame as a whole is one drop, and the count
  // the client was told about must be told again.
  if (drops_.since_last > 0) drops_.since_last += dropped_before;
}

void StreamSender::end_subscriptions(const std::string& reason, std::vector<uint32_t> ids) {
  if (subs_.empty()) return;
  if (ids.empty())
    for (const auto& sub : subs_.active()) ids.push_back(sub.id);
  host_.log(spdlog::level::warn, "subscriptions ended",
            "session " + std::to_string(session_id_) + " (" + connection_.peer() +
                "): " + std::to_string(ids.size()) + " subscription(s) ended: " + reason);
  for (const auto& sub : subs_.active()) {
    if (std::find(ids.begin(), ids.end(), sub.id) == ids.end()) continue;
    anim::v1::ServerMessage msg;
    auto* e = msg.mutable_subscription_ended();
    e->set_subscription_id(sub.id);
    e->set_code(anim::v1::STATUS_RESOURCE_EXHAUSTED);
    e->set_reason(reason);
    e->set_frames_dropped(static_cast<uint32_t>(std::min<uint64_t>(drops_.total, UINT32_MAX)));
    connection_.send_now(frame_message(msg));
    if (connection_.closed()) return;
  }
  subs_.end(ids);
  release_unwanted_snapshots();
  if (subs_.empty()) {
    drops_.all_since.reset();
    drops_.since_last = 0;
    // Frames queued behind a reader that does not read would hold the daemon's outbound
    // budget for good: drop them (the ones being written stay).
    connection_.drop_queued_stream_frames();
  }
  // The World stops counting this connection as a watcher (no reply wanted).
  for (uint32_t id : ids) {
    Command c;
    c.kind = Command::Kind::kRequest;
    c.session_id = session_id_;
    c.request = Unsubscribe{id};
    host_.commands().push(std::move(c));
  }
}

}  // namespace animd
