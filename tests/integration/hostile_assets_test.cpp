// Hostile uploads against a real animd (docs/security.md, "Hostile assets"): each crafted
// file of tests/support/hostile_gltf.h is refused with a status naming the bound, or loads
// within its bounds, and the daemon's peak memory stays near where it was; one owner's
// loads do not hold another's; uploads waiting to load stay within the inbound budget.
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "hostile_gltf.h"
#include "integration_support.h"
#include "process_memory.h"

namespace animtest {
namespace hostile_assets_test {

anim::v1::Reply upload(animclient::Client& client, const std::string& name,
                       const std::string& glb) {
  anim::v1::Request r;
  r.mutable_load_asset()->set_name(name);
  r.mutable_load_asset()->set_glb_data(glb);
  return call(client, std::move(r));
}

void expect_status(const anim::v1::Reply& reply, anim::v1::StatusCode code,
                   const std::string& needle) {
  EXPECT_EQ(reply.status().code(), code) << reply.status().message();
  EXPECT_NE(reply.status().message().find(needle), std::string::npos) << reply.status().message();
}

TEST(HostileAssets, DeepNestingIsRefusedAndTheDaemonStaysUp) {
  DaemonProcess daemon;
  ANIMD_START(daemon);
  auto client = connect_client(daemon);
  ASSERT_TRUE(client);
  const std::string deep = deep_extras_glb(30000);
  ASSERT_LT(deep.size(), 128u << 10);
  expect_status(upload(*client, "deep", deep), anim::v1::STATUS_RESOURCE_EXHAUSTED,
                "nested deeper than 64 levels");
  // Nothing changed, and the daemon still loads a good file.
  auto list = client->list_assets();
  ASSERT_TRUE(list) << list.error().to_string();
  EXPECT_EQ(list->assets_size(), 1);  // builtin
  expect_status(
      upload(*client, "good", glb_of(one_joint_upload_document(), identity_matrix_bytes())),
      anim::v1::STATUS_OK, "");
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

TEST(HostileAssets, SmallUploadsCannotTakeLargeMemory) {
  DaemonProcess daemon({"--max-load-bytes", std::to_string(64 << 20)});
  ANIMD_START(daemon);
  auto client = connect_client(daemon);
  ASSERT_TRUE(client);
  ASSERT_TRUE(client->list_assets());
  const uint64_t before = peak_rss_kib(daemon.pid());
  ASSERT_GT(before, 0u);

  // 2^28 zeros under one sparse value: 6 GiB decoded from a few hundred bytes.
  expect_status(upload(*client, "sparse", sparse_bomb_glb(uint64_t{1} << 28)),
                anim::v1::STATUS_DATA_LOSS, "elements without a buffer view");
  // 400,000 empty nodes in 1.2 MiB.
  const std::string empties = empty_nodes_glb(400000);
  ASSERT_LT(empties.size(), 2u << 20);
  expect_status(upload(*client, "empties", empties), anim::v1::STATUS_RESOURCE_EXHAUSTED,
                "more than 65536 nodes");
  // 300 clips decoding the same 1.6 MB of keys again and again: 0.5 GB decoded.
  expect_status(upload(*client, "aliasing", aliasing_clips_glb(300, 100000)),
                anim::v1::STATUS_RESOURCE_EXHAUSTED, "64 MiB of working memory");

  const uint64_t after = peak_rss_kib(daemon.pid());
  EXPECT_LT(after - before, (uint64_t{128} << 10) * kSanitizerMemoryFactor)
      << "peak RSS grew from " << before << " KiB to " << after << " KiB";
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

TEST(HostileAssets, ALongChainLoadsAndAChainPastTheNodeLimitIsRefused) {
  DaemonProcess daemon;
  ANIMD_START(daemon);
  auto client = connect_client(daemon);
  ASSERT_TRUE(client);
  expect_status(upload(*client, "chain", node_chain_glb(60000)), anim::v1::STATUS_OK, "");
  auto data = client->get_asset_data("chain", /*skip_mesh=*/true);
  ASSERT_TRUE(data) << data.error().to_string();
  EXPECT_EQ(data->skeleton().joint_names_size(), 1);
  expect_status(upload(*client, "chain2", node_chain_glb(100000)),
                anim::v1::STATUS_RESOURCE_EXHAUSTED, "more than 65536 nodes");
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

const std::string kTokenA = "tenant-a-token-0123456789";
const std::string kTokenB = "tenant-b-token-0123456789";

// The bound for the replies of the two tests below, whose loads are made slow on purpose
// (aliasing_clips_glb) and run one after another: under ThreadSanitizer on a slow 2-core host
// two of them in a row took longer than kWait. A bound on a broken daemon, not a timing check.
inline constexpr auto kSlowLoadWait = 4 * kWait;

TEST(HostileAssets, OneOwnersLoadsDoNotHoldAnothers) {
  DaemonProcess daemon(
      {"--control-token", kTokenA, "--control-token", kTokenB, "--loader-threads", "2"});
  ANIMD_START(daemon);
  // A's three slow loads, from three connections: they run one at a time.
  const std::string slow = aliasing_clips_glb(40, 40000);
  std::vector<std::unique_ptr<animclient::Client>> a;
  for (int i = 0; i < 3; ++i) {
    a.push_back(connect_client(daemon, kTokenA));
    ASSERT_TRUE(a.back());
    ASSERT_TRUE(a.back()->list_assets());  // trusted: large frames accepted
  }
  auto b = connect_client(daemon, kTokenB);
  ASSERT_TRUE(b);
  std::mutex mutex;
  std::vector<std::string> finished;
  int answered = 0;
  std::condition_variable done;
  auto record = [&](const std::string& who) {
    return [&, who](animclient::Result<anim::v1::Reply> reply) {
      std::lock_guard lock(mutex);
      EXPECT_TRUE(reply && reply->status().code() == anim::v1::STATUS_OK)
          << who << ": " << (reply ? reply->status().message() : reply.error().to_string());
      finished.push_back(who);
      ++answered;
      done.notify_all();
    };
  };
  for (int i = 0; i < 3; ++i) {
    anim::v1::Request r;
    r.mutable_load_asset()->set_name("slow" + std::to_string(i));
    r.mutable_load_asset()->set_glb_data(slow);
    // Appended, not "A" + to_string(i): GCC 12 warns of a false overlap (-Wrestrict) when a
    // one-character literal is inserted in front of a temporary string.
    std::string who = "A";
    who += std::to_string(i);
    a[i]->call_async(std::move(r), record(who), kSlowLoadWait);
  }
  // Let A's uploads reach the loader first (an ordering aid, not a timing check), and B's
  // follow while A's first load still runs: well within two of A's loads.
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  anim::v1::Request r;
  r.mutable_load_asset()->set_name("small");
  r.mutable_load_asset()->set_glb_data(
      glb_of(one_joint_upload_document(), identity_matrix_bytes()));
  b->call_async(std::move(r), record("B"), kSlowLoadWait);
  {
    std::unique_lock lock(mutex);
    ASSERT_TRUE(done.wait_for(lock, kSlowLoadWait * 2, [&] { return answered == 4; }));
  }
  // B's load took the free thread while A's waited for theirs: it ended before A's last two.
  const auto b_at = std::find(finished.begin(), finished.end(), "B") - finished.begin();
  EXPECT_LE(b_at, 1) << "B finished at position " << b_at;
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

TEST(HostileAssets, UploadsWaitingToLoadStayWithinTheInboundBudget) {
  // One loader thread busy with two slow loads; big uploads wait behind them, each keeping
  // its bytes drawn on the inbound budget: of three, one cannot be received. The budget is
  // sized (asserted below) so that the slow uploads' and two big ones' bytes fit and three
  // big ones do not, even once the slow ones are done.
  DaemonProcess daemon({"--loader-threads", "1", "--max-inbound-bytes-total", "4700000",
                        "--max-upload-bytes", std::to_string(2 << 20)});
  ANIMD_START(daemon);
  const std::string slow = aliasing_clips_glb(40, 40000);
  const std::string big = aliasing_clips_glb(1, 100000);
  ASSERT_GT(big.size(), 1500000u);
  ASSERT_LT(2 * slow.size() + 2 * big.size(), 4700000u);
  ASSERT_GT(3 * big.size(), 4700000u);
  constexpr int kSlow = 2, kUploads = 5;
  std::vector<std::unique_ptr<animclient::Client>> c;
  for (int i = 0; i < kUploads; ++i) {
    c.push_back(connect_client(daemon));
    ASSERT_TRUE(c.back());
    ASSERT_TRUE(c.back()->list_assets());
  }
  // Reads the daemon's count of bytes received (stats), on a connection of its own.
  auto probe = connect_client(daemon);
  ASSERT_TRUE(probe);
  auto bytes_in = [&] {
    auto st = probe->stats();
    return st ? st->bytes_in() : uint64_t{0};
  };
  std::mutex mutex;
  std::condition_variable done;
  int answered = 0;
  std::vector<bool> ok(kUploads, false), replied(kUploads, false);
  std::vector<std::string> why(kUploads);
  for (int i = 0; i < kUploads; ++i) {
    anim::v1::Request r;
    r.mutable_load_asset()->set_name("upload" + std::to_string(i));
    r.mutable_load_asset()->set_glb_data(i < kSlow ? slow : big);
    const uint64_t size = (i < kSlow ? slow : big).size();
    const uint64_t before = bytes_in();
    c[i]->call_async(
        std::move(r),
        [&, i](animclient::Result<anim::v1::Reply> reply) {
          std::lock_guard lock(mutex);
          ok[i] = reply && reply->status().code() == anim::v1::STATUS_OK;
          why[i] = reply ? reply->status().message() : reply.error().to_string();
          replied[i] = true;
          ++answered;
          done.notify_all();
        },
        kSlowLoadWait);
    // One after the other: the slow loads first, then each big upload received whole (or
    // refused) before the next starts arriving, so that which one finds the budget full does
    // not depend on how their bytes interleave.
    const auto deadline = std::chrono::steady_clock::now() + kSlowLoadWait;
    while (std::chrono::steady_clock::now() < deadline) {
      {
        std::lock_guard lock(mutex);
        if (replied[i]) break;
      }
      if (bytes_in() >= before + size) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  {
    std::unique_lock lock(mutex);
    ASSERT_TRUE(done.wait_for(lock, kSlowLoadWait * 2, [&] { return answered == kUploads; }));
  }
  for (int i = 0; i < kSlow; ++i) EXPECT_TRUE(ok[i]) << why[i];
  // Two fit beside the waiting loads' bytes; the third finds the budget held by them and its
  // connection is closed.
  int refused = 0;
  for (int i = kSlow; i < kUploads; ++i)
    if (!ok[i]) {
      ++refused;
      EXPECT_NE(why[i].find("closed the connection"), std::string::npos) << why[i];
    }
  EXPECT_EQ(refused, 1) << why[2] << " | " << why[3] << " | " << why[4];
  // The daemon is fine: a new connection loads a small file.
  auto again = connect_client(daemon);
  ASSERT_TRUE(again);
  EXPECT_EQ(upload(*again, "after", glb_of(one_joint_upload_document(), identity_matrix_bytes()))
                .status()
                .code(),
            anim::v1::STATUS_OK);
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

}  // namespace hostile_assets_test
}  // namespace animtest
