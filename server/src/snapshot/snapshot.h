#pragma once
// One tick's result, immutable once published (shared_ptr<const Snapshot>): what every
// subscription encodes its stream frames from, on the network threads.

#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "anim/clip_events.h"
#include "anim/palette.h"
#include "anim/transform.h"
#include "animcodec/compact.h"
#include "assets/asset_catalog.h"
#include "snapshot/quantize_work.h"
#include "snapshot/stream_region.h"

namespace animd {

// One tick's quantized poses for ENCODING_COMPACT (animcodec), written by the workers beside
// the palettes. Kept apart from the Snapshot so that a snapshot can hold the two ticks before
// it (the baselines of its delta frames) without chaining every older snapshot behind them.
struct QuantFrame {
  uint64_t tick = 0;
  // The poses of the characters quantized in this frame (those a compact subscription could
  // encode at its tick), each at its SnapshotCharacter::quant_offset.
  std::vector<animcodec::QJoint> joints;
  std::vector<animcodec::QRoot> roots;  // by character index (the snapshot's order)
  // By character index: its id (sorted), where its pose starts in `joints` (kNotQuantized:
  // not quantized in this frame) and its joint count. What a subscription needs to find a
  // character in a frame it kept from an earlier tick.
  std::vector<uint32_t> ids;
  std::vector<uint32_t> offsets;
  std::vector<uint32_t> joint_counts;
  // Morph weights quantized (animcodec::quantize_morph_weight), every character's at its
  // Snapshot morph_offset, and that offset by character index (ENCODING_COMPACT's
  // compact_morphs: deltas refer to a kept frame's weights). Written for the characters
  // quantized in this frame only.
  std::vector<uint16_t> morphs;
  std::vector<uint32_t> morph_offsets;
  // Character `id`'s pose and root in this frame, if it was quantized here with `num_joints`
  // joints (else false).
  bool find(uint32_t id, size_t num_joints, std::span<const animcodec::QJoint>& pose,
            const animcodec::QRoot*& root) const;
  // Character `id`'s quantized morph weights in this frame, if it has `num_morphs` here.
  bool find_morphs(uint32_t id, size_t num_morphs, std::span<const uint16_t>& weights) const;
  // Snapshots holding it (QuantRef); the pool reuses a frame only at 0.
  std::atomic<int> users{0};
  // Bytes this frame holds: the object and its vectors' capacities. The tick thread sizes the
  // vectors (others only write their elements), so it may call this while the frame is held.
  size_t bytes() const;
};

// A snapshot's hold on a QuantFrame: shared ownership (the frame outlives the pool if need
// be) plus a count the pool reads before reusing it. Letting go is a release operation and
// the pool's check an acquire load, so a holder's last reads happen before the frame is
// written again.
class QuantRef {
 public:
  QuantRef() = default;
  explicit QuantRef(std::shared_ptr<QuantFrame> frame) : frame_(std::move(frame)) {
    if (frame_) frame_->users.fetch_add(1, std::memory_order_relaxed);
  }
  QuantRef(const QuantRef& other) : QuantRef(other.frame_) {}
  QuantRef& operator=(QuantRef other) noexcept {
    std::swap(frame_, other.frame_);
    return *this;
  }
  ~QuantRef() { reset(); }

  void reset() {
    if (!frame_) return;
    frame_->users.fetch_sub(1, std::memory_order_release);
    frame_.reset();
  }
  QuantFrame* get() const { return frame_.get(); }
  QuantFrame* operator->() const { return frame_.get(); }
  QuantFrame& operator*() const { return *frame_; }
  explicit operator bool() const { return frame_ != nullptr; }

