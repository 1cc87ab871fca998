// What this machine's memory can move, for the limit estimate beside the crowd figures
// (docs/benchmarks.md, "Crowds"): a character-tick that moves B bytes from DRAM cannot take
// less than B / bandwidth, and one that misses the caches L times in a dependent chain not
// less than L x latency.
//  - BM_ReadBandwidth: sums a buffer far larger than the L3 (sequential reads);
//  - BM_WriteBandwidth: fills it (sequential writes: each line is read, then written back);
//  - BM_CopyBandwidth: memcpy from one half to the other;
//  - BM_DependentMisses: follows a random cycle through the buffer's cache lines, one load
//    waiting for the last (the latency of a miss, as a character's first touch of a cold
//    field pays it).
// With 1 and 2 threads (each its own buffer); bytes_per_second is over all threads.
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <thread>
#include <vector>

#include <benchmark/benchmark.h>

namespace {

// Each thread's buffer: `megabytes` MB (the large runs' size must dwarf the L3).
std::vector<uint64_t>& buffer(int thread, size_t megabytes) {
  static std::vector<uint64_t> buffers[2];
  auto& b = buffers[thread & 1];
  const size_t words = (megabytes << 20) / sizeof(uint64_t);
  if (b.size() != words) b.assign(words, 1);
  return b;
}

// Runs `pass(thread)` on range(0) threads at once, once per iteration.
template <class Pass>
void on_threads(benchmark::State& state, Pass pass) {
  const int threads = static_cast<int>(state.range(0));
  for (auto _ : state) {
    std::vector<std::thread> running;
    for (int t = 1; t < threads; ++t) running.emplace_back(pass, t);
    pass(0);
    for (auto& t : running) t.join();
    benchmark::ClobberMemory();
  }
}

int64_t total_bytes(const benchmark::State& state) {
  return state.iterations() * state.range(0) * (state.range(1) << 20);
}

void BM_ReadBandwidth(benchmark::State& state) {
  const size_t mb = static_cast<size_t>(state.range(1));
  for (int t = 0; t < state.range(0); ++t) buffer(t, mb);
  on_threads(state, [mb](int t) {
    const auto& b = buffer(t, mb);
    uint64_t sum = 0;
    for (size_t i = 0; i < b.size(); i += 4) sum += b[i] + b[i + 1] + b[i + 2] + b[i + 3];
    benchmark::DoNotOptimize(sum);
  });
  state.SetBytesProcessed(total_bytes(state));
}

void BM_WriteBandwidth(benchmark::State& state) {
  const size_t mb = static_cast<size_t>(state.range(1));
  for (int t = 0; t < state.range(0); ++t) buffer(t, mb);
  uint64_t v = 0;
  on_threads(state, [mb, &v](int t) {
    auto& b = buffer(t, mb);
    std::fill(b.begin(), b.end(), v + static_cast<uint64_t>(t));
  });
  state.SetBytesProcessed(total_bytes(state));
}

// Bytes read plus bytes written.
void BM_CopyBandwidth(benchmark::State& state) {
  const size_t mb = static_cast<size_t>(state.range(1));
  for (int t = 0; t < state.range(0); ++t) buffer(t, mb);
  on_threads(state, [mb](int t) {
    auto& b = buffer(t, mb);
    const size_t half = b.size() / 2;
    std::memcpy(b.data() + half, b.data(), half * sizeof(uint64_t));
  });
  state.SetBytesProcessed(total_bytes(state));
}

void BM_DependentMisses(benchmark::State& state) {
  const size_t mb = static_cast<size_t>(state.range(1));
  constexpr size_t kStride = 64 / sizeof(uint64_t);  // one entry per cache line
  for (int t = 0; t < state.range(0); ++t) {
    auto& b = buffer(t, mb);
    const size_t lines = b.size() / kStride;
    std::vector<uint32_t> order(lines);
    std::iota(order.begin(), order.end(), 0u);
    std::shuffle(order.begin(), order.end(), std::mt19937(12345u + static_cast<unsigned>(t)));
    for (size_t k = 0; k < lines; ++k) b[order[k] * kStride] = order[(k + 1) % lines] * kStride;
  }
  constexpr int64_t kSteps = 1 << 20;
  on_threads(state, [mb](int t) {
    const auto& b = buffer(t, mb);
    size_t at = 0;
    for (int64_t s = 0; s < kSteps; ++s) at = b[at];
    benchmark::DoNotOptimize(at);
  });
  state.SetItemsProcessed(state.iterations() * state.range(0) * kSteps);
  state.counters["time_per_miss"] =
      benchmark::Counter(static_cast<double>(state.iterations() * kSteps),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// Arguments: threads, megabytes per thread. {1, 1} fits the caches: the test command's brief
// run (filter /1$) and a reference for the others, which are timed by the wall clock.
#define ANIMD_BANDWIDTH(name)                                   \
  BENCHMARK(name)->Args({1, 1})->Unit(benchmark::kMillisecond); \
  BENCHMARK(name)->Args({1, 256})->Args({2, 256})->UseRealTime()->Unit(benchmark::kMillisecond)
ANIMD_BANDWIDTH(BM_ReadBandwidth);
ANIMD_BANDWIDTH(BM_WriteBandwidth);
ANIMD_BANDWIDTH(BM_CopyBandwidth);
ANIMD_BANDWIDTH(BM_DependentMisses);

}  // namespace
