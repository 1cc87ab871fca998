// Fuzz target: CharacterFrame.compact_morphs from a hostile server, as a client decodes them.
// The first byte picks the weights held (none, 3 targets, 64: the key and delta paths); the
// rest is the bytes. Checked: no crash or sanitizer report; a refusal says why and leaves the
// output as it was; accepted bytes give 0..4096 weights in 0..4095 and are exactly what the
// encoder writes for them (one encoding per set of weights).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "animcodec/morph_codec.h"
#include "compact_morphs_support.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  static const std::vector<uint16_t> held[3] = {morphfuzz::baseline(0), morphfuzz::baseline(1),
                                                morphfuzz::baseline(2)};
  const std::vector<uint16_t>& baseline = held[data[0] % 3];
  const std::string_view bytes(reinterpret_cast<const char*>(data + 1), size - 1);

  const std::vector<uint16_t> before{1, 2, 3};
  std::vector<uint16_t> out = before;
  const std::string error = animcodec::decode_morphs(bytes, baseline, out);
  if (!error.empty()) {
    FUZZ_CHECK(error.rfind("compact morphs: ", 0) == 0);
    FUZZ_CHECK(out == before);
    return 0;
  }
  FUZZ_CHECK(out.size() <= animcodec::kMaxMorphTargets);
  for (uint16_t q : out) FUZZ_CHECK(q <= animcodec::kMaxMorphQ);
  std::string again;
  if (bytes.empty()) {
    FUZZ_CHECK(out == baseline);
  } else if (bytes[0] == animcodec::kMorphKey) {
    FUZZ_CHECK(animcodec::encode_morph_key(out, again));
    FUZZ_CHECK(again == bytes);
  } else {
    FUZZ_CHECK(out.size() == baseline.size() && out != baseline);
    FUZZ_CHECK(animcodec::encode_morph_delta(out, baseline, again));
    FUZZ_CHECK(again == bytes);
  }
  return 0;
}
