#pragma once
// Structured mutations of a program (the target's custom mutator).

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "gltf_program_render.h"

namespace animfuzz::gltfprog {

// A count: half the time small (most executions should stay fast), a quarter at a bound of
// GltfLimits or the size of a known attack, else log-uniform up to 2^11 or 2^22.
template <class Rng>
uint32_t pick_count(Rng& rng) {
  static constexpr std::array<uint32_t, 18> kInteresting = {
      63,       64,          65,          100,        1000,   10000,   30000,
      65535,    65536,       65537,       100000,     400000, 1 << 20, (1 << 20) + 1,
      1u << 28, 0x7fffffffu, 0x80000000u, 0xffffffffu};
  const uint32_t kind = static_cast<uint32_t>(rng() % 8);
  if (kind < 4) return static_cast<uint32_t>(rng() % 17);
  if (kind < 6) return kInteresting[rng() % kInteresting.size()];
  const uint32_t bits = static_cast<uint32_t>(rng() % (kind < 7 ? 11 : 23));
  return (1u << bits) + static_cast<uint32_t>(rng() % (1u << bits));
}

// A target value: any (3/8), one inside extras/extensions (free-form JSON: depth; 1/4), an
// item of a top-level collection (width; 1/4) or a member of one (counts and indices; 1/8).
template <class Rng>
uint16_t pick_target(const Program& p, Rng& rng) {
  Value root = build(p);
  const std::vector<Slot> all = slots(root);
  std::vector<uint16_t> chosen;
  const uint32_t kind = static_cast<uint32_t>(rng() % 8);
  for (size_t i = 0; i < all.size() && kind >= 3; ++i) {
    const Slot& s = all[i];
    const bool item = s.depth == 3 && s.parent->kind == Value::Kind::kArray;
    const bool want = kind < 5 ? s.freeform : kind < 7 ? item : s.depth == 4;
    if (want) chosen.push_back(static_cast<uint16_t>(i));
  }
  if (chosen.empty()) return static_cast<uint16_t>(rng() % all.size());
  return chosen[rng() % chosen.size()];
}

// An argument for an operation: a count where it is one, else any value.
template <class Rng>
uint32_t pick_arg(uint8_t code, Rng& rng) {
  switch (code & 15) {
    case kWrap:
    case kRepeat:
    case kSparse:
      return pick_count(rng);
    case kNumber:
      return rng() % 2 ? pick_count(rng) : static_cast<uint32_t>(rng());
    case kCounter:
      return static_cast<uint32_t>(rng() % 8);
    default:
      return static_cast<uint32_t>(rng());
  }
}

template <class Rng>
Op random_op(const Program& p, Rng& rng) {
  // The operations that make size (wrap, repeat) twice as often as the others.
  static constexpr std::array<uint8_t, kNumOps + 2> kCodes = {kWrap,   kWrap,   kRepeat,    kRepeat,
                                                              kNumber, kString, kAddMember, kCopy,
                                                              kDelete, kSparse, kCounter};
  Op op;
  const uint8_t code = kCodes[rng() % kCodes.size()];
  op.code = static_cast<uint8_t>(code | (rng() % 16) << 4);
  op.aux = static_cast<uint8_t>(rng());
  op.target = pick_target(p, rng);
  op.arg = pick_arg(op.code, rng);
  return op;
}

// One structured edit of `p`.
template <class Rng>
void mutate(Program& p, Rng& rng) {
  const uint32_t choice = static_cast<uint32_t>(rng() % 21);
  if (p.ops.empty() || (choice < 8 && p.ops.size() < kMaxOps)) {
    // Insert a new operation (at the end mostly: earlier targets stay where they were).
    const Op op = random_op(p, rng);
    const size_t at = rng() % 4 ? p.ops.size() : rng() % (p.ops.size() + 1);
    p.ops.insert(p.ops.begin() + static_cast<ptrdiff_t>(at), op);
    // A repetition past the collection bound gets the large budget half the time, so that one
    // mutation makes the 400,000-node document.
    if ((op.code & 15) == kRepeat && op.arg > 65536 && rng() % 2 == 0) p.flags |= kLargeFlag;
    return;
  }
  Op& op = p.ops[rng() % p.ops.size()];
  switch (choice) {
    case 8:
    case 9:
    case 10:
      op.arg = pick_arg(op.code, rng);
      break;
    case 11:
    case 12: {
      Program before = p;
      before.ops.resize(static_cast<size_t>(&op - p.ops.data()));
      op.target = pick_target(before, rng);
      break;
    }
    case 13:
      op.code = static_cast<uint8_t>((op.code & 15) | (rng() % 16) << 4);
      op.aux = static_cast<uint8_t>(rng());
      break;
    case 14:
    case 15:
      p.ops.erase(p.ops.begin() + (&op - p.ops.data()));
      break;
    case 16: {
      Program before = p;
      before.ops.resize(static_cast<size_t>(&op - p.ops.data()));
      op = random_op(before, rng);
      break;
    }
    case 17:
      p.base = static_cast<uint8_t>(rng());
      break;
    case 18:
      p.flags = static_cast<uint8_t>((rng() & ~uint32_t{kLargeFlag}) | (p.flags & kLargeFlag));
      break;
    case 19:  // the large budget: off at once, on one time in two
      if (p.flags & kLargeFlag || rng() % 2 == 0) p.flags ^= kLargeFlag;
      break;
    default:
      if (p.ops.size() < kMaxOps) {
        const Op copy = op;
        p.ops.push_back(copy);
      }
      break;
  }
}

}  // namespace animfuzz::gltfprog
