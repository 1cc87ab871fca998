// The compact frame encoder: key and delta frames in the bit layout of docs/protocol.md,
// "Compact encoding" (frame_decoder.cpp reads them back, section for section).
#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>

#include "animcodec/bit_stream.h"
#include "animcodec/compact.h"
#include "codec_internal.h"
#include "frame_format.h"

namespace animcodec {

namespace {

using namespace frame_format;

// The key-frame lists' values (no allocation: at most kMaxJoints joints, 3 values each).
struct Values {
  uint64_t u[3 * kMaxJoints];
  size_t n = 0;
  void add(uint64_t v) { u[n++] = v; }
};

constexpr int kShifts = 1 << kShiftBits;

// The bits a section's codes of one class take at every shift, built a code at a time. A value
// of bit length a coded with order k takes a + |a - 1 - k| bits, and k = clamp(context +
// shift - 8, 0, kMaxK) grows by one per shift step inside a range of shifts (flat where the
// clamp holds it). So a code's bits, as a function of the shift, fall by one a step until k
// reaches a - 1 and rise by one after it, flat outside the range: three changes of slope. The
// sum's second differences, three entries per code, give the total at all 16 shifts in one
// pass (the search it replaces walked the codes once per shift tried). Codes can be taken out
// again (weight -1): the cross-predicted variant of a section is the plain one with the moving
// joints' codes swapped.
struct ShiftCost {
  int64_t slope_change[kShifts] = {};  // second differences of the sum over shifts
  int64_t at_zero = 0;                 // sum of |a - 1 - k| at shift 0
  int64_t lengths = 0;                 // sum of a
  int64_t count = 0;

  void add(uint64_t u, int ctx, int weight = 1) {
    const int a = static_cast<int>(std::bit_width(u));
    const int k0 = std::clamp(ctx - kShiftBias, 0, kMaxK);
    // k rises on the steps s -> s + 1 for s in [lo, hi); it reaches a - 1 at s = turn.
    const int lo = std::clamp(kShiftBias - ctx, 0, kShifts - 1);
    const int hi = std::clamp(kShiftBias + kMaxK - ctx, 0, kShifts - 1);
    const int turn = std::clamp(a - 1 + kShiftBias - ctx, lo, hi);
    slope_change[lo] -= weight;
    slope_change[turn] += 2 * weight;
    slope_change[hi] -= weight;
    at_zero += weight * std::abs(a - 1 - k0);
    lengths += weight * a;
    count += weight;
  }

