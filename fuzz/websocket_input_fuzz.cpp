// Fuzz target: what is new on the WebSocket endpoint's input path, without the socket.
//  - FrameReader::feed_message: payload pieces of messages (piece sizes and message ends
//    from the input itself), with the pre-auth limit first and the trusted limit after the
//    first message that parses as a Request, as Session does. Checked: no crash; the budget
//    never holds more than its limit and is back to zero at the end; no message above the
//    limit in force is delivered; every byte given is consumed unless the reader refuses.
//  - check_origin on header values from the input (Origin, Host, an allow-list entry).
//    Checked: no crash; no Origin is always allowed; "*" allows everything; a refusal
//    always says why (a non-empty reason).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "anim/v1/envelope.pb.h"
#include "base/byte_budget.h"
#include "fuzz_check.h"
#include "net/frame_reader.h"
#include "net/origin_check.h"
#include "quiet_protobuf.h"

namespace {

void fuzz_messages(const uint8_t* data, size_t size) {
  constexpr size_t kPreauth = 4096, kTrusted = 1 << 16, kBudget = 1 << 15;
  animd::ByteBudget budget(kBudget);
  {
    animd::FrameReader reader(budget, kPreauth);
    size_t pos = 0;
    while (pos < size) {
      // Each step: one control byte (piece size, and whether the piece ends its message).
      const uint8_t control = data[pos++];
      const size_t piece = control % 97;
      const bool last = (control & 0x80) != 0;
      const size_t end = pos + piece < size ? pos + piece : size;
      const size_t limit = reader.limit();
      const auto step = reader.feed_message(data + pos, end - pos, last);
      FUZZ_CHECK(budget.used() <= budget.limit());
      if (step.event == animd::FrameReader::Event::kTooLarge ||
          step.event == animd::FrameReader::Event::kNoBudget)
        break;  // the Session closes the connection here
      FUZZ_CHECK(step.consumed == end - pos);
      pos = end;
      if (step.event == animd::FrameReader::Event::kFrame) {
        FUZZ_CHECK(reader.frame().size() <= limit);
        anim::v1::Request request;
        if (request.ParseFromArray(reader.frame().data(), static_cast<int>(reader.frame().size())))
          reader.set_limit(kTrusted);
        reader.consume_frame();
        FUZZ_CHECK(!reader.mid_frame());
      } else {
        FUZZ_CHECK(reader.mid_frame());
      }
    }
  }
  FUZZ_CHECK(budget.used() == 0);
}

void fuzz_origin(const uint8_t* data, size_t size) {
  // Three NUL-separated values: Origin, Host, one allow-list entry.
  const std::string_view all(reinterpret_cast<const char*>(data), size);
  std::vector<std::string_view> parts;
  size_t at = 0;
  while (parts.size() < 2) {
    const size_t nul = all.find('\0', at);
    if (nul == std::string_view::npos) break;
    parts.push_back(all.substr(at, nul - at));
    at = nul + 1;
  }
  parts.push_back(all.substr(std::min(at, all.size())));
  while (parts.size() < 3) parts.emplace_back();
  const std::string_view origin = parts[0], host = parts[1];
  const std::vector<std::string> none, listed = {std::string(parts[2])}, any = {"*"};
  const std::string same = animd::check_origin(origin, host, none);
  const std::string list = animd::check_origin(origin, host, listed);
  FUZZ_CHECK(animd::check_origin(origin, host, any).empty());
  if (origin.empty()) FUZZ_CHECK(same.empty() && list.empty());
  if (!list.empty()) FUZZ_CHECK(list.find("Origin") != std::string::npos);
  if (!same.empty()) FUZZ_CHECK(same.find("Origin") != std::string::npos);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  quiet_protobuf_logs();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  if (data[0] & 1)
    fuzz_messages(data + 1, size - 1);
  else
    fuzz_origin(data + 1, size - 1);
  return 0;
}