 private:
  std::shared_ptr<QuantFrame> frame_;
};

inline constexpr uint32_t kNotQuantized = UINT32_MAX;

// The oldest quantized frame a stream keeps to encode deltas against, in ticks before the
// newest snapshot it has taken (StreamSubscription::kMaxKeptAge). The World quantizes ticks at
// most this far apart, so that a kept frame is always there to refer to.
inline constexpr uint64_t kMaxKeptQuantAge = 8;

struct SnapshotCharacter {
  uint32_t id = 0;
  const anim::Asset* asset = nullptr;  // asset->name is sent; kept alive by Snapshot::assets
  anim::Transform root;                // world placement at this tick
  uint32_t palette_offset = 0;         // into Snapshot::palettes
  // Where its quantized pose is in Snapshot::quant->joints, or kNotQuantized: no compact
  // subscription could encode it at this tick (by id, all characters, or a compact region's
  // zones, as the World saw them at the tick's start), so it was not quantized.
  uint32_t quant_offset = 0;
  // Its CompactEntries in Snapshot::compact while it is quantized: the quantized characters'
  // slots are 0, 1, ... in character order.
  uint32_t compact_slot = 0;
  uint32_t num_joints = 0;
  // Its morph weights: Snapshot::morphs[morph_offset, + num_morphs); 0 when its asset has no
  // morph targets.
  uint32_t morph_offset = 0;
  uint32_t num_morphs = 0;
  // An explicit-id or all-characters subscription in ENCODING_COMPACT watches it (regions:
  // Snapshot::regions): the encode stage prepares its frames.
  bool watched_by_id = false;
  // Its quantized pose was written by the tick's update (a pose interpolated between two
  // evaluations: update-rate LOD), not to be quantized again from its Animator.
  bool quantized_in_update = false;
  // The compact encoding's view of the skeleton (compact_layout.h); one per asset, kept alive
  // by Snapshot::layouts.
  const animcodec::Layout* layout = nullptr;
  // Where the character is in Snapshot::quant_prev[k] (the ticks 1 and 2 before): its palette
  // offset and character index there, or kNotQuantized (spawned since, or not quantized).
  uint32_t prev_offset[2] = {kNotQuantized, kNotQuantized};
  uint32_t prev_index[2] = {kNotQuantized, kNotQuantized};
  // The same in Snapshot::quant_pull[k] (the last two quantized ticks, when pulled from):
  // the frames its quantization pulls towards (compact_layout.h).
  uint32_t pull_offset[2] = {kNotQuantized, kNotQuantized};
  uint32_t pull_index[2] = {kNotQuantized, kNotQuantized};
  // Animation events its update crossed: Snapshot::events[events_begin, + events_count),
  // names in `event_table` (set only while it has events; kept alive by
  // Snapshot::event_tables), and those it crossed beyond the
  // Animator's limit (counted, not kept).
  uint32_t events_begin = 0;
  uint32_t events_count = 0;
  uint64_t events_overflowed = 0;
  const anim::ClipEventTable* event_table = nullptr;
};

// A character's compact frames of one snapshot, encoded on first use by whichever network
// thread needs them and shared by every subscriber (states: 0 empty, 1 being encoded,
// 2 ready; `bytes` is written only by the thread that moved the state 0 -> 1).
struct CompactEntries {
  std::atomic<uint8_t> state[3] = {0, 0, 0};  // by animcodec::FrameKind
  std::string bytes[3];
  // Deltas against other frames (Snapshot::compact_entry_against), shared the same way by
  // the subscribers that name the same ones (kind and skips: the same ticks, so the same
  // world frames); `kind` and `skipped` are written before the state becomes 2.
  struct Against {
    std::atomic<uint8_t> state{0};
    animcodec::FrameKind kind = animcodec::FrameKind::kKey;
    uint64_t skipped[2] = {0, 0};
    std::string bytes;
  };
  Against against[2];
};

// Characters that left this daemon for another at a tick (migrate), and the connections to
// tell: those that own or watch any of them. Sent as a CharactersMoved.
struct MovedNotice {
  std::string target;                      // "host:port"
  uint64_t target_tick = 0;                // the first tick they live there
  std::vector<uint32_t> from_ids, to_ids;  // here and there, pairwise
  std::vector<uint64_t> sessions;          // session ids, sorted, distinct
};

struct Snapshot {
  uint64_t tick = 0;
  // The tick run before this one; tick - previous_tick - 1 numbers were skipped. 0: none, or
  // not known (read as the tick before).
  uint64_t previous_tick = 0;
  double server_time = 0.0;  // seconds since the daemon started (steady clock), tick start
  std::vector<SnapshotCharacter> characters;  // sorted by id
  // What the characters' asset, layout and event_table point to, each held once (they are few:
  // one per asset). The pointers are valid while the snapshot is; a recycled snapshot's
  // characters keep stale ones until the next tick overwrites them.
  std::vector<AssetPtr> assets;
  std::vector<std::shared_ptr<const animcodec::Layout>> layouts;
  std::vector<std::shared_ptr<const anim::ClipEventTable>> event_tables;
  // Holds `p` in `held` unless it is there already (searched from the newest: a run of
  // characters of one asset finds it at once). Returns the raw pointer.
  template <class T>
  static const T* hold(std::vector<std::shared_ptr<const T>>& held,
                       const std::shared_ptr<const T>& p) {
    return hold(held, p.get(), p);
  }
  // The same, compared by address: `owner` (which owns `raw`) is read only when `raw` is not
  // held yet, so that a pass over many characters of a few assets reads none of them.
  template <class T>
  static const T* hold(std::vector<std::shared_ptr<const T>>& held, const T* raw,
                       const std::shared_ptr<const T>& owner) {
    for (auto it = held.rbegin(); it != held.rend(); ++it)
      if (it->get() == raw) return raw;
    held.push_back(owner);
    return raw;
  }
  // Every character's palette, back to back; built only while a float subscription exists
  // (has_palettes; otherwise empty).
  std::vector<anim::PaletteMatrix> palettes;
  bool has_palettes = false;
  std::vector<anim::FiredEvent> events;  // every character's events, in character order
  // Every character's morph weights (anim::MorphLayout order), back to back; only characters
  // whose asset has morph targets have any.
  std::vector<float> morphs;
  // Characters that left at this tick (usually none).
  std::vector<MovedNotice> moved;

