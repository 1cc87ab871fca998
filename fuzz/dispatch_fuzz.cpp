// Fuzz target: the request dispatcher against a live World. The input is a sequence of
// length-prefixed Requests (1-byte length, then that many bytes; a length byte of 0 runs a
// tick instead, up to kMaxTicks per input), sent by one of three connections (the byte after a
// request picks which) to a World holding the built-in character. Each goes the daemon's way:
// parsed, converted by to_world_request (a refused one is answered there, as the session does),
// queued as a Command; commands are applied at increasing ticks and the world is updated between
// them, as the tick loop does. Checked: no crash or sanitizer report; every request gets exactly
// one reply (from the conversion or the World); every palette in every snapshot is finite (no bad
// input may put a NaN into a stream).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include "anim/loaders/builtin_character.h"
#include "protocol/reply_sink.h"
#include "protocol/request_convert.h"
#include "quiet_protobuf.h"
#include "session/command_table.h"
#include "world/world.h"

namespace {
void require(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "dispatch_fuzz: %s\n", what);
  std::abort();
}

struct CountingSink : animd::ReplySink {
  explicit CountingSink(animd::ByteBudget* outbound) : ReplySink(outbound) {}
  size_t replies = 0;
  void deliver(uint64_t, anim::v1::Reply, size_t) override { ++replies; }
};

std::shared_ptr<anim::Asset> builtin() {
  static const auto asset = [] {
    auto a = std::make_shared<anim::Asset>(anim::make_builtin_character());
    a->name = "builtin";
    return a;
  }();
  return asset;
}

void check_snapshot(const animd::Snapshot& snap) {
  require(snap.has_palettes || snap.palettes.empty(), "palettes in a snapshot without them");
  for (const auto& m : snap.palettes)
    for (float v : m.m) require(std::isfinite(v), "non-finite palette value");
}
}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  quiet_protobuf_logs();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static animd::Config config = [] {
    animd::Config c;
    c.max_characters = 16;
    c.max_characters_per_connection = 8;
    c.history_seconds = 0.1;
    // IK is the slowest part of a tick under ASan + coverage; a small budget still runs the
    // solvers and the degradation (every character's share scaled down) on most ticks.
    c.ik_budget = 400;
    c.orphan_grace_s = 0.05;
    return c;
  }();
  static animd::Metrics metrics;
  static animd::WorkerPool pool(1);
  animd::AssetCatalog catalog;
  animd::ByteBudget outbound(1 << 20);
  animd::World world(config, metrics, catalog, pool);
  require(static_cast<bool>(world.add_asset(builtin())), "builtin asset");

  auto sink = std::make_shared<CountingSink>(&outbound);
  std::vector<animd::Command> batch;
  uint64_t tick = 1, seq = 0;
  size_t sent = 0, refused = 0;
  auto run_tick = [&] {
    world.apply(batch, tick, double(tick) / 60.0);
    batch.clear();
    // Float subscribers come and go: ticks with and without palettes, and the switches.
    metrics.float_subscriptions = (size + tick) % 3 != 0 ? 1 : 0;
    auto snap = world.update(1.0f / 60.0f, tick, double(tick) / 60.0, tick % 3 == 0);
    check_snapshot(*snap);
    ++tick;
  };
  // Ticks past the first few dozen find little that is new and make long inputs slow, so the
  // extra tick bytes are skipped (long fuzzing runs need many executions).
  constexpr uint64_t kMaxTicks = 48;
  size_t pos = 0;
  while (pos < size) {
    const size_t len = data[pos++];
    if (len == 0 || pos + len > size) {
      if (tick <= kMaxTicks) run_tick();
      if (len != 0) break;
      continue;
    }
    anim::v1::Request request;
    if (!request.ParseFromArray(data + pos, static_cast<int>(len))) {
      pos += len;
      continue;
    }
    pos += len;
    const uint8_t who = pos < size ? data[pos++] : 0;
    ++sent;
    auto converted = animd::to_world_request(request);
    if (!converted) {
      require(!converted.error().is_ok() && !converted.error().message().empty(),
              "a refused request without a reason");
      ++refused;  // answered at the edge; the World never sees it
    } else {
      animd::Command c;
      c.kind = animd::Command::Kind::kRequest;
      c.session_id = 1 + who % 3;
      c.owner = (who & 4) ? 0 : 1000 + who % 2;  // token owners, or per-connection
      c.seq = seq++;
      c.request_id = request.request_id();
      c.sink = sink;
      c.request = std::move(*converted);
      if (auto* sub = std::get_if<animd::Subscribe>(&c.request))
        sub->subscription_id = uint32_t(seq);
      batch.push_back(std::move(c));
    }
    if ((who & 8) != 0) {  // a connection closes
      animd::Command closed;
      closed.kind = animd::Command::Kind::kSessionClosed;
      closed.session_id = 1 + who % 3;
      batch.push_back(std::move(closed));
    }
  }
  run_tick();
  require(sink->replies + refused == sent, "a request without exactly one reply");
  return 0;
}
