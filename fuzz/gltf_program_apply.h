#pragma once
// Applying a program's operations to its base document's tree.

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

#include "gltf_program_bases.h"

namespace animfuzz::gltfprog {

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

}  // namespace animfuzz::gltfprog
