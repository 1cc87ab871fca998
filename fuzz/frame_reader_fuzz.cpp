// Fuzz target: a connection's input as the Session sees it, without the socket. The bytes go
// through FrameReader in chunks whose sizes come from the input itself (so frame boundaries
// fall anywhere), with the pre-auth limit first and the trusted limit after the first frame
// that parses as a Request, as Session does. Each frame is parsed and routed by role.
// Checked: no crash or sanitizer report; the daemon-wide budget never holds more than its
// limit and is back to zero once the reader is gone; no frame exceeds the limit in force.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "anim/v1/envelope.pb.h"
#include "base/byte_budget.h"
#include "net/frame_reader.h"
#include "quiet_protobuf.h"
#include "session/command_table.h"

namespace {
void require(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "frame_reader_fuzz: %s\n", what);
  std::abort();
}
}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  quiet_protobuf_logs();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  constexpr size_t kPreauth = 4096, kTrusted = 1 << 16, kBudget = 1 << 15;
  animd::ByteBudget budget(kBudget);
  {
    animd::FrameReader reader(budget, kPreauth);
    bool trusted = false;
    size_t pos = 0;
    while (pos < size) {
      // The first byte of each step says how many bytes the "socket" delivers at once.
      const size_t chunk = 1 + data[pos] % 97;
      ++pos;
      size_t end = pos + chunk < size ? pos + chunk : size;
      while (pos < end) {
        const size_t limit = reader.limit();
        const auto step = reader.feed(data + pos, end - pos);
        require(step.consumed <= end - pos, "consumed more than given");
        require(budget.used() <= budget.limit(), "budget over its limit");
        pos += step.consumed;
        if (step.event == animd::FrameReader::Event::kTooLarge ||
            step.event == animd::FrameReader::Event::kNoBudget)
          return 0;  // the Session closes the connection here
        if (step.event == animd::FrameReader::Event::kFrame) {
          require(reader.frame().size() <= limit, "frame above the limit in force");
          anim::v1::Request request;
          if (request.ParseFromArray(reader.frame().data(),
                                     static_cast<int>(reader.frame().size()))) {
            (void)animd::required_role(request);
            if (!trusted) {
              trusted = true;
              reader.set_limit(kTrusted);
            }
          }
          reader.consume_frame();
        } else {
          require(step.consumed > 0 || pos == end, "no progress");
        }
      }
    }
  }
  require(budget.used() == 0, "budget not given back");
  return 0;
}
