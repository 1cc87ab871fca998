#pragma once
// Reading a protocol message from its protobuf JSON form: field names as in the .proto or in
// lowerCamelCase, enums by name or number, an unknown field an error. Errors say what
// protobuf's parser says, made plain: a field's path as the message names it
// ("state_machines[0].transitions[1].curve: invalid value ..."), and for a syntax error its
// place ("line 3, column 7: Expected an object key or }.").

#include <string>
#include <string_view>

#include <google/protobuf/message.h>

namespace animjson {

// Parses `text` into `out` (cleared first). Returns "" when it parsed, else the error.
std::string parse_json_message(std::string_view text, google::protobuf::Message& out);

// The 1-based line and column (in bytes) of byte `offset` of `text`.
struct TextPlace {
  int line = 1;
  int column = 1;
};
TextPlace place_of(std::string_view text, size_t offset);

}  // namespace animjson
