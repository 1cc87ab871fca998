#pragma once
// The document tree a program edits (gltf_program.h): values with their repetitions,
// built from nlohmann JSON once per base, never converted back.

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

#include "gltf_program_format.h"

namespace animfuzz::gltfprog {

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

}  // namespace animfuzz::gltfprog
