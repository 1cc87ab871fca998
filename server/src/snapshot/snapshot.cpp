#include "snapshot/snapshot.h"

#include <algorithm>
#include <cstdint>

#include "animcodec/morph_codec.h"
#include "base/wire_varint.h"

namespace animd {

const SnapshotCharacter* Snapshot::find(uint32_t id) const {
  auto it = std::lower_bound(characters.begin(), characters.end(), id,
                             [](const SnapshotCharacter& c, uint32_t v) { return c.id < v; });
  return it != characters.end() && it->id == id ? &*it : nullptr;
}

bool Snapshot::has_baseline(size_t index, animcodec::FrameKind kind) const {
  const SnapshotCharacter& c = characters[index];
  if (!quant) return false;
  switch (kind) {
    case animcodec::FrameKind::kKey:
      return true;
    case animcodec::FrameKind::kDelta1:
      return quant_prev[0] && c.prev_offset[0] != kNotQuantized;
    case animcodec::FrameKind::kDelta2:
      return quant_prev[0] && quant_prev[1] && c.prev_offset[0] != kNotQuantized &&
             c.prev_offset[1] != kNotQuantized;
  }
  return false;
}

namespace {

// The frames `kind` refers to for character `index`: the two ticks before, as the snapshot
// holds them (has_baseline).
animcodec::Baseline tick_baseline(const Snapshot& s, size_t index, animcodec::FrameKind kind) {
  const SnapshotCharacter& c = s.characters[index];
  animcodec::Baseline b;
  for (int k = 0; k < 2; ++k) {
    if (kind == animcodec::FrameKind::kKey || (k == 1 && kind == animcodec::FrameKind::kDelta1))
      break;
    const QuantFrame& q = *s.quant_prev[k];
    (k == 0 ? b.prev1 : b.prev2) =
        std::span<const animcodec::QJoint>(q.joints.data() + c.prev_offset[k], c.num_joints);
    (k == 0 ? b.root1 : b.root2) = &q.roots[c.prev_index[k]];
  }
  return b;
}

// compact_morphs of character `index`: a key on a key frame or without the baseline's
// weights, else the delta against them (empty: unchanged).
void morph_bytes(const Snapshot& s, size_t index, animcodec::FrameKind kind,
                 const QuantFrame* newest, std::string& out) {
  out.clear();
  const SnapshotCharacter& c = s.characters[index];
  if (c.num_morphs == 0) return;
  const std::span<const uint16_t> now(s.quant->morphs.data() + c.morph_offset, c.num_morphs);
  std::span<const uint16_t> base;
  if (kind != animcodec::FrameKind::kKey && newest && newest->find_morphs(c.id, c.num_morphs, base))
    animcodec::encode_morph_delta(now, base, out);
  else
    animcodec::encode_morph_key(now, out);
}

// StreamFrame.characters (field 5) holding CharacterFrame{1: id, 2: asset, 5: compact,
// 6: baseline_ticks_skipped, 7: baseline2_ticks_skipped, 9: compact_morphs}.
void build_entry(const Snapshot& s, size_t index, animcodec::FrameKind kind,
                 const animcodec::Baseline& b, const uint64_t skipped[2], const QuantFrame* newest,
                 std::string& out) {
  const SnapshotCharacter& c = s.characters[index];
  const size_t n = c.num_joints;
  thread_local std::vector<uint8_t> payload;
  payload.resize(animcodec::max_frame_bytes(n));
  const size_t size = animcodec::encode_frame(
      *c.layout, kind,
      std::span<const animcodec::QJoint>(s.quant->joints.data() + c.quant_offset, n),
      s.quant->roots[index], b, payload);
  const bool key = kind == animcodec::FrameKind::kKey;
  const std::string& asset = c.asset->name;
  // The skips of the frames the delta refers to, when not 0 (not on the wire).
  const uint64_t skip1 = key ? 0 : skipped[0];
  const uint64_t skip2 = kind == animcodec::FrameKind::kDelta2 ? skipped[1] : 0;
  thread_local std::string morphs;
  morph_bytes(s, index, kind, newest, morphs);
  const size_t body = (morphs.empty() ? 0 : 1 + varint_size(morphs.size()) + morphs.size()) + 1 +
                      varint_size(c.id) + (key ? 1 + varint_size(asset.size()) + asset.size() : 0) +
                      1 + varint_size(size) + size + (skip1 ? 1 + varint_size(skip1) : 0) +
                      (skip2 ? 1 + varint_size(skip2) : 0);
  out.clear();
  out.push_back(0x2A);  // StreamFrame.characters: field 5, length-delimited
  put_varint(out, body);
  out.push_back(0x08);  // CharacterFrame.character_id: field 1, varint
  put_varint(out, c.id);
  if (key) {
    out.push_back(0x12);  // CharacterFrame.asset: field 2
    put_varint(out, asset.size());
    out.append(asset);
  }
  out.push_back(0x2A);  // CharacterFrame.compact: field 5
  put_varint(out, size);
  out.append(reinterpret_cast<const char*>(payload.data()), size);
  if (skip1) {
    out.push_back(0x30);  // CharacterFrame.baseline_ticks_skipped: field 6, varint
    put_varint(out, skip1);
  }
  if (skip2) {
    out.push_back(0x38);  // CharacterFrame.baseline2_ticks_skipped: field 7, varint
    put_varint(out, skip2);
  }
  if (!morphs.empty()) {
    out.push_back(0x4A);  // CharacterFrame.compact_morphs: field 9
    put_varint(out, morphs.size());
    out.append(morphs);
  }
}

constexpr uint64_t kNoSkips[2] = {0, 0};

}  // namespace

std::string_view Snapshot::compact_entry(size_t index, animcodec::FrameKind kind) const {
  CompactEntries& e = compact_of(index);
  const int k = static_cast<int>(kind);
  uint8_t state = e.state[k].load(std::memory_order_acquire);
  if (state == 2) return e.bytes[k];
  const animcodec::Baseline b = tick_baseline(*this, index, kind);
  if (state == 0 && e.state[k].compare_exchange_strong(state, 1, std::memory_order_acq_rel)) {
    build_entry(*this, index, kind, b, kNoSkips, quant_prev[0].get(), e.bytes[k]);
    e.state[k].store(2, std::memory_order_release);
    return e.bytes[k];
  }
  // Another thread is encoding it right now: encode a private copy rather than wait.
  thread_local std::string own;
  build_entry(*this, index, kind, b, kNoSkips, quant_prev[0].get(), own);
  return own;
}

std::string_view Snapshot::compact_entry_against(size_t index, animcodec::FrameKind kind,
                                                 const animcodec::Baseline& baseline,
                                                 const uint64_t given[2],
                                                 const QuantFrame* newest) const {
  // A DELTA1 names one frame: the older frame's skips are not part of its key.
  const uint64_t skipped[2] = {given[0], kind == animcodec::FrameKind::kDelta2 ? given[1] : 0};
  CompactEntries& e = compact_of(index);
  for (auto& a : e.against)
    if (a.state.load(std::memory_order_acquire) == 2 && a.kind == kind &&
        a.skipped[0] == skipped[0] && a.skipped[1] == skipped[1])
      return a.bytes;
  for (auto& a : e.against) {
    uint8_t state = 0;
    if (a.state.load(std::memory_order_relaxed) == 0 &&
        a.state.compare_exchange_strong(state, 1, std::memory_order_acq_rel)) {
      a.kind = kind;
      a.skipped[0] = skipped[0], a.skipped[1] = skipped[1];
      build_entry(*this, index, kind, baseline, skipped, newest, a.bytes);
      a.state.store(2, std::memory_order_release);
      return a.bytes;
    }
  }
  // Both slots hold other keys (or are being written): a copy of this caller's own.
  thread_local std::string own;
  build_entry(*this, index, kind, baseline, skipped, newest, own);
  return own;
}

bool QuantFrame::find(uint32_t id, size_t num_joints, std::span<const animcodec::QJoint>& pose,
                      const animcodec::QRoot*& root) const {
  auto it = std::lower_bound(ids.begin(), ids.end(), id);
  if (it == ids.end() || *it != id) return false;
  const size_t i = static_cast<size_t>(it - ids.begin());
  if (i >= offsets.size() || i >= joint_counts.size() || i >= roots.size()) return false;
  if (offsets[i] == kNotQuantized || joint_counts[i] != num_joints) return false;
  pose = std::span<const animcodec::QJoint>(joints.data() + offsets[i], num_joints);
  root = &roots[i];
  return true;
}

bool QuantFrame::find_morphs(uint32_t id, size_t num_morphs,
                             std::span<const uint16_t>& weights) const {
  auto it = std::lower_bound(ids.begin(), ids.end(), id);
  if (it == ids.end() || *it != id) return false;
  const size_t i = static_cast<size_t>(it - ids.begin());
  if (i >= morph_offsets.size() || i >= offsets.size() || offsets[i] == kNotQuantized) return false;
  const size_t end = i + 1 < morph_offsets.size() ? morph_offsets[i + 1] : morphs.size();
  if (end - morph_offsets[i] != num_morphs || num_morphs == 0) return false;
  weights = std::span<const uint16_t>(morphs.data() + morph_offsets[i], num_morphs);
  return true;
}

namespace {

template <class T>
size_t capacity_bytes(const std::vector<T>& v) {
  return v.capacity() * sizeof(T);
}

// The heap block a string holds: none while its characters fit in the object itself.
size_t heap_bytes(const std::string& s) {
  const auto object = reinterpret_cast<std::uintptr_t>(&s);
  const auto data = reinterpret_cast<std::uintptr_t>(s.data());
  const bool inside = data >= object && data < object + sizeof(std::string);
  return inside ? 0 : s.capacity() + 1;
}

}  // namespace

size_t QuantFrame::bytes() const {
  return sizeof(QuantFrame) + capacity_bytes(joints) + capacity_bytes(roots) + capacity_bytes(ids) +
         capacity_bytes(offsets) + capacity_bytes(joint_counts) + capacity_bytes(morphs) +
         capacity_bytes(morph_offsets);
}

size_t Snapshot::bytes() const {
  size_t n = sizeof(Snapshot) + capacity_bytes(characters) + capacity_bytes(assets) +
             capacity_bytes(layouts) + capacity_bytes(event_tables) + capacity_bytes(palettes) +
             capacity_bytes(events) + capacity_bytes(morphs) + capacity_bytes(moved) +
             capacity_bytes(regions) + compact_capacity * sizeof(CompactEntries);
  for (const MovedNotice& m : moved)
    n += capacity_bytes(m.from_ids) + capacity_bytes(m.to_ids) + capacity_bytes(m.sessions) +
         heap_bytes(m.target);
  for (size_t i = 0; i < compact_capacity; ++i) {
    for (const std::string& b : compact[i].bytes) n += heap_bytes(b);
    for (const CompactEntries::Against& a : compact[i].against) n += heap_bytes(a.bytes);
  }
  return n;
}

void Snapshot::reset_compact(size_t n) {
  compact_used = n;
  if (n <= compact_capacity) return;
  compact = std::make_unique<CompactEntries[]>(n);
  compact_capacity = n;
}

void Snapshot::release_references() {
  assets.clear();
  layouts.clear();
  event_tables.clear();
  quant.reset();
  quantize.reset();
  for (int k = 0; k < 2; ++k) {
    quant_prev[k].reset();
    quant_pull[k].reset();
  }
  // An encoded frame written in this use keeps its buffer for the next use of the snapshot;
  // one not written (a kind nobody asked for, a slot beyond compact_used) gives its buffer
  // back, so that a snapshot keeps no more than its last use needed.
  auto empty_unless_written = [](std::atomic<uint8_t>& state, std::string& bytes) {
    if (state.load(std::memory_order_relaxed) == 0)
      std::string().swap(bytes);
    else
      state.store(0, std::memory_order_relaxed);
  };
  for (size_t i = 0; i < compact_capacity; ++i) {
    CompactEntries& e = compact[i];
    for (int k = 0; k < 3; ++k) empty_unless_written(e.state[k], e.bytes[k]);
    for (auto& a : e.against) empty_unless_written(a.state, a.bytes);
  }
}

}  // namespace animd
