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
// (its own mutation) because documents that big but inside every bound take seconds to load
// under ASan, which would otherwise be most of the target's time.
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

#include <nlohmann/json.hpp>

#include "gltf_seed_files.h"
#include "hostile_gltf.h"
#include "travel_gltf.h"

namespace animfuzz::gltfprog {

inline constexpr size_t kHeaderBytes = 2;
inline constexpr size_t kOpBytes = 8;
inline constexpr size_t kMaxOps = 48;
inline constexpr size_t kMaxProgramBytes = kHeaderBytes + kMaxOps * kOpBytes;
// Bytes of JSON the renderer aims at (soft: leaves past the budget are still written, at most
// a tree of kMaxNodes small values). The large one holds every attack (2^20 + 1 values take
// 2 MiB as "0,"; 400,000 nodes 1.2 MB; 30,000 levels 60 KB).
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

// ---- The document tree ----------------------------------------------------------------

struct Value {
  enum class Kind : uint8_t { kNull, kTrue, kFalse, kNumber, kString, kArray, kObject };
  Kind kind = Kind::kNull;
  std::string text;               // a number's JSON text, a string's contents
  int64_t step = 0;               // a counter's growth per repetition (0: a plain number)
  std::vector<Value> items;       // an array's items, an object's member values
  std::vector<std::string> keys;  // an object's member names (keys.size() == items.size())
  uint32_t wrap = 0;              // rendered inside this many arrays (or objects)
  bool wrap_objects = false;      // ... objects {"extras": ...} instead of arrays
  uint32_t repeat = 1;            // as an array item: rendered this many times
};

inline Value from_json(const nlohmann::json& j) {
  Value v;
  switch (j.type()) {
    case nlohmann::json::value_t::null:
      break;
    case nlohmann::json::value_t::boolean:
      v.kind = j.get<bool>() ? Value::Kind::kTrue : Value::Kind::kFalse;
      break;
    case nlohmann::json::value_t::string:
      v.kind = Value::Kind::kString;
      v.text = j.get<std::string>();
      break;
    case nlohmann::json::value_t::array:
      v.kind = Value::Kind::kArray;
      for (const auto& item : j) v.items.push_back(from_json(item));
      break;
    case nlohmann::json::value_t::object:
      v.kind = Value::Kind::kObject;
      for (const auto& [key, item] : j.items()) {
        v.keys.push_back(key);
        v.items.push_back(from_json(item));
      }
      break;
    default:  // numbers (binary values do not occur in parsed JSON)
      v.kind = Value::Kind::kNumber;
      v.text = j.dump();
      break;
  }
  return v;
}

inline size_t count_nodes(const Value& v) {
  size_t n = 1;
  for (const Value& c : v.items) n += count_nodes(c);
  return n;
}

inline int height(const Value& v) {
  int h = 0;
  for (const Value& c : v.items) h = std::max(h, height(c));
  return h + 1;
}

inline bool has_counter(const Value& v) {
  if (v.step != 0) return true;
  for (const Value& c : v.items)
    if (has_counter(c)) return true;
  return false;
}

inline Value* member(Value& object, std::string_view key) {
  for (size_t i = 0; i < object.keys.size(); ++i)
    if (object.keys[i] == key) return &object.items[i];
  return nullptr;
}

inline void set_member(Value& object, const std::string& key, Value value) {
  if (Value* m = member(object, key)) {
    *m = std::move(value);
    return;
  }
  object.keys.push_back(key);
  object.items.push_back(std::move(value));
}

// ---- Base documents ---------------------------------------------------------------------

struct Base {
  std::string name;
  Value glb;   // the document as written in a .glb (buffer 0 is the BIN chunk)
  Value text;  // the same as .gltf text (buffer 0 a base64 data: URI of `bin`)
  std::string bin;
};

// A .glb's JSON and BIN chunks (the generators of hostile_gltf.h write .glb bytes).
inline void split_glb(const std::string& glb, nlohmann::json& doc, std::string& bin) {
  auto u32 = [&glb](size_t at) {
    uint32_t v = 0;
    std::memcpy(&v, glb.data() + at, 4);
    return v;
  };
  const uint32_t json_length = u32(12);
  doc = nlohmann::json::parse(glb.substr(20, json_length));
  const size_t bin_at = 20 + json_length;
  bin = bin_at + 8 <= glb.size() ? glb.substr(bin_at + 8, u32(bin_at)) : std::string();
}

inline Base make_base(std::string name, nlohmann::json doc, std::string bin) {
  Base b;
  b.name = std::move(name);
  b.bin = std::move(bin);
  doc["buffers"] = nlohmann::json::array({{{"byteLength", b.bin.size()}}});
  b.glb = from_json(doc);
  doc["buffers"][0]["uri"] = "data:application/octet-stream;base64," + animtest::base64(b.bin);
  b.text = from_json(doc);
  return b;
}

inline Base base_of_glb(std::string name, const std::string& glb) {
  nlohmann::json doc;
  std::string bin;
  split_glb(glb, doc, bin);
  return make_base(std::move(name), std::move(doc), std::move(bin));
}

inline Base base_of_file(std::string name, const animtest::GltfFile& f) {
  return make_base(std::move(name), f.doc, f.bin);
}

// The seeds of the `gltf` target and small instances of every hostile shape of
// hostile_gltf.h, so that one operation turns a base into the attack at full size.
inline const std::vector<Base>& bases() {
  static const std::vector<Base> all = [] {
    std::vector<Base> b;
    b.push_back(base_of_glb("one_joint", animtest::glb_of(animtest::one_joint_upload_document(),
                                                          animtest::identity_matrix_bytes())));
    b.push_back(base_of_file("tiny", tiny_gltf(false)));
    b.push_back(base_of_file("cubic", tiny_gltf(true)));
    b.push_back(base_of_file("builtin_part", builtin_part_gltf()));
    b.push_back(base_of_file("events", animtest::travel_gltf(events_extras())));
    b.push_back(base_of_glb("deep_extras", animtest::deep_extras_glb(4)));
    b.push_back(base_of_glb("empty_nodes", animtest::empty_nodes_glb(4)));
    b.push_back(base_of_glb("node_chain", animtest::node_chain_glb(6)));
    b.push_back(base_of_glb("sparse", animtest::sparse_bomb_glb(4)));
    b.push_back(base_of_glb("aliasing_clips", animtest::aliasing_clips_glb(3, 4)));
    return b;
  }();
  return all;
}

// ---- Tables -------------------------------------------------------------------------------

// glTF 2.0 member names, and those of the extras the loader reads (animation events).
// clang-format off
inline constexpr std::array<std::string_view, 76> kKeys = {
    "asset", "version", "generator", "minVersion", "copyright", "scene", "scenes", "nodes",
    "children", "mesh", "skin", "camera", "matrix", "translation", "rotation", "scale",
    "weights", "name", "meshes", "primitives", "attributes", "POSITION", "NORMAL", "TANGENT",
    "TEXCOORD_0", "JOINTS_0", "WEIGHTS_0", "JOINTS_1", "WEIGHTS_1", "indices", "material",
    "mode", "targets", "skins", "joints", "skeleton", "inverseBindMatrices", "accessors",
    "bufferView", "byteOffset", "componentType", "normalized", "count", "type", "max", "min",
    "sparse", "values", "bufferViews", "buffer", "byteLength", "byteStride", "target",
    "buffers", "uri", "animations", "channels", "sampler", "node", "path", "samplers", "input",
    "output", "interpolation", "materials", "images", "textures", "cameras", "extensions",
    "extras", "extensionsUsed", "extensionsRequired", "mimeType", "source", "events", "time",
};
// clang-format on

// clang-format off
inline constexpr std::array<std::string_view, 36> kStrings = {
    "2.0", "1.0", "3.0", "SCALAR", "VEC2", "VEC3", "VEC4", "MAT2", "MAT3", "MAT4", "LINEAR",
    "STEP", "CUBICSPLINE", "translation", "rotation", "scale", "weights", "skin", "Root", "",
    "data:application/octet-stream;base64,",
    "data:application/octet-stream;base64,AAAAAAAAgD8AAAAA",
    "data:application/gltf-buffer;base64,AAAA", "data:image/png;base64,iVBORw0KGgo=", "data:,",
    "data:application/octet-stream;base64,@@@", "model.bin", "../secret.bin", "/etc/passwd",
    "file:///etc/passwd", "KHR_mesh_quantization", "KHR_materials_variants", "image/png",
    "step", "caf\xc3\xa9", "quote\" and \\ and \n",
};
// clang-format on

// clang-format off
inline constexpr std::array<std::string_view, 34> kNumbers = {
    "0", "-1", "1", "2", "3", "4", "63", "64", "65", "255", "256", "65535", "65536", "65537",
    "1048576", "268435456", "2147483647", "2147483648", "-2147483648", "4294967295",
    "4294967296", "9007199254740993", "18446744073709551615", "18446744073709551616", "1e308",
    "-1e308", "4.9e-324", "-0", "0.5", "5121", "5123", "5125", "5126", "34962",
};
// clang-format on

// ---- Applying a program -------------------------------------------------------------------

struct Slot {
  Value* value;
  Value* parent;  // nullptr for the root
  size_t index;   // in parent->items
  int depth;      // of the value in the tree (root: 1)
  bool freeform;  // inside extras or extensions
};

inline void enumerate(Value& v, Value* parent, size_t index, int depth, bool freeform,
                      std::vector<Slot>& out) {
  out.push_back({&v, parent, index, depth, freeform});
  for (size_t i = 0; i < v.items.size(); ++i) {
    const bool ff = freeform || (v.kind == Value::Kind::kObject &&
                                 (v.keys[i] == "extras" || v.keys[i] == "extensions"));
    enumerate(v.items[i], &v, i, depth + 1, ff, out);
  }
}

inline std::vector<Slot> slots(Value& root) {
  std::vector<Slot> out;
  enumerate(root, nullptr, 0, 1, false, out);
  return out;
}

inline Value number(std::string text) {
  Value v;
  v.kind = Value::Kind::kNumber;
  v.text = std::move(text);
  return v;
}

inline Value string_value(std::string_view text) {
  Value v;
  v.kind = Value::Kind::kString;
  v.text = std::string(text);
  return v;
}

inline Value container(Value::Kind kind) {
  Value v;
  v.kind = kind;
  return v;
}

inline std::string number_text(uint8_t variant, uint32_t arg) {
  switch (variant % 5) {
    case 0:
      return std::string(kNumbers[arg % kNumbers.size()]);
    case 1:
      return std::to_string(static_cast<int32_t>(arg));
    case 2:
      return std::to_string(arg);
    case 3: {
      float f;
      std::memcpy(&f, &arg, 4);
      if (!std::isfinite(f)) return "0";  // JSON has no infinities; nlohmann refuses 1e999
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(f));
      return buf;
    }
    default:
      return std::to_string(uint64_t{arg} << 20);
  }
}

