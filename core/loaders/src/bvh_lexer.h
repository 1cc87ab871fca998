#pragma once
// Internal to the BVH loader: whitespace-separated tokens of a .bvh text, with line numbers.
//
// BVH is line-oriented in two places (a joint's name is the rest of its ROOT/JOINT line, and
// each frame of MOTION is one line), so besides plain tokens the lexer can tell whether the
// next token is on the line of the last one and hand out the rest of a line as is.
//
// Error handling is sticky, as in the MD5 tokenizer: the first failure is kept as a Status
// "<label>:<line>: <message>", and from then on every read returns an empty token (the end),
// so that the parser can run straight-line code and check ok() where it loops. The lexer
// never copies the text: tokens are views into it, valid while the text lives.

#include <cstdint>
#include <string>
#include <string_view>

#include "anim/status.h"

namespace anim::bvh {

struct Token {
  std::string_view text;  // empty at the end of the text (or after an error)
  int64_t line = 0;       // 1-based line it starts on
};

class Lexer {
 public:
  // `label` names the text in messages (a path, or "upload 'walk'").
  Lexer(std::string_view text, std::string label);

  bool ok() const { return status_.is_ok(); }
  const Status& status() const { return status_; }
  const std::string& label() const { return label_; }

  // The next token, consumed / not consumed. Empty text: the end.
  Token next();
  Token peek() const;
  // True when the next token exists and starts on the line of the last token read.
  bool next_on_same_line() const;
  // The text after the last token read up to the end of its line, without leading and
  // trailing blanks; consumed (the next token comes from a later line).
  std::string_view rest_of_line();
  // Line of the last token read (1 before the first).
  int64_t last_line() const { return last_line_; }
  // Bytes not yet read: an upper bound for what the rest of the file can hold.
  size_t remaining() const { return text_.size() - pos_; }

  // Records `message` at `line` (the first error wins) and stops reading.
  void fail(int64_t line, const std::string& message, StatusCode code = StatusCode::kDataLoss);

 private:
  // Scans from (pos, line): skips blanks and line breaks, returns the token found and leaves
  // (pos, line) just after it.
  Token scan(size_t& pos, int64_t& line) const;

  std::string_view text_;
  std::string label_;
  size_t pos_ = 0;
  int64_t line_ = 1;  // line at pos_
  int64_t last_line_ = 1;
  Status status_;
};

// `token` for a message: in single quotes, at most 40 bytes, bytes outside printable ASCII
// written as \xNN (messages travel in protobuf strings, which must be UTF-8).
std::string quoted(std::string_view token);

// Case-insensitive ASCII comparison (BVH writers differ: "End Site", "End site", "XROTATION").
bool same_word(std::string_view a, std::string_view b);

// What parse_number found.
enum class NumberResult : uint8_t { kOk, kNotANumber, kNaN, kInfinite, kTooLarge };

// Parses a whole token as a decimal number ("12", "-0.5", ".0083333", "+1e-3"); values whose
// magnitude exceeds kMaxMagnitude are kTooLarge (no capture, offset or frame rate needs
// them; refusing them keeps every product of the loader finite).
inline constexpr double kMaxMagnitude = 1e7;
NumberResult parse_number(std::string_view token, double& value);

}  // namespace anim::bvh
