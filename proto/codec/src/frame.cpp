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

int64_t predict(int64_t a, int64_t b, bool second_order) { return second_order ? 2 * a - b : a; }

// Rotation residual context of joint j: how fast it moved (second-order frames), else its
// precision. Both sides compute it from frames they hold.
int rotation_context(const Layout& l, size_t j, const Baseline& b, bool second_order) {
  if (!second_order || b.prev1[j].largest != b.prev2[j].largest)
    return std::max(0, static_cast<int>(l.precision[j].rotation_bits) - 6);
  int m = 0;
  for (int i = 0; i < 3; ++i) m = std::max(m, std::abs(b.prev1[j].r[i] - b.prev2[j].r[i]));
  return static_cast<int>(std::bit_width(static_cast<unsigned>(m)));
}

template <class Get>
int channel_context(size_t j, const Baseline& b, bool second_order, Get get) {
  if (!second_order) return 0;
  uint64_t m = 0;
  for (int i = 0; i < 3; ++i) {
    const int64_t d = int64_t{get(b.prev1[j])[i]} - int64_t{get(b.prev2[j])[i]};
    m = std::max<uint64_t>(m, static_cast<uint64_t>(d < 0 ? -d : d));
  }
  return static_cast<int>(std::bit_width(m));
}

int k_for(int context, int shift) { return std::clamp(context + shift - kShiftBias, 0, kMaxK); }

bool rot_second_order(const Baseline& b, size_t j, bool second_order) {
  return second_order && b.prev1[j].largest == b.prev2[j].largest;
}