// Applies one operation to `root` (nothing when it would exceed kMaxNodes or kMaxTreeDepth).
inline void apply(Value& root, const Op& op) {
  std::vector<Slot> all = slots(root);
  const Slot s = all[op.target % all.size()];
  Value& v = *s.value;
  const uint8_t variant = op.code >> 4;
  const size_t nodes = all.size();
  switch (op.code & 15) {
    case kWrap:
      v.wrap = op.arg;
      v.wrap_objects = variant & 1;
      break;
    case kRepeat:
      if (s.parent && s.parent->kind == Value::Kind::kArray && (variant & 8) &&
          nodes + 1 <= kMaxNodes) {
        // arg of the smallest value of the item's kind after it: {} {} {} ..., 0 0 0 ...
        Value least;
        least.kind = v.kind;
        if (least.kind == Value::Kind::kNumber) least.text = "0";
        least.repeat = op.arg;
        s.parent->items.insert(s.parent->items.begin() + static_cast<ptrdiff_t>(s.index) + 1,
                               std::move(least));
      } else if (s.parent && s.parent->kind == Value::Kind::kArray) {
        v.repeat = op.arg;
      } else if (s.depth + 1 <= kMaxTreeDepth && nodes + 1 <= kMaxNodes) {
        Value array = container(Value::Kind::kArray);
        array.items.push_back(std::move(v));
        array.items.back().repeat = op.arg;
        v = std::move(array);
      }
      break;
    case kNumber: {
      const uint32_t wrap = v.wrap, repeat = v.repeat;
      v = number(number_text(variant, op.arg));
      v.wrap = wrap;
      v.repeat = repeat;
      break;
    }
    case kString: {
      const uint32_t wrap = v.wrap, repeat = v.repeat;
      v = string_value(kStrings[op.arg % kStrings.size()]);
      v.wrap = wrap;
      v.repeat = repeat;
      break;
    }
    case kAddMember: {
      Value value;
      switch (variant % 5) {
        case 0:
          value = number(std::to_string(op.arg));
          break;
        case 1:
          value = container(Value::Kind::kArray);
          break;
        case 2:
          value = container(Value::Kind::kObject);
          break;
        case 3:
          value = string_value(kStrings[op.arg % kStrings.size()]);
          break;
        default: {
          const Value& source = *all[op.arg % all.size()].value;
          if (nodes + count_nodes(source) + 1 > kMaxNodes ||
              s.depth + 1 + height(source) > kMaxTreeDepth)
            return;
          value = source;
          value.repeat = 1;
          break;
        }
      }
      if (s.depth + 2 > kMaxTreeDepth) return;
      const std::string key(kKeys[op.aux % kKeys.size()]);
      if (v.kind == Value::Kind::kObject) {
        set_member(v, key, std::move(value));
      } else if (v.kind == Value::Kind::kArray) {
        v.items.push_back(std::move(value));
      } else {
        const uint32_t repeat = v.repeat;
        v = container(Value::Kind::kObject);
        v.repeat = repeat;
        set_member(v, key, std::move(value));
      }
      break;
    }
    case kCopy: {
      const Value& source = *all[op.arg % all.size()].value;
      if (nodes - count_nodes(v) + count_nodes(source) > kMaxNodes ||
          s.depth - 1 + height(source) > kMaxTreeDepth)
        return;
      Value copy = source;  // before assigning: the source may be inside v
      copy.repeat = v.repeat;
      v = std::move(copy);
      break;
    }
    case kDelete:
      if (s.parent) {
        s.parent->items.erase(s.parent->items.begin() + static_cast<ptrdiff_t>(s.index));
        if (s.parent->kind == Value::Kind::kObject)
          s.parent->keys.erase(s.parent->keys.begin() + static_cast<ptrdiff_t>(s.index));
      }
      break;
    case kSparse: {
      if (nodes - count_nodes(v) + 16 > kMaxNodes || s.depth + 3 > kMaxTreeDepth) return;
      static constexpr std::array<const char*, 3> kIndexTypes = {"5121", "5123", "5125"};
      if (v.kind != Value::Kind::kObject) {
        const uint32_t repeat = v.repeat;
        v = container(Value::Kind::kObject);
        v.repeat = repeat;
        set_member(v, "componentType", number("5126"));
        set_member(v, "count", number(std::to_string(op.arg)));
        set_member(v, "type", string_value("VEC3"));
      }
      Value indices = container(Value::Kind::kObject);
      set_member(indices, "bufferView", number(std::to_string(op.aux & 7)));
      set_member(indices, "componentType", number(kIndexTypes[variant % 3]));
      Value values = container(Value::Kind::kObject);
      set_member(values, "bufferView", number(std::to_string((op.aux >> 3) & 7)));
      Value sparse = container(Value::Kind::kObject);
      set_member(sparse, "count", number(std::to_string(op.arg)));
      set_member(sparse, "indices", std::move(indices));
      set_member(sparse, "values", std::move(values));
      set_member(v, "sparse", std::move(sparse));
      if (variant & 4) {
        for (size_t i = 0; i < v.keys.size(); ++i)
          if (v.keys[i] == "bufferView") {
            v.keys.erase(v.keys.begin() + static_cast<ptrdiff_t>(i));
            v.items.erase(v.items.begin() + static_cast<ptrdiff_t>(i));
            break;
          }
      }
      break;
    }
    case kCounter: {
      const uint32_t wrap = v.wrap, repeat = v.repeat;
      v = number(std::to_string(op.arg % 65536));
      v.step = variant == 0 || variant == 8 ? 1 : static_cast<int64_t>(variant) - 8;
      v.wrap = wrap;
      v.repeat = repeat;
      break;
    }
    default:
      break;
  }
}

