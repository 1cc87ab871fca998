#include "bvh_lexer.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace anim::bvh {

namespace {

bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

}  // namespace

Lexer::Lexer(std::string_view text, std::string label) : text_(text), label_(std::move(label)) {
  // A UTF-8 byte order mark, as some Windows editors write, is not part of the first token.
  if (text_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;
}

Token Lexer::scan(size_t& pos, int64_t& line) const {
  const size_t n = text_.size();
  while (pos < n && (is_blank(text_[pos]) || text_[pos] == '\n')) {
    if (text_[pos] == '\n') ++line;
    ++pos;
  }
  const size_t start = pos;
  while (pos < n && !is_blank(text_[pos]) && text_[pos] != '\n') ++pos;
  return Token{text_.substr(start, pos - start), line};
}

Token Lexer::next() {
  if (!ok()) return {};
  Token t = scan(pos_, line_);
  if (!t.text.empty()) last_line_ = t.line;
  return t;
}

Token Lexer::peek() const {
  if (!ok()) return {};
  size_t pos = pos_;
  int64_t line = line_;
  return scan(pos, line);
}

bool Lexer::next_on_same_line() const {
  const Token t = peek();
  return !t.text.empty() && t.line == last_line_;
}

std::string_view Lexer::rest_of_line() {
  if (!ok()) return {};
  const size_t n = text_.size();
  // pos_ is just after the last token: everything up to the line break belongs to it.
  size_t end = pos_;
  while (end < n && text_[end] != '\n') ++end;
  std::string_view rest = text_.substr(pos_, end - pos_);
  pos_ = end;
  while (!rest.empty() && is_blank(rest.front())) rest.remove_prefix(1);
  while (!rest.empty() && is_blank(rest.back())) rest.remove_suffix(1);
  return rest;
}

void Lexer::fail(int64_t line, const std::string& message, StatusCode code) {
  if (!ok()) return;
  status_ = Status(code, label_ + ":" + std::to_string(line) + ": " + message);
  pos_ = text_.size();
}

std::string quoted(std::string_view token) {
  constexpr size_t kMaxShown = 40;
  std::string out = "'";
  for (size_t i = 0; i < token.size() && i < kMaxShown; ++i) {
    const auto c = static_cast<unsigned char>(token[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", c);
      out += buf;
    }
  }
  if (token.size() > kMaxShown) out += "...";
  return out + "'";
}

bool same_word(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

NumberResult parse_number(std::string_view token, double& value) {
  // from_chars takes no leading '+'; a sign must be followed by the number itself.
  if (token.size() > 1 && token[0] == '+' && token[1] != '-' && token[1] != '+')
    token.remove_prefix(1);
  if (token.empty()) return NumberResult::kNotANumber;
  double v = 0.0;
  const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), v);
  if (ec == std::errc::result_out_of_range) {
    if (end != token.data() + token.size()) return NumberResult::kNotANumber;
    // Too small to represent ("1e-400") is zero for every purpose here; too large is refused.
    const size_t e = token.find_first_of("eE");
    if (e == std::string_view::npos || e + 1 >= token.size() || token[e + 1] != '-')
      return NumberResult::kTooLarge;
    value = 0.0;
    return NumberResult::kOk;
  }
  if (ec != std::errc() || end != token.data() + token.size()) return NumberResult::kNotANumber;
  if (std::isnan(v)) return NumberResult::kNaN;
  if (std::isinf(v)) return NumberResult::kInfinite;
  if (std::fabs(v) > kMaxMagnitude) return NumberResult::kTooLarge;
  value = v;
  return NumberResult::kOk;
}

}  // namespace anim::bvh
