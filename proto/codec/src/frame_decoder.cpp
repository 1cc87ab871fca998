// The compact frame decoder: reads the key and delta frames frame_encoder.cpp writes
// (docs/protocol.md, "Compact encoding"), checking every field against the layout and the
// frames held, so that no input can put an out-of-range value into a pose.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "animcodec/bit_stream.h"
#include "animcodec/compact.h"
#include "codec_internal.h"
#include "frame_format.h"

namespace animcodec {

using namespace frame_format;

namespace {

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
    Triple t;
    int64_t pred[3];
    channel_triple(j, b, second, getc, t, pred);
    read_triple(rd, h, t);
    if (rd.failed()) return "compact frame: truncated";
    for (int i = 0; i < 3; ++i) {
      const int64_t v = pred[i] + t.r[i];
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
    const int bits = l.precision[j].rotation_bits;
    pose[j].largest = b.prev1[j].largest;
    Triple t;
    int64_t pred[3];
    rotation_triple(l, j, b, second, t, pred);
    read_triple(rd, sh, t);
    if (rd.failed()) return "compact frame: truncated";
    const int limit = rotation_limit(bits);
    for (int i = 0; i < 3; ++i) {
      if (t.r[i] < -4 * limit || t.r[i] > 4 * limit) return joint_error(j, "rotation out of range");
      const int64_t v = pred[i] + t.r[i];
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