inline const Base& base_of(const Program& p) {
  return bases()[p.base % bases().size()];
}

inline bool renders_text(const Program& p) {
  return p.flags & 4;
}

// The edited document tree of `p`.
inline Value build(const Program& p) {
  const Base& b = base_of(p);
  Value root = renders_text(p) ? b.text : b.glb;
  for (const Op& op : p.ops) apply(root, op);
  return root;
}

// ---- Rendering ------------------------------------------------------------------------------

// What a rendered value holds, counted as the loader's document scan counts it.
struct Shape {
  uint64_t values = 0;  // JSON values (object members' names are not values)
  int depth = 0;        // containers nested (a scalar: 0; the document's root object: 1)
  uint64_t items = 0;   // an array's items (rendered repetitions included)
};

class Renderer {
 public:
  explicit Renderer(size_t budget) : left_(budget) {}

  // Appends `v` to `out`; `rep` numbers the repetition of the nearest repeated item around it.
  Shape render(const Value& v, uint64_t rep, std::string& out) {
    const size_t per_level = v.wrap_objects ? 11 : 2;  // {"extras":} or []
    const uint32_t levels = static_cast<uint32_t>(std::min<uint64_t>(v.wrap, left_ / per_level));
    spend(uint64_t{levels} * per_level);
    for (uint32_t i = 0; i < levels; ++i) out += v.wrap_objects ? "{\"extras\":" : "[";
    Shape s = render_core(v, rep, out);
    out.append(levels, v.wrap_objects ? '}' : ']');
    if (levels > 0) {
      s.values += levels;
      s.depth += static_cast<int>(levels);
      s.items = v.wrap_objects ? 0 : 1;
    }
    return s;
  }

