#include "md5_tokenizer.h"

#include <charconv>
#include <cmath>
#include <limits>

namespace anim::md5 {

namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}
bool is_punct(char c) {
  return c == '{' || c == '}' || c == '(' || c == ')';
}

}  // namespace

Tokenizer::Tokenizer(std::string path, std::string text)
    : path_(std::move(path)), text_(std::move(text)) {
  advance();
}

void Tokenizer::advance() {
  const size_t n = text_.size();
  // Skip whitespace and comments.
  for (;;) {
    while (pos_ < n && is_space(text_[pos_])) {
      if (text_[pos_] == '\n') ++line_;
      ++pos_;
    }
    if (pos_ + 1 < n && text_[pos_] == '/' && text_[pos_ + 1] == '/') {
      while (pos_ < n && text_[pos_] != '\n') ++pos_;
      continue;
    }
    if (pos_ + 1 < n && text_[pos_] == '/' && text_[pos_ + 1] == '*') {
      const int start_line = line_;
      pos_ += 2;
      while (pos_ + 1 < n && !(text_[pos_] == '*' && text_[pos_ + 1] == '/')) {
        if (text_[pos_] == '\n') ++line_;
        ++pos_;
      }
      if (pos_ + 1 >= n) {
        cur_ = {Kind::kBad, "unterminated /* comment", start_line};
        pos_ = n;
        return;
      }
      pos_ += 2;
      continue;
    }
    break;
  }
  cur_.line = line_;
  if (pos_ >= n) {
    cur_.kind = Kind::kEnd;
    cur_.text = {};
    return;
  }
  const char c = text_[pos_];
  if (is_punct(c)) {
    cur_.kind = Kind::kPunct;
    cur_.text = std::string_view(text_).substr(pos_, 1);
    ++pos_;
    return;
  }
  if (c == '"') {
    const size_t start = ++pos_;
    while (pos_ < n && text_[pos_] != '"' && text_[pos_] != '\n') ++pos_;
    if (pos_ >= n || text_[pos_] != '"') {
      cur_.kind = Kind::kBad;
      cur_.text = "unterminated string";
      return;
    }
    cur_.kind = Kind::kString;
    cur_.text = std::string_view(text_).substr(start, pos_ - start);
    ++pos_;
    return;
  }
  const size_t start = pos_;
  while (pos_ < n && !is_space(text_[pos_]) && !is_punct(text_[pos_]) && text_[pos_] != '"') {
    if (text_[pos_] == '/' && pos_ + 1 < n && (text_[pos_ + 1] == '/' || text_[pos_ + 1] == '*'))
      break;
    ++pos_;
  }
  cur_.kind = Kind::kWord;
  cur_.text = std::string_view(text_).substr(start, pos_ - start);
}

std::string Tokenizer::describe_current() const {
  switch (cur_.kind) {
    case Kind::kEnd:
      return "end of file";
    case Kind::kBad:
      return std::string(cur_.text);
    case Kind::kString:
      return "string \"" + std::string(cur_.text.substr(0, 40)) + "\"";
    case Kind::kPunct:
    case Kind::kWord:
      return "'" + std::string(cur_.text.substr(0, 40)) + "'";
  }
  return "?";
}

void Tokenizer::fail(int line, const std::string& message, StatusCode code) {
  if (!ok()) return;
  status_ = Status(code, path_ + ":" + std::to_string(line) + ": " + message);
  // Stop reading: every later read sees the end and returns defaults.
  cur_.kind = Kind::kEnd;
  pos_ = text_.size();
}

void Tokenizer::fail_expected(std::string_view what) {
  fail(cur_.line, "expected " + std::string(what) + ", found " + describe_current());
}

bool Tokenizer::peek_word(std::string_view word) const {
  return ok() && cur_.kind == Kind::kWord && cur_.text == word;
}

bool Tokenizer::peek_punct(char c) const {
  return ok() && cur_.kind == Kind::kPunct && cur_.text[0] == c;
}

void Tokenizer::expect_word(std::string_view word) {
  if (!ok()) return;
  if (!peek_word(word)) return fail_expected("'" + std::string(word) + "'");
  last_line_ = cur_.line;
  advance();
}

void Tokenizer::expect_punct(char c) {
  if (!ok()) return;
  if (!peek_punct(c)) return fail_expected(std::string("'") + c + "'");
  last_line_ = cur_.line;
  advance();
}

std::string Tokenizer::expect_string(std::string_view what) {
  if (!ok()) return {};
  if (cur_.kind != Kind::kString) {
    fail_expected(std::string(what) + " (a quoted string)");
    return {};
  }
  std::string s(cur_.text);
  last_line_ = cur_.line;
  advance();
  return s;
}

int Tokenizer::expect_int(std::string_view what, int64_t min, int64_t max) {
  if (!ok()) return 0;
  int64_t v = 0;
  if (cur_.kind == Kind::kWord) {
    const char* b = cur_.text.data();
    const char* e = b + cur_.text.size();
    auto [p, ec] = std::from_chars(b, e, v);
    if (ec == std::errc() && p == e) {
      if (v < min || v > max) {
        // min == max: an index that must follow the previous one ("vert 3").
        fail(cur_.line,
             min == max ? "expected " + std::string(what) + " " + std::to_string(min) + ", found " +
                              std::to_string(v)
                        : std::string(what) + " " + std::to_string(v) + " is out of range [" +
                              std::to_string(min) + ", " + std::to_string(max) + "]",
             StatusCode::kInvalidArgument);
        return 0;
      }
      last_line_ = cur_.line;
      advance();
      return static_cast<int>(v);
    }
  }
  fail_expected(std::string(what) + " (an integer)");
  return 0;
}

float Tokenizer::expect_float(std::string_view what) {
  if (!ok()) return 0.0f;
  if (cur_.kind == Kind::kWord) {
    std::string_view t = cur_.text;
    if (!t.empty() && t[0] == '+') t.remove_prefix(1);  // from_chars rejects a leading '+'
    const char* b = t.data();
    const char* e = b + t.size();
    // Parsed as double so that values that underflow a float still read (as 0 or a denormal);
    // only values beyond the float range, NaN and infinities are rejected.
    double d = 0.0;
    auto [p, ec] = std::from_chars(b, e, d);
    if (p == e && !t.empty() && (ec == std::errc() || ec == std::errc::result_out_of_range)) {
      const bool finite = ec == std::errc() && std::isfinite(d) &&
                          std::abs(d) <= static_cast<double>(std::numeric_limits<float>::max());
      if (!finite) {
        fail(cur_.line,
             std::string(what) + " '" + std::string(cur_.text) + "' is not a finite number",
             StatusCode::kInvalidArgument);
        return 0.0f;
      }
      const float v = static_cast<float>(d);
      last_line_ = cur_.line;
      advance();
      return v;
    }
  }
  fail_expected(std::string(what) + " (a number)");
  return 0.0f;
}

glm::vec2 Tokenizer::expect_vec2(std::string_view what) {
  glm::vec2 v(0.0f);
  expect_punct('(');
  v.x = expect_float(what);
  v.y = expect_float(what);
  expect_punct(')');
  return v;
}

glm::vec3 Tokenizer::expect_vec3(std::string_view what) {
  glm::vec3 v(0.0f);
  expect_punct('(');
  v.x = expect_float(what);
  v.y = expect_float(what);
  v.z = expect_float(what);
  expect_punct(')');
  return v;
}

}  // namespace anim::md5
