#pragma once
// FUZZ_CHECK: a property every input must keep. A failure prints what broke and aborts, which
// libFuzzer reports as a crash and saves the input (so the property is a finding, not a log line).

#include <cstdio>
#include <cstdlib>

#define FUZZ_CHECK(cond)                                                                 \
  do {                                                                                   \
    if (!(cond)) {                                                                       \
      std::fprintf(stderr, "%s:%d: FUZZ_CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                      \
    }                                                                                    \
  } while (0)
