// Session (session.h): streaming. Snapshots handed over by the tick are encoded for each
// subscription on the session's strand; frames the connection cannot take are counted as
// dropped, and subscriptions that cannot be served are ended with SubscriptionEnded.
#include "session/session.h"

#include <algorithm>

#include <spdlog/spdlog.h>

#include "stream/compact_frame_choice.h"

namespace animd {

namespace asio = boost::asio;

void Session::offer_snapshot(const SnapshotPtr& snapshot) {
  if (!subs_.streaming()) return;
  if (inbox_.offer(snapshot))
    asio::post(transport_.get_executor(), [self = shared_from_this()] { self->on_snapshot(); });
}

void Session::release_unwanted_snapshots() {
  if (closed_ || !subs_.any_compact()) compact_waiting_.clear();
}

void Session::count_drops(uint32_t n, bool encoded) {
  if (n == 0) return;
  // A lost frame that was encoded may have carried compact frames that later deltas refer
  // to: every subscription starts over with key frames (the client discards deltas that
  // arrive before them against frames it never got). A tick skipped before encoding loses
  // nothing: the next deltas name the ticks the client holds.
  if (encoded)
    for (auto& sub : subs_.active()) sub.baselines_lost();
  dropped_since_last_ += n;
  dropped_total_ += n;
  server_.metrics().stream_frames_dropped.fetch_add(n, std::memory_order_relaxed);
  if (!dropping_since_) dropping_since_ = Clock::now();
}

void Session::snapshot_prepared() {
  if (!subs_.streaming()) return;
  if (inbox_.nudge())
    asio::post(transport_.get_executor(), [self = shared_from_this()] { self->on_snapshot(); });
}

void Session::on_snapshot() {
  if (const uint32_t discarded = inbox_.take(encoding_))
    // The session was too busy to encode a tick: each subscription missed a frame.
    count_drops(discarded * static_cast<uint32_t>(subs_.active().size()), false);
  const bool compact = subs_.any_compact();
  // Each new snapshot, in order: kept frames let go, events gathered, float frames encoded.
  for (const SnapshotPtr& snap : encoding_) {
    if (closed_ || draining_) break;
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
          server_.metrics().events_dropped.fetch_add(lost, std::memory_order_relaxed);
      if (sub.encoding != anim::v1::ENCODING_COMPACT && frame_due(sub, *snap))
        send_frame(sub, *snap);
      if (closed_) break;
    }
    // Only quantized snapshots can be sent compact: the World skips quantizing ticks the
    // encode stage could not take (Metrics::stage_busy), and those are not frames at all
    // for a compact subscription (not dropped: its deltas name the ticks between, and the
    // events of those ticks go out with the next frame).
    if (compact && snap->quant) compact_waiting_.push_back(snap);
  }
  encode_compact();
  // A draining session sends no more frames: it lets go of the frames its deltas would refer
  // to now, not when it closes.
  if (draining_) {
    for (auto& sub : subs_.active()) sub.baselines_lost();
    compact_waiting_.clear();
  }
  encoding_.clear();  // release the snapshots now, not at the next tick
  if (!ended_.empty()) {
    std::vector<uint32_t> ids;
    std::swap(ids, ended_);
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    end_subscriptions(end_reason_, ids);
  }
}

void Session::encode_compact() {
  // The rules are compact_frame_choice.h's: each compact subscription sends the newest
  // snapshot the encode stage prepared (or, once the stage is starved, one of its own
  // encoding), and what the stage will never prepare stops waiting.
  const bool staged = server_.encode_staged();
  const SessionHost::StageTicks stage = server_.stage_ticks();
  const bool starved = stage_starved(staged, stage.progress, newest_seen_);
  Metrics& metrics = server_.metrics();
  for (StreamSubscription& sub : subs_.active()) {
    if (closed_ || draining_) break;
    if (sub.encoding != anim::v1::ENCODING_COMPACT) continue;
    const CompactChoiceState state{staged, starved, server_.tick_holds_cores(), newest_seen_};
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
    if (closed_ || draining_) return true;
    uint32_t drops = 0;
    if (keep_waiting(*snap, subs_.active(), starved, stage.taken, drops)) return false;
    count_drops(drops, false);
    return true;
  });
}

