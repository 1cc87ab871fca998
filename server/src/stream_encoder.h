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
#include "snapshot.h"
#include "stream_region.h"

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
  anim::v1::Encoding encoding = anim::v1::ENCODING_FLOAT_3X4;

  // ENCODING_COMPACT: the characters of the previous frame encoded, sorted by id, with the
  // frames the client holds of each (what its next delta may refer to). Emptied when a frame
  // of the connection is dropped (baselines_lost()): every character's next frame is a key.
  struct Held {
    uint32_t id = 0;
    uint64_t tick = 0;   // the tick of the newest frame it holds
    uint8_t frames = 0;  // consecutive ticks held up to `tick`: 1, or 2 (two or more)
  };
  std::vector<Held> held;
  void baselines_lost() { held.clear(); }
};

struct EncodedFrame {
  std::vector<std::unique_ptr<std::string>> messages;  // one per part, in order
  size_t bytes = 0;                                    // all messages together
};

// Encodes `sub`'s frame of `snap` (updating its despawn and baseline bookkeeping). Compact
// frames are the snapshot's shared per-character entries (Snapshot::compact_entry): a key
// frame for a character the client holds nothing of (first frame, region entry, after a
// drop, a rate divisor > 1 or an outer-zone gap), else a delta against the last one or two
// ticks it holds. `dropped`: frames of the
// connection dropped since the last one sent (carried by part 0). `unix_time_us`: the
// encode time stamp.
void encode_stream_frame(StreamSubscription& sub, const Snapshot& snap, uint32_t dropped,
                         int64_t unix_time_us, size_t max_part_bytes, EncodedFrame& out);

// Serializes a ServerMessage with its 4-byte little-endian length prefix. `frame_tail`:
// serialized StreamFrame fields appended to message.frame() (which must be the message's
// only field): the compact encoder's shared character entries.
std::unique_ptr<std::string> frame_message(const anim::v1::ServerMessage& message,
                                           std::string_view frame_tail = {});

}  // namespace animd