  // ENCODING_COMPACT: this tick's quantized poses and the two ticks before (null when
  // absent), and the lazily encoded frames (one CompactEntries per character, by index).
  QuantRef quant;
  QuantRef quant_prev[2];
  // The last two ticks quantized before this one ([0] newest; the same as quant_prev when
  // every tick is quantized). An in-step subscriber of the encode stage holds these: the
  // quantization pulls each value towards what a delta against them predicts. Null when the
  // newest is more than World::kMaxPullGap ticks back (no pull). Set for the update only
  // (null once the snapshot is published); `pull_ticks` says which they were (0: none).
  QuantRef quant_pull[2];
  uint64_t pull_ticks[2] = {0, 0};
  // A compact subscription exists but this tick was not quantized: the encode stage was
  // still preparing an earlier one (Metrics::stage_busy). No compact frame is sent of it.
  bool quant_deferred = false;
  // Started when `quant` is filled after the tick (quantize_work.h: by the encode stage, or
  // else by the next tick, which may instead give the frame up: World::settle): until
  // quantized(), nothing may read `quant`. Not started: filled by the tick's workers, before
  // the snapshot was published.
  mutable QuantizeWork quantize;
  // `quant` was filled by the tick's workers during the update (the stage busy too long, or a
  // paced subscription due), not after the tick: it made this tick longer. Counted in
  // Metrics::quantized_in_tick, and an overrun line says so.
  bool quantized_in_tick = false;
  // Whether `quant`'s entries are all written (acquire: they are then visible). Never true
  // of a frame given up (QuantizeWork::abandon): no compact frame is sent of that tick.
  bool quantized() const { return quantize.complete() && !quantize.abandoned(); }
  // Whether the next tick gave this tick's quantization up: it will never be quantized.
  bool quant_abandoned() const { return quantize.complete() && quantize.abandoned(); }
  // Whether character `index` is in `quant` (a compact frame of it can be encoded).
  bool in_quant(size_t index) const {
    return quant && characters[index].quant_offset != kNotQuantized;
  }
  // The encoded frames of the quantized characters, by compact_slot: compact_used in use, of
  // compact_capacity allocated (kept by a recycled snapshot).
  mutable std::unique_ptr<CompactEntries[]> compact;
  size_t compact_capacity = 0;
  size_t compact_used = 0;
  CompactEntries& compact_of(size_t index) const { return compact[characters[index].compact_slot]; }
  // The regions of every compact region subscription at this tick (their inner zones are what
  // the encode stage prepares; outer-zone members are encoded by the sessions on their turns).
  std::vector<StreamRegion> regions;
  // Set by the encode stage (encode_stage.h) once the compact entries an in-step subscriber
  // needs are encoded; false until then (and for every snapshot the stage skipped). A
  // snapshot moves (tests build them by value) only before it is shared.
  struct Flag {
    std::atomic<bool> value{false};
    Flag() = default;
    Flag(Flag&& other) noexcept : value(other.value.load(std::memory_order_relaxed)) {}
    void store(bool v, std::memory_order order) { value.store(v, order); }
    bool load(std::memory_order order = std::memory_order_seq_cst) const {
      return value.load(order);
    }
  };
  mutable Flag prepared;
  // The ticks of the frames the encode stage prepared the entries against: the last two
  // snapshots it prepared before this one ([0] newest; 0 where there was none). A subscriber
  // whose last two frames are of these ticks finds every entry it needs prepared
  // (stage_prepared_for, stream_encoder.h). Written by the stage before `prepared` is set;
  // read only after it is.
  mutable uint64_t prepared_against[2] = {0, 0};

