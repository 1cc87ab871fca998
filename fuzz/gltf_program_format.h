#pragma once
// The input of the structure-aware `gltf_json` fuzz target (gltf_json_fuzz.cpp): a small
// program that picks one of a few base glTF documents and edits it with operations such as
// "wrap this value in N arrays" or "repeat this array item N times". The target renders the
// edited document as text (never as a nlohmann tree, whose conversion recursion is what a deep
// document attacks), as .gltf or as .glb with the base's BIN chunk, and loads it.
//
// Layout (every byte string is a valid program; bytes past the last whole operation are
// ignored, as are operations past kMaxOps):
//   byte 0   flags: bits 0-1 skin selection (1: skin index bits 3-4 % 3, 2: the name "skin",
//            0 and 3: the default), bit 2: render as .gltf text (its buffer as a data: URI)
//            instead of .glb, bit 5: the large render budget
//   byte 1   base document (index into bases(), modulo their number)
//   then 8 bytes per operation: code (bits 0-3: the operation, bits 4-7: its variant), aux,
//   target (u16, little-endian: a value of the document in pre-order, modulo their number),
//   arg (u32, little-endian: usually a count).
//
// Counts are rendered as given but clamped so the rendered document stays near its budget:
// kRenderBudget (256 KiB: depths of ~130,000 at 2 bytes a level, ~87,000 items at 3 bytes,
// "{},") or, with flag bit 5, kLargeRenderBudget (2.5 MiB: depths of ~1.3 million, ~870,000
// items, 2^20 + 1 values as "0,"), beyond every bound of GltfLimits. The large budget is rare
// (its own mutation) because documents that big but inside every bound are slow to load, and
// would otherwise take most of the target's time.

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

namespace animfuzz::gltfprog {

inline constexpr size_t kHeaderBytes = 2;
inline constexpr size_t kOpBytes = 8;
inline constexpr size_t kMaxOps = 48;
inline constexpr size_t kMaxProgramBytes = kHeaderBytes + kMaxOps * kOpBytes;
// Bytes of JSON the renderer aims at (soft: leaves past the budget are still written, at most
// a tree of kMaxNodes small values). The large one holds every attack past a bound of
// GltfLimits: 2^20 + 1 values at 2 bytes each ("0,"), the largest.
inline constexpr size_t kRenderBudget = size_t{256} << 10;
inline constexpr size_t kLargeRenderBudget = size_t{5} << 19;
inline constexpr uint8_t kLargeFlag = 0x20;
// Bounds on the edited tree itself (not on what it renders to), so that building, walking and
// rendering it stay cheap and its own recursion shallow.
inline constexpr size_t kMaxNodes = 20000;
inline constexpr int kMaxTreeDepth = 200;

enum OpCode : uint8_t {
  kWrap,       // the value inside arg arrays (variant odd: objects {"extras": ...})
  kRepeat,     // as an array item: appears arg times (elsewhere: becomes [value x arg]);
               // variant & 8: arg of the least value of its kind ({}, [], 0, "") after it
  kNumber,     // becomes a number (variant % 5: table[arg], int32, uint32, float bits, arg<<20)
  kString,     // becomes the string kStrings[arg]
  kAddMember,  // object: adds/sets kKeys[aux]; array: appends; else becomes {key: value}
               // value (variant % 5): number arg, [], {}, kStrings[arg], a copy of value arg
  kCopy,       // becomes a copy of value arg
  kDelete,     // removed from its array or object
  kSparse,     // becomes/gets an accessor's "sparse" of count arg (variant & 4: no bufferView)
  kCounter,    // becomes an integer arg % 65536 that grows by a step with each repetition of
               // the nearest repeated item around it (node chains: children [k + 1])
  kNumOps
};

struct Op {
  uint8_t code = 0;
  uint8_t aux = 0;
  uint16_t target = 0;
  uint32_t arg = 0;
};

struct Program {
  uint8_t flags = 0;
  uint8_t base = 0;
  std::vector<Op> ops;
};

inline Program decode(const uint8_t* data, size_t size) {
  Program p;
  if (size > 0) p.flags = data[0];
  if (size > 1) p.base = data[1];
  for (size_t at = kHeaderBytes; at + kOpBytes <= size && p.ops.size() < kMaxOps; at += kOpBytes) {
    Op op;
    op.code = data[at];
    op.aux = data[at + 1];
    op.target = static_cast<uint16_t>(data[at + 2] | data[at + 3] << 8);
    op.arg = static_cast<uint32_t>(data[at + 4]) | static_cast<uint32_t>(data[at + 5]) << 8 |
             static_cast<uint32_t>(data[at + 6]) << 16 | static_cast<uint32_t>(data[at + 7]) << 24;
    p.ops.push_back(op);
  }
  return p;
}

// Writes `p` into `out` (at most max_size bytes, whole operations only); returns the size.
inline size_t encode(const Program& p, uint8_t* out, size_t max_size) {
  if (max_size < kHeaderBytes) return 0;
  out[0] = p.flags;
  out[1] = p.base;
  size_t at = kHeaderBytes;
  for (const Op& op : p.ops) {
    if (at + kOpBytes > max_size || (at - kHeaderBytes) / kOpBytes >= kMaxOps) break;
    out[at] = op.code;
    out[at + 1] = op.aux;
    out[at + 2] = static_cast<uint8_t>(op.target);
    out[at + 3] = static_cast<uint8_t>(op.target >> 8);
    for (int b = 0; b < 4; ++b) out[at + 4 + b] = static_cast<uint8_t>(op.arg >> (8 * b));
    at += kOpBytes;
  }
  return at;
}

}  // namespace animfuzz::gltfprog