 private:
  void spend(uint64_t n) { left_ = n > left_ ? 0 : left_ - static_cast<size_t>(n); }

  static void append_string(std::string_view text, std::string& out) {
    out += '"';
    for (const char c : text) {
      if (c == '"' || c == '\\') {
        out += '\\';
        out += c;
      } else if (static_cast<unsigned char>(c) < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
        out += buf;
      } else {
        out += c;
      }
    }
    out += '"';
  }

  Shape render_core(const Value& v, uint64_t rep, std::string& out) {
    const size_t start = out.size();
    Shape s;
    s.values = 1;
    switch (v.kind) {
      case Value::Kind::kNull:
        out += "null";
        break;
      case Value::Kind::kTrue:
        out += "true";
        break;
      case Value::Kind::kFalse:
        out += "false";
        break;
      case Value::Kind::kNumber:
        if (v.step != 0) {
          const int64_t first = std::strtoll(v.text.c_str(), nullptr, 10);
          out += std::to_string(static_cast<int64_t>(static_cast<uint64_t>(first) +
                                                     static_cast<uint64_t>(v.step) * rep));
        } else {
          out += v.text;
        }
        break;
      case Value::Kind::kString:
        append_string(v.text, out);
        break;
      case Value::Kind::kArray: {
        s.depth = 1;
        out += '[';
        spend(2);
        bool first = true;
        for (const Value& item : v.items) {
          if (item.repeat == 0) continue;
          const bool counts = has_counter(item);
          for (uint64_t r = 0; r < item.repeat; ++r) {
            if (!first) {
              out += ',';
              spend(1);
            }
            first = false;
            const size_t item_start = out.size();
            const Shape is = render(item, counts ? r : rep, out);
            s.values += is.values;
            s.depth = std::max(s.depth, 1 + is.depth);
            ++s.items;
            if (!counts && r == 0 && item.repeat > 1) {
              // Identical copies: render once, then copy as many as the budget allows.
              const std::string once = out.substr(item_start);
              const uint64_t more = std::min<uint64_t>(item.repeat - 1, left_ / (once.size() + 1));
              spend(more * (once.size() + 1));
              out.reserve(out.size() + static_cast<size_t>(more) * (once.size() + 1));
              for (uint64_t k = 0; k < more; ++k) {
                out += ',';
                out += once;
              }
              s.values += more * is.values;
              s.items += more;
              break;
            }
            if (counts && left_ == 0) break;
          }
        }
        out += ']';
        break;
      }
      case Value::Kind::kObject: {
        s.depth = 1;
        out += '{';
        spend(2);
        for (size_t i = 0; i < v.items.size(); ++i) {
          const size_t key_start = out.size();
          if (i > 0) out += ',';
          append_string(v.keys[i], out);
          out += ':';
          spend(out.size() - key_start);
          const Shape ms = render(v.items[i], rep, out);
          s.values += ms.values;
          s.depth = std::max(s.depth, 1 + ms.depth);
        }
        out += '}';
        break;
      }
    }
    if (s.depth == 0) spend(out.size() - start);  // a scalar (containers spend as they go)
    return s;
  }

