// The compact frame encoder: key and delta frames in the bit layout of docs/protocol.md,
// "Compact encoding" (frame_decoder.cpp reads them back, section for section).
#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>

#include "animcodec/bit_stream.h"
#include "animcodec/compact.h"
#include "animcodec/encode_paths.h"
#include "codec_internal.h"
#include "frame_format.h"
#include "key_order.h"
#include "shift_cost.h"

// x86-64-v3 (AVX2, BMI1/2, LZCNT: Haswell and later, Zen) is not part of the baseline the
// build targets: only the functions marked ANIMCODEC_V3 are compiled for it, with what they
// inline (the codes' bit lengths become lzcnt, the variable shifts shlx/shrx, the section
// pricer's byte rows widened by AVX2), and they run only where the CPU has it. Integer code:
// the bytes are the same on either path (tests/codec/codec_encode_paths_test.cpp).
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define ANIMCODEC_ENCODE_V3 1
#define ANIMCODEC_V3 __attribute__((target("avx2,bmi,bmi2,lzcnt,popcnt")))
#else
#define ANIMCODEC_ENCODE_V3 0
#endif

namespace animcodec {

namespace {

using namespace frame_format;

// The key-frame lists' joints and values (no allocation: at most kMaxJoints joints, 3 values
// each, zigzagged).
struct Values {
  uint64_t u[3 * kMaxJoints];
  uint32_t joint[kMaxJoints];
  size_t n = 0;  // values (3 a joint)
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
// `codes` is scratch for n entries. Inlined into each path's entry point below (the x86-64-v3
// one compiles it for that ISA), never called as itself.
[[gnu::always_inline]] inline void encode_triples_body(BitWriter& w, const Triple* t, size_t n,
                                                       bool allow_mask, TripleCodes* codes) {
  // The section's price both ways, from three sums: `shared`, the codes both ways send (every
  // code of a joint coded plainly either way, and the major component of a moving one);
  // `plain_rest` and `cross_rest`, a moving joint's other two components coded plainly or
  // cross-predicted. Plain = shared + plain_rest; cross = shared (class 0) and cross_rest
  // (class 1). Each code is priced once.
  ShiftCost shared, plain_rest, cross_rest;
  bool any_cross = false;
  size_t unchanged = 0;
  for (size_t j = 0; j < n; ++j) {
    const Triple& tj = t[j];
    TripleCodes& c = codes[j];
    for (int i = 0; i < 3; ++i) c.plain[i] = BitWriter::zigzag(tj.r[i]);
    // A joint with no residual sends zeros either way (a cross prediction from 0 is 0).
    unchanged += (c.plain[0] | c.plain[1] | c.plain[2]) == 0;
    if (!tj.cross_ok) {
      for (int i = 0; i < 3; ++i) shared.add(c.plain[i], tj.ctx[i]);
      continue;
    }
    any_cross = true;
    // The major component first, then the other two in order (no branch on which: it
    // changes from joint to joint).
    const int m = major_axis(tj.vel);
    const int o[2] = {m == 0 ? 1 : 0, m == 2 ? 1 : 2};
    shared.add(c.plain[m], tj.ctx[m]);
    c.cross[0] = c.plain[m];
    c.cross_ctx[0] = tj.ctx[m];
    for (int k = 0; k < 2; ++k) {
      const int i = o[k];
      plain_rest.add(c.plain[i], tj.ctx[i]);
      c.cross[k + 1] = BitWriter::zigzag(tj.r[i] - cross_prediction(tj.r[m], tj.vel[i], tj.vel[m]));
      c.cross_ctx[k + 1] = tj.ctx[i];
      cross_rest.add(c.cross[k + 1], tj.ctx[i]);
    }
  }
  int shift[2] = {kShiftBias, kShiftBias};
  ShiftCost plain = shared;
  plain.merge(plain_rest);
  const int64_t plain_bits = plain.best(shift[0]);
  // With inter-component prediction only the moving joints' codes change; the shorter wins.
  bool cross = false;
  if (any_cross) {
    int cross_shift[2];
    const int64_t cross_bits = shared.best(cross_shift[0]) + cross_rest.best(cross_shift[1]);
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
  if (allow_mask && unchanged > 0) {
    // Without a mask an unchanged joint costs its 3 codes of zero (k + 1 bits each); with
    // one, 1 bit (and 1 more bit per changed joint). No unchanged joint: no mask.
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
  // Written through a local copy of the writer: its state stays in registers (stores into
  // the caller's bytes could alias the caller's writer, and would make the compiler reload it
  // after every word).
  BitWriter out = w;
  out.bit(cross);
  out.put(static_cast<uint64_t>(shift[0]), kShiftBits);
  if (cross) out.put(static_cast<uint64_t>(shift[1]), kShiftBits);
  if (allow_mask) out.bit(mask);
  for (size_t j = 0; j < n; ++j) {
    const uint64_t* u;
    const int* ctx;
    const uint8_t* cls;
    chosen(j, u, ctx, cls);
    if (mask) {
      const bool zero = (u[0] | u[1] | u[2]) == 0;
      out.bit(!zero);
      if (zero) continue;
    }
    // The three codes in one put when they fit (nearly always), else one at a time.
    uint64_t field[3] = {};
    int bits[3] = {};
    bool one = true;
    for (int i = 0; i < 3; ++i)
      one &= BitWriter::ueg_field(u[i], k_for(ctx[i], shift[cls[i]]), field[i], bits[i]);
    if (one && bits[0] + bits[1] + bits[2] <= 56) {
      out.put(field[0] | field[1] << bits[0] | field[2] << (bits[0] + bits[1]),
              bits[0] + bits[1] + bits[2]);
    } else {
      for (int i = 0; i < 3; ++i) out.ueg(u[i], k_for(ctx[i], shift[cls[i]]));
    }
  }
  w = out;
}

[[gnu::noinline]] void encode_triples_baseline(BitWriter& w, const Triple* t, size_t n,
                                               bool allow_mask, TripleCodes* codes) {
  encode_triples_body(w, t, n, allow_mask, codes);
}
#if ANIMCODEC_ENCODE_V3
[[gnu::noinline]] ANIMCODEC_V3 void encode_triples_v3(BitWriter& w, const Triple* t, size_t n,
                                                      bool allow_mask, TripleCodes* codes) {
  encode_triples_body(w, t, n, allow_mask, codes);
}
#endif

// The section coder of path V3 (true: the x86-64-v3 one).
template <bool V3>
[[gnu::always_inline]] inline void encode_triples(BitWriter& w, const Triple* t, size_t n,
                                                  bool allow_mask, TripleCodes* codes) {
#if ANIMCODEC_ENCODE_V3
  if constexpr (V3) return encode_triples_v3(w, t, n, allow_mask, codes);
#endif
  encode_triples_baseline(w, t, n, allow_mask, codes);
}

static_assert(1 + 2 + 3 * (kMaxRotationBits + 1) <= 56 && kRootRotationBits <= kMaxRotationBits,
              "a rotation with its at-rest bit is one BitWriter::put");

// The largest component's index (2 bits), then each of the three others offset by 2^bits in
// bits + 1 bits; after `prefix_bits` bits of `prefix` when given. One put (at most 1 + 2 + 48
// bits for bits <= kMaxRotationBits), as the separate fields would be written.
void put_rotation_abs(BitWriter& w, const std::array<int16_t, 3>& r, uint8_t largest, int bits,
                      uint64_t prefix = 0, int prefix_bits = 0) {
  const int width = bits + 1;
  const uint64_t mask = (uint64_t{1} << width) - 1;
  uint64_t field = prefix | uint64_t{largest & 3u} << prefix_bits;
  int at = prefix_bits + 2;
  for (int i = 0; i < 3; ++i, at += width)
    field |= (static_cast<uint64_t>(r[i] + (1 << bits)) & mask) << at;
  w.put(field, at);
}

void put_float(BitWriter& w, float f) {
  w.put(std::bit_cast<uint32_t>(f), 32);
}

// The frames an encode reads were written by other threads, ticks ago, and are rarely in
// this core's cache: asking for all their lines at once overlaps the misses that the joint
// loops would otherwise take one after another.
void prefetch_frame(std::span<const QJoint> frame) {
  const char* p = reinterpret_cast<const char*>(frame.data());
  for (size_t off = 0; off < frame.size_bytes(); off += 64) __builtin_prefetch(p + off);
}

// The encoder's scratch, one per thread (no allocation per frame).
struct EncoderScratch {
  Values values;
  Triple triples[kMaxJoints];
  TripleCodes codes[kMaxJoints];
  uint8_t joint_state[kMaxJoints];
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
    v.joint[count++] = static_cast<uint32_t>(j);
    for (int i = 0; i < 3; ++i) v.u[v.n++] = BitWriter::zigzag(c[i]);
  }
  w.ueg(count, 0);
  if (count == 0) return;
  const int k = best_key_order(v.u, v.n);
  w.put(static_cast<uint64_t>(k), kKeyKBits);
  for (size_t e = 0; e < count; ++e) {
    const uint64_t* u = v.u + 3 * e;
    // The joint's index and its three codes in one put when they fit (nearly always).
    uint64_t field[3] = {};
    int bits[3] = {};
    bool one = true;
    for (int i = 0; i < 3; ++i) one &= BitWriter::ueg_field(u[i], k, field[i], bits[i]);
    const int total = l.index_bits + bits[0] + bits[1] + bits[2];
    if (one && total <= 56) {
      w.put(v.joint[e] | field[0] << l.index_bits | field[1] << (l.index_bits + bits[0]) |
                field[2] << (l.index_bits + bits[0] + bits[1]),
            total);
    } else {
      w.put(v.joint[e], l.index_bits);
      for (int i = 0; i < 3; ++i) w.ueg(u[i], k);
    }
  }
}

template <bool V3, class Get>
[[gnu::always_inline]] inline void encode_delta_channel(BitWriter& w, const Layout& l,
                                                        std::span<const QJoint> pose,
                                                        const Baseline& b, bool second_order,
                                                        Get get, EncoderScratch& scratch) {
  const size_t n = l.num_joints();
  auto nonzero = [](const auto& c) { return (c[0] | c[1] | c[2]) != 0; };
  // Per joint: bit 0, non-zero in the newest frame held; bit 1, non-zero now.
  uint8_t* state = scratch.joint_state;
  size_t added = 0;
  for (size_t j = 0; j < n; ++j) {
    state[j] = static_cast<uint8_t>(nonzero(get(b.prev1[j])) | nonzero(get(pose[j])) << 1);
    added += state[j] == 2;
  }
  // Joints that become non-zero while they were zero in the newest frame held: listed.
  w.ueg(added, 0);
  if (added > 0)
    for (size_t j = 0; j < n; ++j)
      if (state[j] == 2) w.put(j, l.index_bits);
  // Residuals of every coded joint (non-zero in the newest frame held, or listed).
  Triple* triples = scratch.triples;
  size_t count = 0;
  for (size_t j = 0; j < n; ++j) {
    if (state[j] == 0) continue;
    Triple& t = triples[count++];
    int64_t pred[3];
    channel_triple(j, b, second_order, get, t, pred);
    for (int i = 0; i < 3; ++i) t.r[i] = int64_t{get(pose[j])[i]} - pred[i];
  }
  if (count == 0) return;
  encode_triples<V3>(w, triples, count, false, scratch.codes);
}

// encode_frame's body for path V3, inlined into each path's entry point below.
template <bool V3>
[[gnu::always_inline]] inline size_t encode_frame_body(const Layout& l, FrameKind kind,
                                                       std::span<const QJoint> pose,
                                                       const QRoot& root, const Baseline& b,
                                                       std::span<uint8_t> out,
                                                       EncoderScratch& scratch) {
  const size_t n = l.num_joints();
  const bool delta = kind != FrameKind::kKey;
  const bool second = kind == FrameKind::kDelta2;
  prefetch_frame(pose);
  if (delta) prefetch_frame(b.prev1);
  if (second) prefetch_frame(b.prev2);
  BitWriter w(out.data(), out.size());
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
      const QJoint& q = pose[j];
      const QJoint& rest = l.rest_q[j];
      const bool at_rest = q.r[0] == rest.r[0] && q.r[1] == rest.r[1] && q.r[2] == rest.r[2] &&
                           q.largest == rest.largest;
      if (at_rest)
        w.bit(true);
      else
        put_rotation_abs(w, q.r, q.largest, l.precision[j].rotation_bits, 0, 1);
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
    int64_t pred[3];
    rotation_triple(l, j, b, second, t, pred);
    for (int i = 0; i < 3; ++i) t.r[i] = pose[j].r[i] - pred[i];
  }
  encode_triples<V3>(w, triples, count, true, scratch.codes);

  encode_delta_channel<V3>(w, l, pose, b, second, kT, scratch);
  encode_delta_channel<V3>(w, l, pose, b, second, kS, scratch);
  return w.finish();
}

[[gnu::noinline]] size_t encode_frame_baseline(const Layout& l, FrameKind kind,
                                               std::span<const QJoint> pose, const QRoot& root,
                                               const Baseline& b, std::span<uint8_t> out,
                                               EncoderScratch& scratch) {
  return encode_frame_body<false>(l, kind, pose, root, b, out, scratch);
}
#if ANIMCODEC_ENCODE_V3
[[gnu::noinline]] ANIMCODEC_V3 size_t encode_frame_v3(const Layout& l, FrameKind kind,
                                                      std::span<const QJoint> pose,
                                                      const QRoot& root, const Baseline& b,
                                                      std::span<uint8_t> out,
                                                      EncoderScratch& scratch) {
  return encode_frame_body<true>(l, kind, pose, root, b, out, scratch);
}
#endif

}  // namespace

size_t max_frame_bytes(size_t num_joints) {
  // Key frame worst case: header and root ~ 60 bytes; per joint a rotation (51 bits) and a
  // translation and a scale entry (index + 3 values of up to ~70 bits each).
  return 96 + num_joints * 72;
}

bool encode_path_available(EncodePath path) {
  switch (path) {
    case EncodePath::kBaseline:
      return true;
    case EncodePath::kX86V3:
      return ANIMCODEC_ENCODE_V3 && cpu_has_x86_64_v3();
  }
  return false;
}

size_t encode_frame_with(EncodePath path, const Layout& l, FrameKind kind,
                         std::span<const QJoint> pose, const QRoot& root, const Baseline& b,
                         std::span<uint8_t> out) {
  if (!encode_path_available(path)) return 0;
  const size_t n = l.num_joints();
  if (pose.size() != n || n == 0 || n > kMaxJoints) return 0;
  if (kind != FrameKind::kKey && (b.prev1.size() != n || !b.root1)) return 0;
  if (kind == FrameKind::kDelta2 && (b.prev2.size() != n || !b.root2)) return 0;
  static thread_local EncoderScratch scratch;
#if ANIMCODEC_ENCODE_V3
  if (path == EncodePath::kX86V3) return encode_frame_v3(l, kind, pose, root, b, out, scratch);
#endif
  return encode_frame_baseline(l, kind, pose, root, b, out, scratch);
}

size_t encode_frame(const Layout& l, FrameKind kind, std::span<const QJoint> pose,
                    const QRoot& root, const Baseline& b, std::span<uint8_t> out) {
  // Chosen once: the CPU does not change under the process.
  static const EncodePath best =
      encode_path_available(EncodePath::kX86V3) ? EncodePath::kX86V3 : EncodePath::kBaseline;
  return encode_frame_with(best, l, kind, pose, root, b, out);
}

}  // namespace animcodec
