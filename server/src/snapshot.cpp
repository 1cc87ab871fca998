#include "snapshot.h"

#include <algorithm>

#include "wire_varint.h"

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

// StreamFrame.characters (field 5) holding CharacterFrame{1: id, 2: asset, 5: compact}.
void build_entry(const Snapshot& s, size_t index, animcodec::FrameKind kind, std::string& out) {
  const SnapshotCharacter& c = s.characters[index];
  const size_t n = c.num_joints;
  thread_local std::vector<uint8_t> payload;
  payload.resize(animcodec::max_frame_bytes(n));
  animcodec::Baseline b;
  for (int k = 0; k < 2; ++k) {
    if (kind == animcodec::FrameKind::kKey || (k == 1 && kind == animcodec::FrameKind::kDelta1))
      break;
    const QuantFrame& q = *s.quant_prev[k];
    (k == 0 ? b.prev1 : b.prev2) =
        std::span<const animcodec::QJoint>(q.joints.data() + c.prev_offset[k], n);
    (k == 0 ? b.root1 : b.root2) = &q.roots[c.prev_index[k]];
  }
  const size_t size = animcodec::encode_frame(
      *c.layout, kind,
      std::span<const animcodec::QJoint>(s.quant->joints.data() + c.palette_offset, n),
      s.quant->roots[index], b, payload);
  const bool key = kind == animcodec::FrameKind::kKey;
  const std::string& asset = c.asset->name;
  const size_t body = 1 + varint_size(c.id) +
                      (key ? 1 + varint_size(asset.size()) + asset.size() : 0) + 1 +
                      varint_size(size) + size;
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
}

}  // namespace

std::string_view Snapshot::compact_entry(size_t index, animcodec::FrameKind kind) const {
  CompactEntries& e = compact[index];
  const int k = static_cast<int>(kind);
  uint8_t state = e.state[k].load(std::memory_order_acquire);
  if (state == 2) return e.bytes[k];
  if (state == 0 && e.state[k].compare_exchange_strong(state, 1, std::memory_order_acq_rel)) {
    build_entry(*this, index, kind, e.bytes[k]);
    e.state[k].store(2, std::memory_order_release);
    return e.bytes[k];
  }
  // Another thread is encoding it right now: encode a private copy rather than wait.
  thread_local std::string own;
  build_entry(*this, index, kind, own);
  return own;
}

void Snapshot::reset_compact(size_t n) {
  if (n > compact_capacity) {
    compact = std::make_unique<CompactEntries[]>(n);
    compact_capacity = n;
    return;
  }
  for (size_t i = 0; i < n; ++i)
    for (auto& s : compact[i].state) s.store(0, std::memory_order_relaxed);
}

}  // namespace animd
