// Protocol messages from their JSON form (json_message.h).
#include "animjson/json_message.h"

#include <algorithm>

#include <google/protobuf/util/json_util.h>

namespace animjson {

namespace {

// protobuf's syntax errors read "<what>\n<up to 20 bytes either side>\n<spaces>^", the caret
// under the byte where parsing stopped (no bytes when the text ended first). The place of that
// byte in `text` when the excerpt occurs in it exactly once, else the excerpt itself.
std::string locate_syntax_error(std::string_view text, std::string_view what,
                                std::string_view rest) {
  const size_t caret_line = rest.rfind('\n');
  if (caret_line == std::string_view::npos) return std::string(what);
  const std::string_view excerpt = rest.substr(0, caret_line);
  const std::string_view caret = rest.substr(caret_line + 1);
  if (caret.empty() || caret.back() != '^' || caret.find_first_not_of(' ') != caret.size() - 1)
    return std::string(what);
  const size_t column = caret.size() - 1;
  if (excerpt.empty()) {  // the text ended before the value did
    const TextPlace p = place_of(text, text.size());
    return "line " + std::to_string(p.line) + ", column " + std::to_string(p.column) +
           " (the end of the text): " + std::string(what);
  }
  const size_t at = text.find(excerpt);
  if (at == std::string_view::npos || text.find(excerpt, at + 1) != std::string_view::npos) {
    std::string near(excerpt);
    std::replace(near.begin(), near.end(), '\n', ' ');
    return std::string(what) + " (near \"" + near + "\")";
  }
  const TextPlace p = place_of(text, at + column);
  return "line " + std::to_string(p.line) + ", column " + std::to_string(p.column) + ": " +
         std::string(what);
}

}  // namespace

TextPlace place_of(std::string_view text, size_t offset) {
  offset = std::min(offset, text.size());
  TextPlace p;
  const std::string_view before = text.substr(0, offset);
  p.line = 1 + static_cast<int>(std::count(before.begin(), before.end(), '\n'));
  const size_t line_start = before.rfind('\n');
  p.column =
      static_cast<int>(line_start == std::string_view::npos ? offset + 1 : offset - line_start);
  return p;
}

std::string parse_json_message(std::string_view text, google::protobuf::Message& out) {
  out.Clear();
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;
  const auto status = google::protobuf::util::JsonStringToMessage(std::string(text), &out, options);
  if (status.ok()) return {};
  const std::string message(status.message().data(), status.message().size());
  const size_t newline = message.find('\n');
  if (newline != std::string::npos)
    return locate_syntax_error(text, std::string_view(message).substr(0, newline),
                               std::string_view(message).substr(newline + 1));
  // "(a.b[0].c): what" names the field in parentheses, "(a.b[0]) c: what" an unknown field c
  // of the message at a.b[0]; ": what" names none.
  if (message.rfind("(", 0) == 0) {
    const size_t close = message.find(')');
    if (close != std::string::npos && message.compare(close, 3, "): ") == 0)
      return message.substr(1, close - 1) + ": " + message.substr(close + 3);
    if (close != std::string::npos && message.compare(close, 2, ") ") == 0)
      return message.substr(1, close - 1) + "." + message.substr(close + 2);
  }
  if (message.rfind(": ", 0) == 0) return message.substr(2);
  return message;
}

}  // namespace animjson