  // The shift with the fewest bits (the smallest of equals) and those bits; with no codes,
  // shift 8 and 0 bits.
  int64_t best(int& shift) const {
    shift = kShiftBias;
    if (count == 0) return 0;
    int64_t cost = at_zero, slope = 0, best_cost = at_zero;
    shift = 0;
    for (int s = 1; s < kShifts; ++s) {
      slope += slope_change[s - 1];
      cost += slope;
      if (cost < best_cost) best_cost = cost, shift = s;
    }
    return lengths + best_cost;
  }
};

// A triple's codes both ways: plain (components in order, class 0) and, when it moves, with
// inter-component prediction (the major component first, class 0; the others in order,
// class 1).
struct TripleCodes {
  uint64_t plain[3];
  uint64_t cross[3];
  int cross_ctx[3];
};

// Writes a section of `n` triples: cross flag, shifts, optional changed-joint mask, codes.
// `codes` is scratch for n entries.
void encode_triples(BitWriter& w, const Triple* t, size_t n, bool allow_mask, TripleCodes* codes) {
  ShiftCost plain;
  bool any_cross = false;
  for (size_t j = 0; j < n; ++j) {
    for (int i = 0; i < 3; ++i) {
      codes[j].plain[i] = BitWriter::zigzag(t[j].r[i]);
      plain.add(codes[j].plain[i], t[j].ctx[i]);
    }
    any_cross |= t[j].cross_ok;
  }
  int shift[2] = {kShiftBias, kShiftBias};
  const int64_t plain_bits = plain.best(shift[0]);
  // With inter-component prediction only the moving joints' codes change; the shorter wins.
  bool cross = false;
  if (any_cross) {
    ShiftCost first = plain, others;
    for (size_t j = 0; j < n; ++j) {
      if (!t[j].cross_ok) continue;
      const Triple& tj = t[j];
      TripleCodes& c = codes[j];
      const int m = major_axis(tj.vel);
      c.cross[0] = c.plain[m];
      c.cross_ctx[0] = tj.ctx[m];
      int k = 1;
      for (int i = 0; i < 3; ++i) {
        if (i == m) continue;
        first.add(c.plain[i], tj.ctx[i], -1);
        c.cross[k] = BitWriter::zigzag(tj.r[i] - cross_prediction(tj.r[m], tj.vel[i], tj.vel[m]));
        c.cross_ctx[k] = tj.ctx[i];
        others.add(c.cross[k], tj.ctx[i]);
        ++k;
      }
    }
    int cross_shift[2];
    const int64_t cross_bits = first.best(cross_shift[0]) + others.best(cross_shift[1]);
    if (cross_bits + kShiftBits < plain_bits) {
      cross = true;
      shift[0] = cross_shift[0];
      shift[1] = cross_shift[1];
    }
  }
  // The codes triple j sends, their contexts and classes.
  auto chosen = [&](size_t j, const uint64_t*& u, const int*& ctx, const uint8_t*& cls) {
    static constexpr uint8_t kPlainClasses[3] = {0, 0, 0}, kCrossClasses[3] = {0, 1, 1};
    if (cross && t[j].cross_ok) {
      u = codes[j].cross, ctx = codes[j].cross_ctx, cls = kCrossClasses;
    } else {
      u = codes[j].plain, ctx = t[j].ctx, cls = kPlainClasses;
    }
  };
  bool mask = false;
  if (allow_mask) {
    // Without a mask an unchanged joint costs its 3 codes of zero (k + 1 bits each); with
    // one, 1 bit (and 1 more bit per changed joint).
    int64_t zero_cost = 0;
    for (size_t j = 0; j < n; ++j) {
      const uint64_t* u;
      const int* ctx;
      const uint8_t* cls;
      chosen(j, u, ctx, cls);
      if ((u[0] | u[1] | u[2]) != 0) continue;
      for (int i = 0; i < 3; ++i) zero_cost += k_for(ctx[i], shift[cls[i]]) + 1;
    }
    mask = zero_cost > static_cast<int64_t>(n);
  }
  w.bit(cross);
  w.put(static_cast<uint64_t>(shift[0]), kShiftBits);
  if (cross) w.put(static_cast<uint64_t>(shift[1]), kShiftBits);
  if (allow_mask) w.bit(mask);
  for (size_t j = 0; j < n; ++j) {
    const uint64_t* u;
    const int* ctx;
    const uint8_t* cls;
    chosen(j, u, ctx, cls);
    if (mask) {
      const bool zero = (u[0] | u[1] | u[2]) == 0;
      w.bit(!zero);
      if (zero) continue;
    }
    for (int i = 0; i < 3; ++i) w.ueg(u[i], k_for(ctx[i], shift[cls[i]]));
  }
}

int best_key_k(const uint64_t* u, size_t n) {
  int best = 0;
  int64_t best_cost = std::numeric_limits<int64_t>::max();
  for (int k = 0; k < 32; ++k) {
    int64_t cost = 0;
    for (size_t i = 0; i < n; ++i) cost += BitWriter::ueg_bits(u[i], k);
    if (cost < best_cost) best_cost = cost, best = k;
  }
  return best;
}

void put_rotation_abs(BitWriter& w, const std::array<int16_t, 3>& r, uint8_t largest, int bits) {
  w.put(largest, 2);
  for (int i = 0; i < 3; ++i) w.put(static_cast<uint64_t>(r[i] + (1 << bits)), bits + 1);
}

void put_float(BitWriter& w, float f) {
  w.put(std::bit_cast<uint32_t>(f), 32);
}

// The encoder's scratch, one per thread (no allocation per frame).
struct EncoderScratch {
  Values values;
  Triple triples[kMaxJoints];
  TripleCodes codes[kMaxJoints];
};

template <class Get>
void encode_key_channel(BitWriter& w, const Layout& l, std::span<const QJoint> pose, Get get,
                        Values& v) {
  const size_t n = l.num_joints();
  size_t count = 0;
  v.n = 0;
  for (size_t j = 0; j < n; ++j) {
    const auto& c = get(pose[j]);
    if (c[0] == 0 && c[1] == 0 && c[2] == 0) continue;
    ++count;
    for (int i = 0; i < 3; ++i) v.add(BitWriter::zigzag(c[i]));
  }
  w.ueg(count, 0);
  if (count == 0) return;
  const int k = best_key_k(v.u, v.n);
  w.put(static_cast<uint64_t>(k), kKeyKBits);
  for (size_t j = 0; j < n; ++j) {
    const auto& c = get(pose[j]);
    if (c[0] == 0 && c[1] == 0 && c[2] == 0) continue;
    w.put(j, l.index_bits);
    for (int i = 0; i < 3; ++i) w.seg(c[i], k);
  }
}

template <class Get>
void encode_delta_channel(BitWriter& w, const Layout& l, std::span<const QJoint> pose,
                          const Baseline& b, bool second_order, Get get, EncoderScratch& scratch) {
  const size_t n = l.num_joints();
  auto nonzero = [](const auto& c) { return c[0] != 0 || c[1] != 0 || c[2] != 0; };
  // Joints that become non-zero while they were zero in the newest frame held: listed.
  size_t added = 0;
  for (size_t j = 0; j < n; ++j)
    if (!nonzero(get(b.prev1[j])) && nonzero(get(pose[j]))) ++added;
  w.ueg(added, 0);
  for (size_t j = 0; j < n; ++j)
    if (!nonzero(get(b.prev1[j])) && nonzero(get(pose[j]))) w.put(j, l.index_bits);
  // Residuals of every coded joint (non-zero in the newest frame held, or listed).
  Triple* triples = scratch.triples;
  size_t count = 0;
  for (size_t j = 0; j < n; ++j) {
    if (!nonzero(get(b.prev1[j])) && !nonzero(get(pose[j]))) continue;
    const bool so = chan_second_order(j, b, second_order, get);
    Triple& t = triples[count++];
    for (int i = 0; i < 3; ++i) {
      t.ctx[i] = channel_context(j, i, b, second_order, get);
      t.vel[i] = second_order ? int64_t{get(b.prev1[j])[i]} - get(b.prev2[j])[i] : 0;
      const int64_t p = predict(get(b.prev1[j])[i], so ? get(b.prev2[j])[i] : 0, so);
      t.r[i] = int64_t{get(pose[j])[i]} - p;
    }
    set_motion(t, so);
  }
  if (count == 0) return;
  encode_triples(w, triples, count, false, scratch.codes);
}

}  // namespace

size_t max_frame_bytes(size_t num_joints) {
  // Key frame worst case: header and root ~ 60 bytes; per joint a rotation (51 bits) and a
  // translation and a scale entry (index + 3 values of up to ~70 bits each).
  return 96 + num_joints * 72;
}

size_t encode_frame(const Layout& l, FrameKind kind, std::span<const QJoint> pose,
                    const QRoot& root, const Baseline& b, std::span<uint8_t> out) {
  const size_t n = l.num_joints();
  if (pose.size() != n || n == 0 || n > kMaxJoints) return 0;
  const bool delta = kind != FrameKind::kKey;
  const bool second = kind == FrameKind::kDelta2;
  if (delta && (b.prev1.size() != n || !b.root1)) return 0;
  if (second && (b.prev2.size() != n || !b.root2)) return 0;
  BitWriter w(out.data(), out.size());
  static thread_local EncoderScratch scratch;
  w.put(static_cast<uint64_t>(kind), kKindBits);

  if (!delta) {
    w.put(l.id, 32);
    w.put(n, 16);
    for (int i = 0; i < 3; ++i) w.seg(root.t[i], kRootKeyK);
    put_rotation_abs(w, root.r, root.largest, kRootRotationBits);
    const bool unit = root.s[0] == 1.0f && root.s[1] == 1.0f && root.s[2] == 1.0f;
    w.bit(!unit);
    if (!unit)
      for (float f : root.s) put_float(w, f);
    for (size_t j = 0; j < n; ++j) {
      const bool at_rest = pose[j].r == l.rest_q[j].r && pose[j].largest == l.rest_q[j].largest;
      w.bit(at_rest);
      if (!at_rest) put_rotation_abs(w, pose[j].r, pose[j].largest, l.precision[j].rotation_bits);
    }
    encode_key_channel(w, l, pose, kT, scratch.values);
    encode_key_channel(w, l, pose, kS, scratch.values);
    return w.finish();
  }

  // Root.
  {
    const QRoot& a = *b.root1;
    int64_t res[3];
    bool any = false;
    for (int i = 0; i < 3; ++i) {
      res[i] = root.t[i] - predict(a.t[i], second ? b.root2->t[i] : 0, second);
      any |= res[i] != 0;
    }
    w.bit(any);
    if (any)
      for (int64_t r : res) w.seg(r, kRootDeltaK);
    const bool changed = root.r != a.r || root.largest != a.largest ||
                         (second && b.root2->largest == a.largest && b.root2->r != a.r);
    w.bit(changed);
    if (changed) {
      const bool escape = root.largest != a.largest;
      w.bit(escape);
      if (escape) {
        put_rotation_abs(w, root.r, root.largest, kRootRotationBits);
      } else {
        const bool so = second && b.root2->largest == a.largest;
        for (int i = 0; i < 3; ++i)
          w.seg(root.r[i] - predict(a.r[i], so ? b.root2->r[i] : 0, so), kRootRotDeltaK);
      }
    }
    const bool scale_changed = root.s != a.s;
    w.bit(scale_changed);
    if (scale_changed)
      for (float f : root.s) put_float(w, f);
  }

  // Rotations: joints whose largest component changed are sent whole (escapes).
  size_t escapes = 0;
  for (size_t j = 0; j < n; ++j) escapes += pose[j].largest != b.prev1[j].largest;
  w.ueg(escapes, 0);
  for (size_t j = 0; j < n; ++j) {
    if (pose[j].largest == b.prev1[j].largest) continue;
    w.put(j, l.index_bits);
    put_rotation_abs(w, pose[j].r, pose[j].largest, l.precision[j].rotation_bits);
  }
  // The other joints' residuals.
  Triple* triples = scratch.triples;
  size_t count = 0;
  for (size_t j = 0; j < n; ++j) {
    if (pose[j].largest != b.prev1[j].largest) continue;
    Triple& t = triples[count++];
    rotation_triple(l, j, b, second, t);
    const bool so = rot_second_order(b, j, second);
    for (int i = 0; i < 3; ++i)
      t.r[i] = pose[j].r[i] - predict(b.prev1[j].r[i], so ? b.prev2[j].r[i] : 0, so);
  }
  encode_triples(w, triples, count, true, scratch.codes);

  encode_delta_channel(w, l, pose, b, second, kT, scratch);
  encode_delta_channel(w, l, pose, b, second, kS, scratch);
  return w.finish();
}

}  // namespace animcodec
