#pragma once
// Internal to the MD5 loader: a small tokenizer for the Doom 3 text formats.
//
// Tokens: "quoted strings" (no escapes, may not span lines), the punctuation { } ( ), and
// bare words (keywords and numbers). // line comments and /* block comments */ are skipped.
//
// Error handling is sticky: the first failure is recorded as a Status naming the file, the
// line and what was expected; after it every read returns a default value without consuming
// input, so parsers can run straight-line code and check ok() at loop heads and at the end.
// Every read is bounds-checked against the end of the text.

#include <cstdint>
#include <string>
#include <string_view>

#include <glm/glm.hpp>

#include "anim/status.h"

namespace anim::md5 {

class Tokenizer {
 public:
  // `path` is only used in messages; `text` is the whole file.
  Tokenizer(std::string path, std::string text);

  bool ok() const { return status_.is_ok(); }
  const Status& status() const { return status_; }
  const std::string& path() const { return path_; }
  // Line (1-based) of the token about to be read.
  int line() const { return cur_.line; }
  // Line of the last token read.
  int last_line() const { return last_line_; }
  // Size of the file in bytes: an upper bound for any element count it can hold.
  size_t size() const { return text_.size(); }

  bool at_end() const { return cur_.kind == Kind::kEnd; }
  bool peek_word(std::string_view word) const;
  bool peek_punct(char c) const;

  void expect_word(std::string_view word);
  void expect_punct(char c);
  // A quoted string; `what` says what it is for ("joint name").
  std::string expect_string(std::string_view what);
  // An integer in [min, max].
  int expect_int(std::string_view what, int64_t min, int64_t max);
  // A finite float (NaN and infinities are errors).
  float expect_float(std::string_view what);
  // "( x y )" and "( x y z )".
  glm::vec2 expect_vec2(std::string_view what);
  glm::vec3 expect_vec3(std::string_view what);

  // Records `message` as the error at line `line` (the first error wins).
  void fail(int line, const std::string& message, StatusCode code = StatusCode::kDataLoss);

 private:
  enum class Kind : uint8_t { kEnd, kWord, kString, kPunct, kBad };
  struct Token {
    Kind kind = Kind::kEnd;
    std::string_view text;  // word / string contents / punctuation char / bad text
    int line = 1;
  };

  void advance();  // scans the next token into cur_
  std::string describe_current() const;
  void fail_expected(std::string_view what);

  std::string path_;
  std::string text_;
  size_t pos_ = 0;
  int line_ = 1;  // line at pos_
  Token cur_;
  int last_line_ = 1;
  Status status_;
};

}  // namespace anim::md5
