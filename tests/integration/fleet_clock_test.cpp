// The fleet clock (docs/operations.md, "Fleet clock"): ticks are numbered from --tick-epoch
// on the wall clock, so two daemons started apart agree on the current tick, and it is the
// wall clock's tick, floor((now - epoch) * rate). Loopback only; tolerances are in ticks, not
// timing assertions.
#include <chrono>
#include <cmath>
#include <thread>

#include <gtest/gtest.h>

#include "../tools/run_process.h"
#include "integration_support.h"

namespace animtest {
namespace fleet_clock_test {

constexpr double kRate = 60.0;

// The wall clock's tick now, from `epoch` (seconds since the Unix epoch).
uint64_t wall_tick(int64_t epoch) {
  const double now =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  return static_cast<uint64_t>(std::floor((now - static_cast<double>(epoch)) * kRate));
}

// Stats of `c`, with the wall clock's tick just before the request and just after the reply.
struct Sample {
  uint64_t before = 0, tick = 0, after = 0;
  anim::v1::StatsReply stats;
};
Sample sample(animclient::Client& c, int64_t epoch) {
  Sample s;
  s.before = wall_tick(epoch);
  auto r = c.stats();
  EXPECT_TRUE(r.ok());
  if (r) s.stats = *r;
  s.tick = s.stats.tick();
  s.after = wall_tick(epoch);
  return s;
}

// The reply names the last tick completed before the tick that answered it: within the
// wall clock's ticks around the call, give or take 2.
void expect_on_the_wall_clock(const Sample& s, int64_t epoch) {
  EXPECT_GE(s.tick + 2, s.before) << "tick " << s.tick;
  EXPECT_LE(s.tick, s.after + 2) << "tick " << s.tick;
  EXPECT_EQ(s.stats.tick_epoch_unix_s(), epoch);
  EXPECT_DOUBLE_EQ(s.stats.tick_unix_time_s(),
                   static_cast<double>(epoch) + static_cast<double>(s.tick) / kRate);
  EXPECT_GE(s.stats.first_tick(), 1u);
  EXPECT_LE(s.stats.first_tick(), s.tick);
}

TEST(FleetClock, TwoDaemonsStartedApartAgreeOnTheTick) {
  DaemonProcess a({"--tick-rate", "60"});
  ANIMD_START(a);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  DaemonProcess b({"--tick-rate", "60", "--tick-epoch", "0"});
  ANIMD_START(b);
  auto ca = connect_client(a);
  auto cb = connect_client(b);
  ASSERT_TRUE(ca && cb);
  // The first ticks ran a few hundred ms apart, yet the numbers are the wall clock's.
  for (int round = 0; round < 3; ++round) {
    const Sample a1 = sample(*ca, 0);
    const Sample b1 = sample(*cb, 0);
    const Sample a2 = sample(*ca, 0);
    expect_on_the_wall_clock(a1, 0);
    expect_on_the_wall_clock(b1, 0);
    expect_on_the_wall_clock(a2, 0);
    EXPECT_GE(b1.tick + 2, a1.tick);
    EXPECT_LE(b1.tick, a2.tick + 2);
    EXPECT_GT(a1.tick, uint64_t{1} << 32) << "ticks from the Unix epoch need more than 32 bits";
  }
  // Each counts from its own first tick, the later daemon from a later one.
  EXPECT_GT(sample(*cb, 0).stats.first_tick(), sample(*ca, 0).stats.first_tick());
}

TEST(FleetClock, ARecentEpochGivesSmallTickNumbers) {
  const int64_t epoch = std::chrono::duration_cast<std::chrono::seconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count() -
                        5;
  DaemonProcess d({"--tick-rate", "60", "--tick-epoch", std::to_string(epoch)});
  ANIMD_START(d);
  auto c = connect_client(d);
  ASSERT_TRUE(c);
  const Sample s = sample(*c, epoch);
  expect_on_the_wall_clock(s, epoch);
  EXPECT_GE(s.tick, 5u * 60 - 2);
  EXPECT_LT(s.tick, 60u * 60 * 24) << "a day of ticks at most";
  // A spawn's reply names the tick it took effect at, on the same numbering.
  anim::v1::Request r;
  r.mutable_spawn()->set_asset("builtin");
  r.mutable_spawn()->set_clip("walk");
  const uint64_t before = wall_tick(epoch);
  const anim::v1::Reply spawned = call(*c, r);
  ASSERT_EQ(spawned.status().code(), anim::v1::STATUS_OK) << spawned.status().message();
  EXPECT_GE(spawned.tick() + 2, before);
  EXPECT_LE(spawned.tick(), wall_tick(epoch) + 2);
}

TEST(FleetClock, ABadEpochIsRefusedNamingTheFlag) {
  for (const std::string bad : {"-1", "soon", "99999999999"}) {
    const ProcessResult r =
        run_process({ANIMD_BIN, "--tick-epoch", bad, "--port", "0", "--http-port", "-1"}, {},
                    std::chrono::seconds(20));
    EXPECT_NE(r.exit_code, 0) << bad;
    EXPECT_NE(r.err.find("--tick-epoch"), std::string::npos) << bad << ": " << r.err;
  }
}

}  // namespace fleet_clock_test
}  // namespace animtest