// Picks the shift (0..15) that minimizes the bits of `n` values with contexts: the exact cost
// of four candidates around the mean excess of the values' lengths over their contexts.
int choose_shift(const uint64_t* u, const int* ctx, size_t n) {
  if (n == 0) return kShiftBias;
  int64_t excess = 0;
  for (size_t i = 0; i < n; ++i) excess += static_cast<int>(std::bit_width(u[i])) - ctx[i];
  const int guess = static_cast<int>(std::lround(static_cast<double>(excess) / n)) + kShiftBias - 1;
  int best = kShiftBias;
  int64_t best_cost = std::numeric_limits<int64_t>::max();
  for (int s = std::max(0, guess - 1); s <= std::min(15, guess + 2); ++s) {
    int64_t cost = 0;
    for (size_t i = 0; i < n; ++i) cost += BitWriter::ueg_bits(u[i], k_for(ctx[i], s));
    if (cost < best_cost) best_cost = cost, best = s;
  }
  return best;
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

void put_float(BitWriter& w, float f) { w.put(std::bit_cast<uint32_t>(f), 32); }

// ---- encoder ----

// Scratch for one frame's variable-length values (no allocation: a frame has at most
// kMaxJoints joints, 3 values each).
struct Values {
  uint64_t u[3 * kMaxJoints];
  int ctx[3 * kMaxJoints];
  size_t n = 0;
  void add(uint64_t v, int c) {
    u[n] = v;
    ctx[n] = c;
    ++n;
  }
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
    for (int i = 0; i < 3; ++i) v.add(BitWriter::zigzag(c[i]), 0);
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
                          const Baseline& b, bool second_order, Get get, Values& v) {
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
  v.n = 0;
  for (size_t j = 0; j < n; ++j) {
    if (!nonzero(get(b.prev1[j])) && !nonzero(get(pose[j]))) continue;
    const int c = channel_context(j, b, second_order, get);
    for (int i = 0; i < 3; ++i) {
      const int64_t p = predict(get(b.prev1[j])[i], second_order ? get(b.prev2[j])[i] : 0,
                                second_order);
      v.add(BitWriter::zigzag(int64_t{get(pose[j])[i]} - p), c);
    }
  }
  if (v.n == 0) return;
  const int shift = choose_shift(v.u, v.ctx, v.n);
  w.put(static_cast<uint64_t>(shift), kShiftBits);
  for (size_t i = 0; i < v.n; ++i) w.ueg(v.u[i], k_for(v.ctx[i], shift));
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
  static thread_local Values v;
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
    encode_key_channel(w, l, pose, kT, v);
    encode_key_channel(w, l, pose, kS, v);
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
  // The other joints' residuals, with a changed-joint mask when that is shorter.
  v.n = 0;
  for (size_t j = 0; j < n; ++j) {
    if (pose[j].largest != b.prev1[j].largest) continue;
    const bool so = rot_second_order(b, j, second);
    const int c = rotation_context(l, j, b, second);
    for (int i = 0; i < 3; ++i) {
      const int64_t r = pose[j].r[i] - predict(b.prev1[j].r[i], so ? b.prev2[j].r[i] : 0, so);
      v.add(BitWriter::zigzag(r), c);
    }
  }
  const int shift = choose_shift(v.u, v.ctx, v.n);
  // Without a mask an unchanged joint costs 3 codes of zero; with one, 1 bit (and 1 more bit
  // per changed joint).
  int64_t zero_cost = 0;
  {
    size_t i = 0;
    for (size_t j = 0; j < n; ++j) {
      if (pose[j].largest != b.prev1[j].largest) continue;
      if (v.u[i] == 0 && v.u[i + 1] == 0 && v.u[i + 2] == 0)
        zero_cost += 3 * BitWriter::ueg_bits(0, k_for(v.ctx[i], shift));
      i += 3;
    }
  }
  const size_t coded = v.n / 3;
  const bool mask = zero_cost > static_cast<int64_t>(coded);
  w.put(static_cast<uint64_t>(shift), kShiftBits);
  w.bit(mask);
  for (size_t i = 0; i < v.n; i += 3) {
    const bool zero = v.u[i] == 0 && v.u[i + 1] == 0 && v.u[i + 2] == 0;
    if (mask) {
      w.bit(!zero);
      if (zero) continue;
    }
    for (int c = 0; c < 3; ++c) w.ueg(v.u[i + c], k_for(v.ctx[i + c], shift));
  }

  encode_delta_channel(w, l, pose, b, second, kT, v);
  encode_delta_channel(w, l, pose, b, second, kS, v);
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
      if (rd.failed() || v < kInt32Min || v > kInt32Max) return joint_error(j, "value out of range");
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
  const int shift = static_cast<int>(rd.get(kShiftBits));
  for (size_t j = 0; j < n; ++j) {
    if (!listed[j] && !nonzero(getc(b.prev1[j]))) continue;
    const int c = channel_context(j, b, second, getc);
    for (int i = 0; i < 3; ++i) {
      const int64_t p = predict(getc(b.prev1[j])[i], second ? getc(b.prev2[j])[i] : 0, second);
      const int64_t r = rd.seg(k_for(c, shift));
      if (rd.failed()) return "compact frame: truncated";
      const int64_t v = p + r;
      if (v < kInt32Min || v > kInt32Max) return joint_error(j, "value out of range");
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
    if (rd.bit())
      for (int i = 0; i < 3; ++i) {
        const int64_t r = rd.seg(kRootDeltaK);
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
  const int shift = static_cast<int>(rd.get(kShiftBits));
  const bool mask = rd.bit();
  for (size_t j = 0; j < n; ++j) {
    if (escaped[j]) continue;
    const bool so = rot_second_order(b, j, second);
    const int c = rotation_context(l, j, b, second);
    const int bits = l.precision[j].rotation_bits;
    pose[j].largest = b.prev1[j].largest;
    const bool coded = !mask || rd.bit();
    const int limit = rotation_limit(bits);
    for (int i = 0; i < 3; ++i) {
      const int64_t p = predict(b.prev1[j].r[i], so ? b.prev2[j].r[i] : 0, so);
      const int64_t v = p + (coded ? rd.seg(k_for(c, shift)) : 0);
      if (rd.failed()) return "compact frame: truncated";
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