  size_t left_;
};

// glTF's top-level collections (the arrays whose items the loader's scan counts).
inline bool is_collection(std::string_view key) {
  static constexpr std::array<std::string_view, 13> kCollections = {
      "nodes",  "meshes",    "accessors", "bufferViews", "buffers",  "animations", "skins",
      "scenes", "materials", "images",    "textures",    "samplers", "cameras"};
  return std::find(kCollections.begin(), kCollections.end(), key) != kCollections.end();
}

struct Rendered {
  std::string bytes;               // the .glb or .gltf file
  Shape shape;                     // of the whole document
  uint64_t widest_collection = 0;  // the most items in one top-level collection array
};

inline void append_u32(std::string& out, uint32_t v) {
  for (int b = 0; b < 4; ++b) out += static_cast<char>(v >> (8 * b));
}

// Renders the document of `p`: JSON text, or a .glb of that text and the base's BIN chunk.
inline Rendered render(const Program& p) {
  const Value root = build(p);
  const Base& b = base_of(p);
  Rendered r;
  Renderer renderer(p.flags & kLargeFlag ? kLargeRenderBudget : kRenderBudget);
  std::string json;
  if (root.kind == Value::Kind::kObject && root.wrap == 0) {
    // The root rendered member by member, to see each collection's item count.
    json += '{';
    r.shape.values = 1;
    r.shape.depth = 1;
    for (size_t i = 0; i < root.items.size(); ++i) {
      if (i > 0) json += ',';
      json += '"';
      json += root.keys[i];  // base keys and kKeys need no escaping
      json += "\":";
      const Shape ms = renderer.render(root.items[i], 0, json);
      r.shape.values += ms.values;
      r.shape.depth = std::max(r.shape.depth, 1 + ms.depth);
      if (is_collection(root.keys[i]))
        r.widest_collection = std::max(r.widest_collection, ms.items);
    }
    json += '}';
  } else {
    r.shape = renderer.render(root, 0, json);
  }
  if (renders_text(p)) {
    r.bytes = std::move(json);
    return r;
  }
  while (json.size() % 4) json += ' ';
  std::string bin = b.bin;
  while (bin.size() % 4) bin += '\0';
  r.bytes.reserve(28 + json.size() + bin.size());
  r.bytes += "glTF";
  append_u32(r.bytes, 2);
  append_u32(r.bytes,
             static_cast<uint32_t>(12 + 8 + json.size() + (bin.empty() ? 0 : 8 + bin.size())));
  append_u32(r.bytes, static_cast<uint32_t>(json.size()));
  append_u32(r.bytes, 0x4E4F534A);  // JSON
  r.bytes += json;
  if (!bin.empty()) {
    append_u32(r.bytes, static_cast<uint32_t>(bin.size()));
    append_u32(r.bytes, 0x004E4942);  // BIN
    r.bytes += bin;
  }
  return r;
}

// ---- Mutating a program ---------------------------------------------------------------------

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
