#include "stream/stream_encoder.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <iterator>
#include <string_view>

#include "anim/v1/envelope.pb.h"
#include "base/wire_varint.h"
#include "protocol/proto_convert.h"

namespace animd {

namespace {

void append_le32(std::string& out, size_t v) {
  const char b[4] = {static_cast<char>(v), static_cast<char>(v >> 8), static_cast<char>(v >> 16),
                     static_cast<char>(v >> 24)};
  out.append(b, 4);
}

// The message with its length prefix, then `tail_size` more bytes of message.frame() that
// append_tail(out) appends, written into `into` (emptied first; null: a new string). The
// string is sized once at its final size and written in order (no zero fill, no
// reallocation: a float frame's tail is megabytes).
template <class AppendTail>
std::unique_ptr<std::string> framed(const anim::v1::ServerMessage& message, size_t tail_size,
                                    AppendTail&& append_tail,
                                    std::unique_ptr<std::string> into = nullptr) {
  auto out = into ? std::move(into) : std::make_unique<std::string>();
  out->clear();
  if (tail_size == 0) {
    const size_t size = message.ByteSizeLong();
    out->resize(4 + size);
    auto* p = reinterpret_cast<uint8_t*>(out->data());
    for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(size >> (8 * i));
    message.SerializeWithCachedSizesToArray(p + 4);
    return out;
  }
  // With a tail, the StreamFrame (ServerMessage.frame, field 2) grows by it: its length
  // prefix is written here and its own fields after it.
  const anim::v1::StreamFrame& f = message.frame();
  const size_t fields = f.ByteSizeLong();
  const size_t inner = fields + tail_size;
  const size_t size = 1 + varint_size(inner) + inner;
  out->reserve(4 + size);
  append_le32(*out, size);
  out->push_back(static_cast<char>(0x12));  // ServerMessage.frame: field 2, length-delimited
  put_varint(*out, inner);
  const size_t at = out->size();
  out->resize(at + fields);
  f.SerializeWithCachedSizesToArray(reinterpret_cast<uint8_t*>(out->data() + at));
  append_tail(*out);
  return out;
}

// A float character entry (StreamFrame.characters, field 5): id, asset and root serialized
// through a scratch message, then the palette as one packed field (CharacterFrame.palette,
// field 4) straight from the snapshot, instead of copying 48 bytes a joint into a
// RepeatedField (zero-filled first) and serializing that again.
static_assert(std::endian::native == std::endian::little,
              "packed floats are little-endian on the wire: the palette is copied as it is");
static_assert(sizeof(anim::PaletteMatrix) == 12 * sizeof(float), "12 floats a joint, no padding");
struct FloatEntry {
  uint32_t head_begin = 0, head_size = 0;  // in the heads buffer: CharacterFrame fields 1-3
  uint32_t palette_bytes = 0;
  uint32_t morph_bytes = 0;  // CharacterFrame.morph_weights (0: the asset has no targets)
  size_t inner() const {
    return head_size + (palette_bytes ? 1 + varint_size(palette_bytes) + palette_bytes : 0) +
           (morph_bytes ? 1 + varint_size(morph_bytes) + morph_bytes : 0);
  }
  size_t bytes() const { return 1 + varint_size(inner()) + inner(); }
};

}  // namespace

std::string_view compact_entry_for(const Snapshot& snap, size_t index,
                                   std::span<const QuantRef> kept,
                                   const StreamSubscription::Held* prev,
                                   animcodec::FrameKind& kind) {
  using animcodec::FrameKind;
  kind = FrameKind::kKey;
  if (!prev) return snap.compact_entry(index, kind);
  const bool previous_tick = prev->tick + 1 == snap.tick;
  if (previous_tick && prev->prev_tick != 0 && prev->prev_tick + 2 == snap.tick &&
      snap.has_baseline(index, FrameKind::kDelta2)) {
    kind = FrameKind::kDelta2;
    return snap.compact_entry(index, kind);
  }
  const SnapshotCharacter& c = snap.characters[index];
  auto kept_frame = [&](uint64_t tick) -> const QuantFrame* {
    for (const QuantRef& q : kept)
      if (q && q->tick == tick) return q.get();
    return nullptr;
  };
  animcodec::Baseline b;
  const QuantFrame* f1 = prev->tick < snap.tick ? kept_frame(prev->tick) : nullptr;
  const bool own1 = f1 && f1->find(c.id, c.num_joints, b.prev1, b.root1);
  const bool older = prev->prev_tick != 0 && prev->prev_tick < prev->tick;
  const uint64_t skipped[2] = {snap.tick - prev->tick - 1,
                               older ? prev->tick - prev->prev_tick - 1 : 0};
  if (own1 && older)
    if (const QuantFrame* f2 = kept_frame(prev->prev_tick))
      if (f2->find(c.id, c.num_joints, b.prev2, b.root2)) {
        kind = FrameKind::kDelta2;
        return snap.compact_entry_against(index, kind, b, skipped, f1);
      }
  if (previous_tick && snap.has_baseline(index, FrameKind::kDelta1)) {
    kind = FrameKind::kDelta1;
    return snap.compact_entry(index, kind);
  }
  if (!own1) return snap.compact_entry(index, kind);
  kind = FrameKind::kDelta1;
  b.prev2 = {}, b.root2 = nullptr;
  return snap.compact_entry_against(index, kind, b, skipped, f1);
}

namespace {

// Region subscriptions: members not sent this frame (an outer zone's off turns) keep what
// the client holds of them. `held`: this frame's, sorted by id; sub.last_ids: the members.
void keep_members_not_sent(const StreamSubscription& sub,
                           std::vector<StreamSubscription::Held>& held) {
  std::vector<StreamSubscription::Held> carried;
  size_t n = 0;
  for (const StreamSubscription::Held& e : sub.held) {
    while (n < held.size() && held[n].id < e.id) ++n;
    if (n < held.size() && held[n].id == e.id) continue;  // sent this frame
    if (std::binary_search(sub.last_ids.begin(), sub.last_ids.end(), e.id)) carried.push_back(e);
  }
  if (carried.empty()) return;
  std::vector<StreamSubscription::Held> merged;
  merged.reserve(held.size() + carried.size());
  std::merge(held.begin(), held.end(), carried.begin(), carried.end(), std::back_inserter(merged),
             [](const auto& a, const auto& b) { return a.id < b.id; });
  held = std::move(merged);
}

// Keeps the quantized frames (this snapshot's and those kept before) of the ticks some held
// entry refers to, newest first, at most kMaxKeptFrames.
void keep_frames(StreamSubscription& sub, const Snapshot& snap) {
  auto referenced = [&](uint64_t tick) {
    for (const StreamSubscription::Held& e : sub.held)
      if (e.tick == tick || e.prev_tick == tick) return true;
    return false;
  };
  std::vector<QuantRef> next;
  next.reserve(StreamSubscription::kMaxKeptFrames);
  if (snap.quant && referenced(snap.tick)) next.push_back(snap.quant);
  for (const QuantRef& q : sub.kept)
    if (next.size() < StreamSubscription::kMaxKeptFrames && q->tick < snap.tick &&
        q->tick + StreamSubscription::kMaxKeptAge >= snap.tick && referenced(q->tick))
      next.push_back(q);
  sub.kept = std::move(next);
}

}  // namespace

bool stage_prepared_for(const StreamSubscription& sub, const Snapshot& snap) {
  if (!snap.prepared.load(std::memory_order_acquire)) return false;
  for (size_t k = 0; k < 2; ++k)
    if ((k < sub.kept.size() ? sub.kept[k]->tick : 0) != snap.prepared_against[k]) return false;
  return true;
}

std::unique_ptr<std::string> frame_message(const anim::v1::ServerMessage& message,
                                           std::string_view frame_tail,
                                           std::unique_ptr<std::string> into) {
  return framed(
      message, frame_tail.size(), [&](std::string& out) { out.append(frame_tail); },
      std::move(into));
}

uint64_t collect_events(StreamSubscription& sub, const Snapshot& snap) {
  uint64_t dropped_here = 0;
  for (const SnapshotCharacter& c : snap.characters) {
    if (c.events_count == 0 && c.events_overflowed == 0) continue;
    // The subscription's characters at this tick (a region: by this tick's root).
    if (sub.region) {
      if (sub.region->zone(c.root.translation) == StreamRegion::Zone::kOutside) continue;
    } else if (!sub.all && !std::binary_search(sub.ids.begin(), sub.ids.end(), c.id)) {
      continue;
    }
    sub.events_dropped +=
        static_cast<uint32_t>(std::min<uint64_t>(c.events_overflowed, UINT32_MAX));
    // A montage's lifecycle events are named by their kind, not by the table (which a
    // character without clip events does not have).
    const anim::ClipEventTable* table = c.event_table;
    for (uint32_t k = 0; k < c.events_count; ++k) {
      const anim::FiredEvent& f = snap.events[c.events_begin + k];
      if (f.weight < sub.event_min_weight) continue;
      const bool montage = f.source == anim::EventSource::kMontage;
      if (!montage && !table) continue;
      static const anim::ClipEvent kNoEvent;
      const anim::ClipEvent& e =
          montage ? kNoEvent
                  : table->clips[static_cast<size_t>(f.clip)][static_cast<size_t>(f.event)];
      const std::string_view name =
          montage ? std::string_view(anim::montage_event_name(f.event)) : std::string_view(e.name);
      const size_t bytes = name.size() + e.payload.size();
      if (sub.pending_events.size() >= kMaxPendingEvents ||
          sub.pending_event_bytes + bytes > kMaxPendingEventBytes) {
        ++sub.events_dropped;
        ++dropped_here;
        continue;
      }
      anim::v1::AnimationEvent& out = sub.pending_events.emplace_back();
      out.set_character_id(c.id);
      out.set_tick(snap.tick);
      out.set_clip(c.asset->clips[static_cast<size_t>(f.clip)].name);
      out.set_name(name.data(), name.size());
      out.set_payload(e.payload);
      out.set_time(e.time);
      out.set_weight(f.weight);
      switch (f.source) {
        case anim::EventSource::kBase:
          out.set_source(anim::v1::EVENT_SOURCE_BASE);
          break;
        case anim::EventSource::kFade:
          out.set_source(anim::v1::EVENT_SOURCE_FADE);
          break;
        case anim::EventSource::kLayer:
          out.set_source(anim::v1::EVENT_SOURCE_LAYER);
          break;
        case anim::EventSource::kMontage:
          out.set_source(anim::v1::EVENT_SOURCE_MONTAGE);
          break;
      }
      out.set_layer_id(f.layer_id);
      out.set_reverse(f.reverse);
      sub.pending_event_bytes += bytes;
    }
  }
  return dropped_here;
}

void encode_stream_frame(StreamSubscription& sub, const Snapshot& snap, uint32_t dropped,
                         int64_t unix_time_us, size_t max_part_bytes, EncodedFrame& out) {
  out.messages.clear();
  out.bytes = 0;
  out.events = 0;
  // One scratch message per network thread: its repeated fields keep their capacity between
  // frames without every connection holding a frame-sized buffer.
  thread_local anim::v1::ServerMessage scratch;
  // Nothing to send floats from (not expected: a float subscription is counted before it
  // starts, so every snapshot it sees has palettes): no frame, and the subscription's
  // bookkeeping stays as it is, so its next frame reports what changed meanwhile.
  if (sub.encoding != anim::v1::ENCODING_COMPACT && !snap.has_palettes) return;

  std::vector<const SnapshotCharacter*> chars;
  std::vector<uint32_t> despawned;
  std::vector<uint32_t> left;
  if (sub.region) {
    // Members: inner and outer zone. Outer-zone members are sent on every outer_divisor-th
    // frame only; members that are gone are reported once, as left (alive) or despawned.
    const StreamRegion& region = *sub.region;
    const bool outer_turn = sub.frames % region.outer_divisor == 0;
    std::vector<uint32_t> members;
    for (const auto& c : snap.characters) {
      const StreamRegion::Zone zone = region.zone(c.root.translation);
      if (zone == StreamRegion::Zone::kOutside) continue;
      members.push_back(c.id);
      if (zone == StreamRegion::Zone::kInner || outer_turn) chars.push_back(&c);
    }
    // Both lists are sorted (the snapshot is by id): walk them together.
    size_t m = 0;
    for (uint32_t id : sub.last_ids) {
      while (m < members.size() && members[m] < id) ++m;
      if (m < members.size() && members[m] == id) continue;
      (snap.find(id) ? left : despawned).push_back(id);
    }
    sub.last_ids = std::move(members);
  } else if (sub.all) {
    for (uint32_t id : sub.last_ids)
      if (!snap.find(id)) despawned.push_back(id);
    sub.last_ids.clear();
    for (const auto& c : snap.characters) {
      chars.push_back(&c);
      sub.last_ids.push_back(c.id);
    }
  } else {
    std::erase_if(sub.ids, [&](uint32_t id) {
      if (const SnapshotCharacter* c = snap.find(id)) {
        chars.push_back(c);
        return false;
      }
      despawned.push_back(id);
      return true;
    });
  }

  // Compact: each character's entry, chosen by what the client holds of it.
  const bool compact = sub.encoding == anim::v1::ENCODING_COMPACT;
  thread_local std::string body;               // the entries, back to back
  thread_local std::vector<size_t> entry_end;  // where each ends in `body`
  if (compact) {
    body.clear();
    entry_end.clear();
    std::vector<StreamSubscription::Held> held;
    held.reserve(chars.size());
    size_t h = 0;
    for (const SnapshotCharacter* c : chars) {
      while (h < sub.held.size() && sub.held[h].id < c->id) ++h;
      const StreamSubscription::Held* prev =
          h < sub.held.size() && sub.held[h].id == c->id ? &sub.held[h] : nullptr;
      const size_t index = static_cast<size_t>(c - snap.characters.data());
      // Not quantized at this tick: the World did not yet see the subscription that makes it
      // streamed (a region moved, a subscription begun since the tick started). It is sent
      // from the next tick on, a key frame when the client holds none of it.
      if (!snap.in_quant(index)) continue;
      animcodec::FrameKind kind;
      body.append(compact_entry_for(snap, index, sub.kept, prev, kind));
      entry_end.push_back(body.size());
      // A key frame replaces what the client held; a delta adds to it.
      held.push_back({c->id, snap.tick, kind == animcodec::FrameKind::kKey ? 0 : prev->tick});
    }
    if (sub.region) keep_members_not_sent(sub, held);
    sub.held = std::move(held);
    keep_frames(sub, snap);
  }
  // Float: the characters' heads, serialized now (sizes known before the parts are cut).
  thread_local std::string heads;
  thread_local std::vector<FloatEntry> floats;
  thread_local anim::v1::CharacterFrame head;
  if (!compact) {
    heads.clear();
    floats.clear();
    for (const SnapshotCharacter* c : chars) {
      head.set_character_id(c->id);
      head.set_asset(c->asset->name);
      to_proto(c->root, head.mutable_root());
      FloatEntry e;
      e.head_begin = static_cast<uint32_t>(heads.size());
      e.head_size = static_cast<uint32_t>(head.ByteSizeLong());
      e.palette_bytes = c->num_joints * static_cast<uint32_t>(sizeof(anim::PaletteMatrix));
      e.morph_bytes = c->num_morphs * static_cast<uint32_t>(sizeof(float));
      heads.resize(heads.size() + e.head_size);
      head.SerializeWithCachedSizesToArray(reinterpret_cast<uint8_t*>(heads.data() + e.head_begin));
      floats.push_back(e);
    }
  }
  auto entry_bytes = [&](size_t i) {
    return compact ? entry_end[i] - (i > 0 ? entry_end[i - 1] : 0) : floats[i].bytes();
  };
  const size_t count = compact ? entry_end.size() : chars.size();

  // Split the characters into parts that fit the bound: the characters' entries are counted
  // exactly, the frame's own fields and part 0's events by estimate (at least one character
  // per part, so a part may exceed it if one character alone does).
  const size_t members =
      dropped > 0 ? (sub.region || sub.all ? sub.last_ids.size() : sub.ids.size()) : 0;
  const size_t header = 64 + (despawned.size() + left.size() + members) * 5;
  size_t events_bytes = 0;  // part 0 carries the events
  for (const auto& e : sub.pending_events)
    events_bytes += 48 + e.clip().size() + e.name().size() + e.payload().size();
  std::vector<size_t> part_starts{0};
  size_t size = header + events_bytes;
  for (size_t i = 0; i < count; ++i) {
    const size_t b = entry_bytes(i);
    if (size + b > max_part_bytes && i > part_starts.back()) {
      part_starts.push_back(i);
      size = header;
    }
    size += b;
  }
  const auto parts = static_cast<uint32_t>(part_starts.size());
  for (uint32_t p = 0; p < parts; ++p) {
    scratch.Clear();
    auto* f = scratch.mutable_frame();
    f->set_subscription_id(sub.id);
    f->set_tick(snap.tick);
    f->set_server_time(snap.server_time);
    f->set_server_unix_time_us(unix_time_us);
    if (parts > 1) {
      f->set_part(p);
      f->set_parts(parts);
    }
    if (p == 0) {
      for (uint32_t id : despawned) f->add_despawned(id);
      for (uint32_t id : left) f->add_left(id);
      // Dropped frames may have held notices that are never repeated: resynchronize.
      if (dropped > 0) {
        const std::vector<uint32_t>& members = sub.region || sub.all ? sub.last_ids : sub.ids;
        for (uint32_t id : members) f->add_members(id);
      }
      f->set_dropped_since_last(dropped);
      if (sub.events) {
        f->mutable_events()->Reserve(static_cast<int>(sub.pending_events.size()));
        for (auto& e : sub.pending_events) *f->add_events() = std::move(e);
        f->set_events_dropped(sub.events_dropped);
        out.events = sub.pending_events.size();
        sub.pending_events.clear();
        sub.pending_event_bytes = 0;
        sub.events_dropped = 0;
      }
    }
    const size_t begin = part_starts[p];
    const size_t end = p + 1 < parts ? part_starts[p + 1] : count;
    std::unique_ptr<std::string> bytes;
    std::unique_ptr<std::string> into;
    if (!out.buffers.empty()) {
      into = std::move(out.buffers.back());
      out.buffers.pop_back();
    }
    if (compact) {
      // The header fields, then the characters' entries as they are: a serialized message
      // may hold its fields in any order, and repeated ones concatenate.
      const size_t from = begin > 0 ? entry_end[begin - 1] : 0;
      const size_t to = end > 0 ? entry_end[end - 1] : 0;
      bytes =
          frame_message(scratch, std::string_view(body).substr(from, to - from), std::move(into));
    } else {
      size_t tail = 0;
      for (size_t i = begin; i < end; ++i) tail += floats[i].bytes();
      bytes = framed(
          scratch, tail,
          [&](std::string& s) {
            for (size_t i = begin; i < end; ++i) {
              const FloatEntry& e = floats[i];
              s.push_back(static_cast<char>(0x2A));  // StreamFrame.characters: field 5
              put_varint(s, e.inner());
              s.append(heads, e.head_begin, e.head_size);
              if (e.palette_bytes > 0) {
                s.push_back(static_cast<char>(0x22));  // CharacterFrame.palette: field 4, packed
                put_varint(s, e.palette_bytes);
                s.append(
                    reinterpret_cast<const char*>(snap.palettes.data() + chars[i]->palette_offset),
                    e.palette_bytes);
              }
              if (e.morph_bytes > 0) {
                s.push_back(static_cast<char>(0x42));  // CharacterFrame.morph_weights: 8, packed
                put_varint(s, e.morph_bytes);
                s.append(reinterpret_cast<const char*>(snap.morphs.data() + chars[i]->morph_offset),
                         e.morph_bytes);
              }
            }
          },
          std::move(into));
    }
    out.bytes += bytes->size();
    out.messages.push_back(std::move(bytes));
  }
  sub.last_bytes = out.bytes;
  ++sub.frames;
}

}  // namespace animd
