// Key and delta frames: the bit layout of docs/protocol.md, "Compact encoding". The encoder
// and the decoder below are written side by side, section for section.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "animcodec/bit_stream.h"
#include "animcodec/compact.h"
#include "codec_internal.h"

namespace animcodec {

namespace {

constexpr int kKindBits = 2;
constexpr int kShiftBits = 4;      // the rice-parameter offsets of delta frames
constexpr int kShiftBias = 8;      // k = context + shift - 8
constexpr int kKeyKBits = 5;       // key frames: the translation/scale list's k
constexpr int kRootKeyK = 16;      // key frames: root translation
constexpr int kRootDeltaK = 1;     // delta frames: root translation residuals
constexpr int kRootRotDeltaK = 2;  // delta frames: root rotation residuals
constexpr int kMaxK = 30;

// ---- helpers both sides share ----

int64_t predict(int64_t a, int64_t b, bool second_order) {
  return second_order ? 2 * a - b : a;
}

// Residual context of component i of joint j: how fast it moved (second-order frames), else
// (rotations) its precision. Both sides compute it from frames they hold.
int rotation_context(const Layout& l, size_t j, int i, const Baseline& b, bool second_order) {
  if (!second_order || b.prev1[j].largest != b.prev2[j].largest)
    return std::max(0, static_cast<int>(l.precision[j].rotation_bits) - 6);
  return static_cast<int>(
      std::bit_width(static_cast<unsigned>(std::abs(b.prev1[j].r[i] - b.prev2[j].r[i]))));
}

template <class Get>
int channel_context(size_t j, int i, const Baseline& b, bool second_order, Get get) {
  if (!second_order) return 0;
  const int64_t d = int64_t{get(b.prev1[j])[i]} - int64_t{get(b.prev2[j])[i]};
  return static_cast<int>(std::bit_width(static_cast<uint64_t>(d < 0 ? -d : d)));
}

int k_for(int context, int shift) {
  return std::clamp(context + shift - kShiftBias, 0, kMaxK);
}

// Below this speed (steps per tick, largest component) a channel is mostly rounding noise:
// extrapolating would double it, so the prediction is the newest frame instead.
constexpr int64_t kMinExtrapolationSpeed = 3;

bool rot_second_order(const Baseline& b, size_t j, bool second_order) {
  if (!second_order || b.prev1[j].largest != b.prev2[j].largest) return false;
  int m = 0;
  for (int i = 0; i < 3; ++i) m = std::max(m, std::abs(b.prev1[j].r[i] - b.prev2[j].r[i]));
  return m >= kMinExtrapolationSpeed;
}

template <class Get>
bool chan_second_order(size_t j, const Baseline& b, bool second_order, Get get) {
  if (!second_order) return false;
  for (int i = 0; i < 3; ++i) {
    const int64_t d = int64_t{get(b.prev1[j])[i]} - int64_t{get(b.prev2[j])[i]};
    if (d >= kMinExtrapolationSpeed || d <= -kMinExtrapolationSpeed) return true;
  }
  return false;
}

// ---- the residual coder ----
struct Triple;
void rotation_triple(const Layout& l, size_t j, const Baseline& b, bool second, Triple& t);
//
// A joint's channel (rotation, translation or scale) is coded as 3 residuals against the
// prediction. With inter-component prediction on (a per-section flag) and the channel moving
// (second-order prediction, speed >= 3 steps a tick), the component that moved fastest (m) is
// coded first and each other component i is predicted from it: round(r_m * v_i / v_m), with
// v the velocity between the two frames held (motion along a steady direction leaves the
// others almost nothing to code). Codes are Exp-Golomb with k = context + shift - 8, the
// context being the bit length of the component's velocity; the shifts are per section and
// class (0: first or only components, 1: cross-predicted ones).

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

constexpr int64_t kCrossLimit = int64_t{1} << 20;

// One joint's channel as the residual coder sees it.
struct Triple {
  int64_t r[3];    // residuals against the prediction (encoder; decoder output)
  int64_t vel[3];  // velocity between the frames held (0 without second-order prediction)
  int ctx[3];
  bool cross_ok;  // moving, with speeds small enough for exact integer products
};

int major_axis(const int64_t* v) {
  int m = 0;
  for (int i = 1; i < 3; ++i)
    if ((v[i] < 0 ? -v[i] : v[i]) > (v[m] < 0 ? -v[m] : v[m])) m = i;
  return m;
}

// round(rm * vi / vm), halves away from zero; 0 when rm is too large for exact products.
int64_t cross_prediction(int64_t rm, int64_t vi, int64_t vm) {
  if (rm <= -kCrossLimit || rm >= kCrossLimit) return 0;
  const int64_t num = rm * vi;
  const int64_t an = num < 0 ? -num : num, ad = vm < 0 ? -vm : vm;
  // The same quotient in 32 bits when it fits (most residuals are small): a 64-bit division
  // costs several times more.
  const int64_t q = 2 * an + ad <= 0xffffffff
                        ? static_cast<uint32_t>(2 * an + ad) / static_cast<uint32_t>(2 * ad)
                        : (2 * an + ad) / (2 * ad);
  return (num < 0) != (vm < 0) ? -q : q;
}

void set_motion(Triple& t, bool second_order_used) {
  int64_t m = 0;
  for (int64_t x : t.vel) m = std::max(m, x < 0 ? -x : x);
  t.cross_ok = second_order_used && m >= kMinExtrapolationSpeed && m < kCrossLimit;
}

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

// Velocity and contexts of joint j's rotation (residuals not filled).
void rotation_triple(const Layout& l, size_t j, const Baseline& b, bool second, Triple& t) {
  const bool so = rot_second_order(b, j, second);
  for (int i = 0; i < 3; ++i) {
    t.ctx[i] = rotation_context(l, j, i, b, second);
    t.vel[i] = so ? b.prev1[j].r[i] - b.prev2[j].r[i] : 0;
  }
  set_motion(t, so);
}

// The decoder's side of a section header.
struct SectionHeader {
  bool cross = false, mask = false;
  int s0 = 0, s1 = 0;
};

SectionHeader read_section_header(BitReader& rd, bool allow_mask) {
  SectionHeader h;
  h.cross = rd.bit();
  h.s0 = static_cast<int>(rd.get(kShiftBits));
  if (h.cross) h.s1 = static_cast<int>(rd.get(kShiftBits));
  if (allow_mask) h.mask = rd.bit();
  return h;
}

// Reads one triple's residuals into t.r (all zero when the mask says unchanged).
void read_triple(BitReader& rd, const SectionHeader& h, Triple& t) {
  t.r[0] = t.r[1] = t.r[2] = 0;
  if (h.mask && !rd.bit()) return;
  if (h.cross && t.cross_ok) {
    const int m = major_axis(t.vel);
    t.r[m] = rd.seg(k_for(t.ctx[m], h.s0));
    for (int i = 0; i < 3; ++i)
      if (i != m)
        t.r[i] = rd.seg(k_for(t.ctx[i], h.s1)) + cross_prediction(t.r[m], t.vel[i], t.vel[m]);
  } else {
    for (int i = 0; i < 3; ++i) t.r[i] = rd.seg(k_for(t.ctx[i], h.s0));
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

// ---- encoder ----

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

const auto kT = [](const QJoint& q) -> const std::array<int32_t, 3>& { return q.t; };
const auto kS = [](const QJoint& q) -> const std::array<int32_t, 3>& { return q.s; };

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

// ---- decoder ----

namespace {

std::string joint_error(size_t j, const char* what) {
  return "compact frame: joint " + std::to_string(j) + " " + what;
}

bool valid_rotation(const std::array<int16_t, 3>& r, int bits) {
  double sum = 0.0;
  for (int i = 0; i < 3; ++i) {
    const double c = std::ldexp(static_cast<double>(r[i]), -bits);
    sum += c * c;
  }
  // The three smallest components of a unit quaternion square-sum to at most 3/4 (the
  // largest is at least 1/2); rounding adds at most ~0.035 at 6 bits.
  return sum <= 0.8;
}

// Reads an absolute rotation; false when out of range.
bool get_rotation_abs(BitReader& rd, std::array<int16_t, 3>& r, uint8_t& largest, int bits) {
  largest = static_cast<uint8_t>(rd.get(2));
  const int limit = rotation_limit(bits);
  for (int i = 0; i < 3; ++i) {
    const int64_t v = static_cast<int64_t>(rd.get(bits + 1)) - (int64_t{1} << bits);
    if (v < -limit || v > limit) return false;
    r[i] = static_cast<int16_t>(v);
  }
  return !rd.failed() && valid_rotation(r, bits);
}

bool get_float(BitReader& rd, float& f) {
  f = std::bit_cast<float>(static_cast<uint32_t>(rd.get(32)));
  return std::isfinite(f) && f != 0.0f && std::fabs(f) < 1e30f;
}

constexpr int64_t kInt32Min = std::numeric_limits<int32_t>::min();
constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();

// Reads the (strictly increasing) joint indices of a list of `count`.
bool get_index(BitReader& rd, const Layout& l, int64_t& last, size_t& j) {
  j = rd.get(l.index_bits);
  if (rd.failed() || static_cast<int64_t>(j) <= last || j >= l.num_joints()) return false;
  last = static_cast<int64_t>(j);
  return true;
}

template <class Get>
std::string decode_key_channel(BitReader& rd, const Layout& l, std::span<QJoint> pose, Get get,
                               const char* name) {
  const uint64_t count = rd.ueg(0);
  if (rd.failed() || count > l.num_joints())
    return std::string("compact frame: bad ") + name + " list length";
  if (count == 0) return {};
  const int k = static_cast<int>(rd.get(kKeyKBits));
  int64_t last = -1;
  for (uint64_t e = 0; e < count; ++e) {
    size_t j;
    if (!get_index(rd, l, last, j))
      return std::string("compact frame: bad joint index in the ") + name + " list";
    for (int i = 0; i < 3; ++i) {
      const int64_t v = rd.seg(k);
      if (rd.failed() || v < kInt32Min || v > kInt32Max)
        return joint_error(j, "value out of range");
      get(pose[j])[i] = static_cast<int32_t>(v);
    }
  }
  return {};
}

template <class Get, class GetC>
std::string decode_delta_channel(BitReader& rd, const Layout& l, std::span<QJoint> pose,
                                 const Baseline& b, bool second, Get get, GetC getc,
                                 const char* name) {
  const size_t n = l.num_joints();
  auto nonzero = [](const auto& c) { return c[0] != 0 || c[1] != 0 || c[2] != 0; };
  // Listed joints are marked by a non-zero placeholder until their residuals are read.
  const uint64_t added = rd.ueg(0);
  if (rd.failed() || added > n) return std::string("compact frame: bad ") + name + " list length";
  // pose[j] holds zeros in this channel on entry (the caller's reset).
  std::array<uint8_t, kMaxJoints> listed{};
  int64_t last = -1;
  for (uint64_t e = 0; e < added; ++e) {
    size_t j;
    if (!get_index(rd, l, last, j) || nonzero(getc(b.prev1[j])))
      return std::string("compact frame: bad joint index in the ") + name + " list";
    listed[j] = 1;
  }
  bool any = false;
  for (size_t j = 0; j < n && !any; ++j) any = listed[j] || nonzero(getc(b.prev1[j]));
  if (!any) return {};
  const SectionHeader h = read_section_header(rd, false);
  for (size_t j = 0; j < n; ++j) {
    if (!listed[j] && !nonzero(getc(b.prev1[j]))) continue;
    const bool so = chan_second_order(j, b, second, getc);
    Triple t;
    for (int i = 0; i < 3; ++i) {
      t.ctx[i] = channel_context(j, i, b, second, getc);
      t.vel[i] = second ? int64_t{getc(b.prev1[j])[i]} - getc(b.prev2[j])[i] : 0;
    }
    set_motion(t, so);
    read_triple(rd, h, t);
    if (rd.failed()) return "compact frame: truncated";
    for (int i = 0; i < 3; ++i) {
      const int64_t p = predict(getc(b.prev1[j])[i], so ? getc(b.prev2[j])[i] : 0, so);
      const int64_t v = p + t.r[i];
      if (t.r[i] < kInt32Min * 4 || t.r[i] > kInt32Max * 4 || v < kInt32Min || v > kInt32Max)
        return joint_error(j, "value out of range");
      get(pose[j])[i] = static_cast<int32_t>(v);
    }
  }
  return {};
}

const auto kTm = [](QJoint& q) -> std::array<int32_t, 3>& { return q.t; };
const auto kSm = [](QJoint& q) -> std::array<int32_t, 3>& { return q.s; };

}  // namespace

std::string read_header(std::span<const uint8_t> bytes, FrameHeader& out) {
  BitReader rd(bytes.data(), bytes.size());
  const auto kind = rd.get(kKindBits);
  if (rd.failed()) return "compact frame: empty";
  if (kind > 2) return "compact frame: unknown frame kind 3";
  out.kind = static_cast<FrameKind>(kind);
  out.skeleton_id = 0;
  out.num_joints = 0;
  if (out.kind == FrameKind::kKey) {
    out.skeleton_id = static_cast<uint32_t>(rd.get(32));
    out.num_joints = static_cast<uint32_t>(rd.get(16));
    if (rd.failed()) return "compact frame: truncated key frame header";
  }
  return {};
}

std::string decode_frame(const Layout& l, std::span<const uint8_t> bytes, const Baseline& b,
                         std::span<QJoint> pose, QRoot& root) {
  const size_t n = l.num_joints();
  if (pose.size() != n) return "compact frame: pose buffer does not match the skeleton";
  FrameHeader h;
  if (std::string e = read_header(bytes, h); !e.empty()) return e;
  BitReader rd(bytes.data(), bytes.size());
  rd.get(kKindBits);
  const bool delta = h.kind != FrameKind::kKey;
  const bool second = h.kind == FrameKind::kDelta2;
  if (delta && (b.prev1.size() != n || !b.root1))
    return "compact frame: a delta frame for a character without a key frame held";
  if (second && (b.prev2.size() != n || !b.root2))
    return "compact frame: a second-order delta for a character with one frame held";

  if (!delta) {
    rd.get(32);
    rd.get(16);
    if (h.skeleton_id != l.id) return "compact frame: key frame for another skeleton";
    if (h.num_joints != n)
      return "compact frame: key frame for " + std::to_string(h.num_joints) +
             " joints, the skeleton has " + std::to_string(n);
    for (int i = 0; i < 3; ++i) {
      root.t[i] = rd.seg(kRootKeyK);
      if (rd.failed() || root.t[i] < -kRootLimitInt || root.t[i] > kRootLimitInt)
        return "compact frame: root translation out of range";
    }
    if (!get_rotation_abs(rd, root.r, root.largest, kRootRotationBits))
      return "compact frame: bad root rotation";
    root.s = {1.0f, 1.0f, 1.0f};
    if (rd.bit())
      for (float& f : root.s)
        if (!get_float(rd, f)) return "compact frame: bad root scale";
    for (size_t j = 0; j < n; ++j) {
      pose[j] = QJoint{};
      if (rd.bit()) {
        pose[j].r = l.rest_q[j].r;
        pose[j].largest = l.rest_q[j].largest;
      } else if (!get_rotation_abs(rd, pose[j].r, pose[j].largest, l.precision[j].rotation_bits)) {
        return rd.failed() ? "compact frame: truncated" : joint_error(j, "rotation out of range");
      }
    }
    if (std::string e = decode_key_channel(rd, l, pose, kTm, "translation"); !e.empty()) return e;
    if (std::string e = decode_key_channel(rd, l, pose, kSm, "scale"); !e.empty()) return e;
    if (!rd.at_clean_end()) return "compact frame: truncated or trailing bytes";
    return {};
  }

  // Root.
  {
    const QRoot& a = *b.root1;
    root = a;
    const bool moved = rd.bit();
    for (int i = 0; i < 3; ++i) {
      const int64_t r = moved ? rd.seg(kRootDeltaK) : 0;
      const int64_t p = predict(a.t[i], second ? b.root2->t[i] : 0, second);
      if (rd.failed() || r < -kRootLimitInt * 4 || r > kRootLimitInt * 4 ||
          p + r < -kRootLimitInt || p + r > kRootLimitInt)
        return "compact frame: root translation out of range";
      root.t[i] = p + r;
    }
    if (rd.bit()) {
      if (rd.bit()) {
        if (!get_rotation_abs(rd, root.r, root.largest, kRootRotationBits))
          return "compact frame: bad root rotation";
      } else {
        const bool so = second && b.root2->largest == a.largest;
        const int limit = rotation_limit(kRootRotationBits);
        for (int i = 0; i < 3; ++i) {
          const int64_t v = predict(a.r[i], so ? b.root2->r[i] : 0, so) + rd.seg(kRootRotDeltaK);
          if (rd.failed() || v < -limit || v > limit) return "compact frame: bad root rotation";
          root.r[i] = static_cast<int16_t>(v);
        }
        if (!valid_rotation(root.r, kRootRotationBits)) return "compact frame: bad root rotation";
      }
    }
    if (rd.bit())
      for (float& f : root.s)
        if (!get_float(rd, f)) return "compact frame: bad root scale";
    if (rd.failed()) return "compact frame: truncated";
  }

  for (size_t j = 0; j < n; ++j) pose[j] = QJoint{};
  // Escaped rotations.
  const uint64_t escapes = rd.ueg(0);
  if (rd.failed() || escapes > n) return "compact frame: bad escape count";
  std::array<uint8_t, kMaxJoints> escaped{};
  int64_t last = -1;
  for (uint64_t e = 0; e < escapes; ++e) {
    size_t j;
    if (!get_index(rd, l, last, j)) return "compact frame: bad joint index in the escape list";
    if (!get_rotation_abs(rd, pose[j].r, pose[j].largest, l.precision[j].rotation_bits))
      return rd.failed() ? "compact frame: truncated" : joint_error(j, "rotation out of range");
    escaped[j] = 1;
  }
  const SectionHeader sh = read_section_header(rd, true);
  for (size_t j = 0; j < n; ++j) {
    if (escaped[j]) continue;
    const bool so = rot_second_order(b, j, second);
    const int bits = l.precision[j].rotation_bits;
    pose[j].largest = b.prev1[j].largest;
    Triple t;
    rotation_triple(l, j, b, second, t);
    read_triple(rd, sh, t);
    if (rd.failed()) return "compact frame: truncated";
    const int limit = rotation_limit(bits);
    for (int i = 0; i < 3; ++i) {
      const int64_t p = predict(b.prev1[j].r[i], so ? b.prev2[j].r[i] : 0, so);
      if (t.r[i] < -4 * limit || t.r[i] > 4 * limit) return joint_error(j, "rotation out of range");
      const int64_t v = p + t.r[i];
      if (v < -limit || v > limit) return joint_error(j, "rotation out of range");
      pose[j].r[i] = static_cast<int16_t>(v);
    }
    if (!valid_rotation(pose[j].r, bits)) return joint_error(j, "rotation out of range");
  }
  if (std::string e = decode_delta_channel(rd, l, pose, b, second, kTm, kT, "translation");
      !e.empty())
    return e;
  if (std::string e = decode_delta_channel(rd, l, pose, b, second, kSm, kS, "scale"); !e.empty())
    return e;
  if (!rd.at_clean_end()) return "compact frame: truncated or trailing bytes";
  return {};
}

}  // namespace animcodec