void Session::send_frame(StreamSubscription& sub, const Snapshot& snap) {
  const Config& cfg = server_.config();
  // A part is at most a quarter of the write queue, so a frame always fits in pieces.
  const size_t part_bytes = std::max<size_t>(cfg.max_queued_bytes / 4, 4096);
  // Nothing to gain from encoding what the queue or the daemon's budget cannot take
  // (a crowd of readers that do not read must not cost the network threads either).
  if (!write_queue_.stream_frame_fits(sub.last_bytes)) {
    const uint32_t shed = write_queue_.shed_above_fair_share();  // encoded, queued
    count_drops(1, false);
    count_drops(shed, true);
    return;
  }
  const auto now_us = std::chrono::duration_cast<std::chrono::microseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  encode_stream_frame(sub, snap, dropped_since_last_, now_us, part_bytes, encoded_);
  if (encoded_.messages.empty()) return;  // nothing to send from this snapshot
  if (encoded_.bytes > cfg.max_queued_bytes) {
    // Even in parts it would never fit the queue: say so instead of going dark.
    ended_.push_back(sub.id);
    end_reason_ = "a frame of this subscription is " + std::to_string(encoded_.bytes) +
                  " bytes, more than --max-queued-bytes " + std::to_string(cfg.max_queued_bytes) +
                  " can hold; subscribe to fewer characters";
    return;
  }
  const uint32_t dropped_before = dropped_since_last_;
  dropped_since_last_ = 0;
  if (encoded_.events)
    server_.metrics().events_sent.fetch_add(encoded_.events, std::memory_order_relaxed);
  for (auto& m : encoded_.messages) enqueue_stream(std::move(m));
  // A part that did not fit was counted; the frame as a whole is one drop, and the count
  // the client was told about must be told again.
  if (dropped_since_last_ > 0) dropped_since_last_ += dropped_before;
}

void Session::end_subscriptions(const std::string& reason, std::vector<uint32_t> ids) {
  if (subs_.empty()) return;
  if (ids.empty())
    for (const auto& sub : subs_.active()) ids.push_back(sub.id);
  server_.log(spdlog::level::warn, "subscriptions ended",
              "session " + std::to_string(id_) + " (" + peer_ + "): " + std::to_string(ids.size()) +
                  " subscription(s) ended: " + reason);
  for (const auto& sub : subs_.active()) {
    if (std::find(ids.begin(), ids.end(), sub.id) == ids.end()) continue;
    anim::v1::ServerMessage msg;
    auto* e = msg.mutable_subscription_ended();
    e->set_subscription_id(sub.id);
    e->set_code(anim::v1::STATUS_RESOURCE_EXHAUSTED);
    e->set_reason(reason);
    e->set_frames_dropped(static_cast<uint32_t>(std::min<uint64_t>(dropped_total_, UINT32_MAX)));
    enqueue_reply(frame_message(msg));
    if (closed_) return;
  }
  subs_.end(ids);
  release_unwanted_snapshots();
  if (subs_.empty()) {
    dropping_since_.reset();
    dropped_since_last_ = 0;
    // Frames queued behind a reader that does not read would hold the daemon's outbound
    // budget for good: drop them (the ones being written stay).
    write_queue_.drop_queued_stream_frames();
  }
  // The World stops counting this connection as a watcher (no reply wanted).
  for (uint32_t id : ids) {
    Command c;
    c.kind = Command::Kind::kRequest;
    c.session_id = id_;
    c.request = Unsubscribe{id};
    server_.commands().push(std::move(c));
  }
}

}  // namespace animd
