#pragma once
// Stream encoding: one subscription's frame for one tick, as ready-to-send wire messages
// (4-byte length + ServerMessage). Runs on the network threads, from an immutable Snapshot.
//
// A frame larger than `max_part_bytes` is split into several messages (StreamFrame.part /
// parts, same tick), each under the bound, so a big world never produces a frame that no
// write queue can hold. Character order is the snapshot's (by id).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "anim/v1/envelope.pb.h"
#include "snapshot/snapshot.h"
#include "snapshot/stream_region.h"

namespace animd {

// What a subscription streams and its bookkeeping between frames.
struct StreamSubscription {
  uint32_t id = 0;
  bool all = false;
  std::optional<StreamRegion> region;  // set: a region subscription (neither all nor ids)
  std::vector<uint32_t> ids;           // explicit ids, sorted; despawned ones are removed
  // all_characters: ids in the previous frame; region: the members at the previous frame
  // (inner and outer zone, sent or not), sorted.
  std::vector<uint32_t> last_ids;
  uint64_t frames = 0;      // frames encoded so far (the outer zone's rate)
  uint32_t divisor = 1;     // every Nth tick
  uint64_t start_tick = 0;  // the tick the subscribe took effect
  size_t last_bytes = 0;    // size of the last frame encoded (all parts)
  // ENCODING_COMPACT: snapshots up to this tick are encoded or skipped (Session).
  uint64_t compact_through = 0;
  // ENCODING_COMPACT: the newest tick the session had seen when it first held back a frame
  // of its own encoding for the tick to end (kMaxHeldForTickTicks, compact_frame_choice.h); 0
  // when none is.
  uint64_t held_for_tick_since = 0;
  anim::v1::Encoding encoding = anim::v1::ENCODING_FLOAT_3X4;

  // ENCODING_COMPACT: the characters the client holds frames of, sorted by id, with the
  // ticks of the newest two (what its next delta may refer to), and the quantized frames of
  // those ticks (at most kMaxKeptFrames; a character whose frames are not kept gets a key
  // frame). Emptied when an encoded frame of the connection is lost (baselines_lost()): every
  // character's next frame is a key frame. Ticks skipped before encoding lose nothing.
  struct Held {
    uint32_t id = 0;
    uint64_t tick = 0;       // the tick of the newest frame it holds
    uint64_t prev_tick = 0;  // the tick of the frame before it, 0 if none
  };
  std::vector<Held> held;
  static constexpr size_t kMaxKeptFrames = 6;
  // Frames more than this many ticks before the newest snapshot the session has taken are
  // let go, encoded or not: the frames all subscriptions keep are then those of a few ticks
  // (each a whole tick's quantized poses), however many subscribers stop reading.
  static constexpr uint64_t kMaxKeptAge = kMaxKeptQuantAge;
  std::vector<QuantRef> kept;  // newest first
  void baselines_lost() {
    held.clear();
    kept.clear();
  }
  // Lets go of kept frames more than kMaxKeptAge ticks before `tick` (every snapshot the
  // session sees, whether this subscription encodes it or not).
  void let_go_before(uint64_t tick) {
    std::erase_if(kept, [&](const QuantRef& q) { return q->tick + kMaxKeptAge < tick; });
  }

  // Animation events (SubscribeRequest.events): gathered from every snapshot from start_tick
  // on (collect_events), sent with the next frame encoded (part 0), so ticks the rate divisor
  // skips or a full write queue drops lose none. Bounded: more wait as dropped.
  bool events = false;
  float event_min_weight = 0.0f;  // [0, 1]
  std::vector<anim::v1::AnimationEvent> pending_events;
  size_t pending_event_bytes = 0;  // names and payloads of pending_events
  uint32_t events_dropped = 0;     // since the last frame encoded
};

// Whether `sub`'s next compact frame of `snap` is made of entries the encode stage prepared
// (shared, copied as they are): the snapshot is prepared, and the subscription's last two
// frames are of the ticks it was prepared against (Snapshot::prepared_against). Otherwise
// the session encodes entries of its own: deltas against older frames after skipped ticks,
// key frames after a lost frame or for a new subscription, frames at a rate divisor. Not
// counted here: a region subscription's outer-zone
// members (sent on their turns, a few at a time) are the session's own encoding either way.
bool stage_prepared_for(const StreamSubscription& sub, const Snapshot& snap);

// At most this many events, and this many bytes of names and payloads, wait for one frame.
inline constexpr size_t kMaxPendingEvents = 256;
inline constexpr size_t kMaxPendingEventBytes = 64 * 1024;

// Adds `snap`'s events of `sub`'s characters (weights at least its minimum) to its pending
// events; the events of its characters that could not be kept (the character's own limit,
// or the pending bounds) count in sub.events_dropped. Returns the number dropped by the
// pending bounds. Needs sub.events.
uint64_t collect_events(StreamSubscription& sub, const Snapshot& snap);

struct EncodedFrame {
  std::vector<std::unique_ptr<std::string>> messages;  // one per part, in order
  size_t bytes = 0;                                    // all messages together
  size_t events = 0;                                   // animation events carried (part 0)
  // Buffers the caller hands in for the messages (the last one first), e.g. those of frames
  // already written (Connection::spent_buffer, at most WriteQueue::kSpentBuffers): their
  // capacity is reused, their contents ignored. The encoder takes what it needs and leaves
  // the rest here.
  std::vector<std::unique_ptr<std::string>> buffers;
};

// Encodes `sub`'s frame of `snap` (updating its despawn and baseline bookkeeping); part 0
// carries the pending events (emptied) and events_dropped (zeroed). Compact
// frames are the snapshot's shared per-character entries (Snapshot::compact_entry) when the
// client holds the character's frames of the two ticks before (or the one before), else a
// delta of its own against the newest one or two frames it holds (a rate divisor, an outer
// zone, skipped ticks), or a key frame when it holds none that is kept (first frame, region
// entry, after a lost frame). `dropped`: frames of the
// connection dropped since the last one sent (carried by part 0). `unix_time_us`: the
// encode time stamp.
void encode_stream_frame(StreamSubscription& sub, const Snapshot& snap, uint32_t dropped,
                         int64_t unix_time_us, size_t max_part_bytes, EncodedFrame& out);

// Character `index`'s compact entry (and its kind) for a client holding `prev` (null: nothing
// of it), with `kept` the quantized frames it may refer to; the first of: the shared DELTA2 (it
// holds the character's frames of the two ticks before); its own DELTA2 against the newest
// two frames it holds, if kept; the shared DELTA1 (it holds the tick before); its own DELTA1;
// a key frame. Subscriptions ask it (encode_stream_frame) and so does the encode stage, for
// the subscribers in step with it: the same choice, so the same shared entry.
std::string_view compact_entry_for(const Snapshot& snap, size_t index,
                                   std::span<const QuantRef> kept,
                                   const StreamSubscription::Held* prev,
                                   animcodec::FrameKind& kind);

// Serializes a ServerMessage with its 4-byte little-endian length prefix. `frame_tail`:
// serialized StreamFrame fields appended to message.frame() (which must be the message's
// only field): the compact encoder's shared character entries. `into`: a buffer to write it
// in (its contents replaced, its capacity reused); null: a new one.
std::unique_ptr<std::string> frame_message(const anim::v1::ServerMessage& message,
                                           std::string_view frame_tail = {},
                                           std::unique_ptr<std::string> into = nullptr);

}  // namespace animd