  // The character with `id`, or null (binary search: characters are sorted).
  const SnapshotCharacter* find(uint32_t id) const;

  // Whether character `index` can be sent as `kind` (its baselines are in quant_prev).
  bool has_baseline(size_t index, animcodec::FrameKind kind) const;
  // Character `index`'s compact frame of `kind` as a serialized StreamFrame.characters entry
  // (field tag, length, CharacterFrame{character_id, asset on key frames, compact, and for an
  // asset with morph targets compact_morphs: a key on key frames, on deltas the change from
  // the newest baseline frame's weights, absent when none changed}). Any
  // thread; encoded once per snapshot, character and kind. The view stays valid until the
  // calling thread's next call (a frame encoded concurrently by another thread is copied).
  // Needs in_quant(index), and has_baseline(index, kind).
  std::string_view compact_entry(size_t index, animcodec::FrameKind kind) const;
  // The same for a delta against other frames than the two ticks before. `baseline`: the
  // frames the client holds, at `skipped[0]` ticks before this one's previous tick and
  // `skipped[1]` before that (CharacterFrame.baseline_ticks_skipped, baseline2_ticks_skipped).
  // Encoded once per snapshot, character, kind and skips for the first two such keys of a
  // character (subscribers at the same rate divisor and phase, or behind by as much, share
  // it); others on every call. Needs in_quant(index).
  // `newest`: the kept frame the client's newest frame of the character is (its morph
  // weights are the baseline of compact_morphs; null: a morph key).
  std::string_view compact_entry_against(size_t index, animcodec::FrameKind kind,
                                         const animcodec::Baseline& baseline,
                                         const uint64_t skipped[2], const QuantFrame* newest) const;
  // Makes room for `n` quantized characters' CompactEntries (tick thread, before publishing).
  // They are empty: new, or emptied by release_references.
  void reset_compact(size_t n);
  // Bytes this snapshot holds: the object, its vectors' capacities, its compact entries and
  // the encoded bytes they keep (not the assets, layouts, event tables and quantized frames it
  // shares). Only while nobody else reads or writes it (encoders write the compact entries
  // of a published snapshot): the pool calls it when the last holder lets go.
  size_t bytes() const;
  // Lets go of what the snapshot keeps alive (each character's asset, layout and event table,
  // the quantized frames) and empties its compact entries (the encoded bytes written in this
  // use keep their buffers, the others are freed), keeping every vector's length and
  // capacity: the pool (snapshot_pool.h) calls it on whichever thread lets go of the snapshot
  // last, so that the tick reusing it overwrites its characters rather than constructing
  // them in its serial part.
  void release_references();
};

using SnapshotPtr = std::shared_ptr<const Snapshot>;

}  // namespace animd
