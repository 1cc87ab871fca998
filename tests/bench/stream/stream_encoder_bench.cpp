// The float stream's cost on a network thread: one subscriber's frame of N 64-joint
// characters (ENCODING_FLOAT_3X4, 3 KB a character), encoded from a snapshot as
// Session::on_snapshot does. Issue 12's scenario is 10 subscribers x 500 characters at 60 Hz.
#include <memory>
#include <vector>

#include <benchmark/benchmark.h>

#include "anim/asset.h"
#include "snapshot/snapshot.h"
#include "stream/stream_encoder.h"

namespace {

constexpr uint32_t kJoints = 64;

animd::Snapshot make_snapshot(uint32_t characters) {
  auto asset = std::make_shared<anim::Asset>();
  asset->name = "bench64";
  animd::Snapshot s;
  s.tick = 1000;
  s.server_time = 16.6;
  s.has_palettes = true;
  s.palettes.resize(size_t{characters} * kJoints);
  for (size_t i = 0; i < s.palettes.size(); ++i)
    for (int k = 0; k < 12; ++k) s.palettes[i].m[k] = 0.001f * float(i * 12 + k);
  for (uint32_t i = 0; i < characters; ++i) {
    animd::SnapshotCharacter c;
    c.id = 1 + i;
    c.asset = animd::Snapshot::hold(s.assets, animd::AssetPtr(asset));
    c.root.translation = glm::vec3(float(i % 70), 0.0f, float(i / 70));
    c.palette_offset = i * kJoints;
    c.num_joints = kJoints;
    s.characters.push_back(c);
  }
  return s;
}

void BM_EncodeFloatFrame(benchmark::State& state) {
  const auto characters = static_cast<uint32_t>(state.range(0));
  const animd::Snapshot snap = make_snapshot(characters);
  animd::StreamSubscription sub;
  sub.id = 1;
  sub.all = true;
  animd::EncodedFrame out;
  size_t bytes = 0;
  for (auto _ : state) {
    // The daemon's default --max-queued-bytes is 8 MiB: parts of at most 2 MiB.
    animd::encode_stream_frame(sub, snap, 0, 123, 2u << 20, out);
    bytes = out.bytes;
    benchmark::DoNotOptimize(out.messages.data());
  }
  state.counters["bytes_per_character"] = double(bytes) / characters;
  state.counters["us_per_character"] =
      benchmark::Counter(double(characters), benchmark::Counter::kIsIterationInvariantRate |
                                                 benchmark::Counter::kInvert);
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(bytes));
}
BENCHMARK(BM_EncodeFloatFrame)->Arg(1)->Arg(100)->Arg(500)->Unit(benchmark::kMicrosecond);

}  // namespace
