#pragma once
// Rendering an edited tree as .gltf text or .glb within a byte budget, with the shape the
// loader's document scan will count.

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

#include "gltf_program_apply.h"

namespace animfuzz::gltfprog {

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

}  // namespace animfuzz::gltfprog
