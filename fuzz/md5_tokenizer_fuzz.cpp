// Fuzz target: the MD5 tokenizer (core/loaders/src/md5_tokenizer.h) driven by a read plan.
//
// Input: byte 0 gives the plan length k (1..16), bytes 1..k are the plan (one read kind per
// byte, used in a cycle), the rest is the text. Checked: reads stay in bounds (ASan), every
// value read honours its contract (ints in range, finite floats), lines never go backwards,
// the first error names the file and is sticky (later reads return defaults, consume nothing).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.h"
#include "md5_tokenizer.h"

namespace {

void check_failed_state(anim::md5::Tokenizer& tok) {
  FUZZ_CHECK(!tok.ok());
  FUZZ_CHECK(tok.status().message().rfind("fuzz.md5:", 0) == 0);
  FUZZ_CHECK(tok.at_end());
  const std::string message = tok.status().message();
  FUZZ_CHECK(tok.expect_int("n", 0, 10) == 0);
  FUZZ_CHECK(tok.expect_float("x") == 0.0f);
  FUZZ_CHECK(tok.expect_string("s").empty());
  FUZZ_CHECK(tok.expect_vec3("v") == glm::vec3(0.0f));
  tok.expect_word("w");
  tok.fail(1, "later failure");
  FUZZ_CHECK(tok.status().message() == message);  // the first error wins
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const size_t k = 1 + data[0] % 16;
  if (size < 1 + k) return 0;
  const uint8_t* plan = data + 1;
  anim::md5::Tokenizer tok("fuzz.md5",
                           std::string(reinterpret_cast<const char*>(data + 1 + k), size - 1 - k));
  FUZZ_CHECK(tok.size() == size - 1 - k);
  // Each successful read other than a peek consumes a token, and a token is at least one
  // byte: this bound is never reached unless reads stop consuming.
  const size_t max_steps = 4 * tok.size() + 64;
  int line = tok.line();
  size_t step = 0;
  for (; step < max_steps && tok.ok() && !tok.at_end(); ++step) {
    const uint8_t op = plan[step % k];
    switch (op % 10) {
      case 0:
        (void)tok.peek_word("joints");
        break;
      case 1:
        tok.expect_punct("{}()"[op / 10 % 4]);
        break;
      case 2:
        (void)tok.expect_string("name");
        break;
      case 3: {
        // Ranges from [0, 0] (an index that must follow) to the whole int range.
        const int64_t lo = op & 0x80 ? INT32_MIN : 0;
        const int64_t hi = op & 0x40 ? INT32_MAX : (op >> 4) % 4;
        const int v = tok.expect_int("count", lo, hi);
        if (tok.ok()) FUZZ_CHECK(v >= lo && v <= hi);
        break;
      }
      case 4: {
        const float f = tok.expect_float("number");
        FUZZ_CHECK(std::isfinite(f));
        break;
      }
      case 5: {
        const glm::vec2 v = tok.expect_vec2("uv");
        FUZZ_CHECK(std::isfinite(v.x) && std::isfinite(v.y));
        break;
      }
      case 6: {
        const glm::vec3 v = tok.expect_vec3("position");
        FUZZ_CHECK(std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z));
        break;
      }
      case 7:
        tok.expect_word(op & 0x10 ? "mesh" : "MD5Version");
        break;
      case 8:
        if (tok.peek_punct('(')) (void)tok.expect_vec3("position");
        break;
      case 9:
        if (op & 0x80) tok.fail(tok.line(), "planned failure");
        break;
    }
    FUZZ_CHECK(tok.line() >= line);
    FUZZ_CHECK(tok.last_line() >= 1);
    line = tok.line();
  }
  if (!tok.ok()) check_failed_state(tok);
  return 0;
}
