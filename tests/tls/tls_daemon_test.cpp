// The real animd over TLS: the same checks as the plain integration tests (spawn + play +
// query_pose, streamed palettes equal to a local Animator's, animctl, the Python client),
// client-certificate verification, and a plain client refused by a TLS daemon.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "anim/animator.h"
#include "anim/loaders/builtin_character.h"
#include "integration_support.h"
#include "run_process.h"
#include "test_certs.h"
#include "tool_paths.h"

namespace animtest {
namespace tls_daemon_test {

using anim::v1::Request;

class TlsDaemon : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir("tls-daemon");
    certs_ = new TestCerts(make_test_certs(dir_->path()));
  }
  static void TearDownTestSuite() {
    delete certs_;
    delete dir_;
    certs_ = nullptr;
    dir_ = nullptr;
  }
  void SetUp() override { ASSERT_TRUE(certs_->ok()) << certs_->error; }

  static const TestCerts& certs() { return *certs_; }

  // animd serving TLS with the test server certificate (and client verification).
  static std::vector<std::string> tls_args(bool require_client_cert = false) {
    std::vector<std::string> a = {"--tls-cert", certs().server_cert, "--tls-key",
                                  certs().server_key};
    if (require_client_cert) {
      a.insert(a.end(), {"--tls-client-ca", certs().ca, "--tls-require-client-cert"});
    }
    return a;
  }

  static animclient::ClientOptions tls_options(const DaemonProcess& d) {
    animclient::ClientOptions o;
    o.host = d.host();
    o.port = d.port();
    o.request_timeout = kWait;
    o.connect_timeout = kWait;
    o.frame_queue_capacity = 4096;
    o.tls = true;
    o.ca_file = certs().ca;
    return o;
  }

  static std::unique_ptr<animclient::Client> connect_tls(const animclient::ClientOptions& o) {
    auto c = animclient::Client::connect(o);
    if (!c) {
      ADD_FAILURE() << "TLS connect: " << c.error().to_string();
      return nullptr;
    }
    return std::move(c.value());
  }

 private:
  static TempDir* dir_;
  static TestCerts* certs_;
};
TempDir* TlsDaemon::dir_ = nullptr;
TestCerts* TlsDaemon::certs_ = nullptr;

constexpr float kDt = static_cast<float>(1.0 / 60.0);

TEST_F(TlsDaemon, SpawnPlayAndQueryPoseOverTls) {
  DaemonProcess daemon(tls_args());
  ANIMD_START(daemon);
  auto client = connect_tls(tls_options(daemon));
  ASSERT_TRUE(client);
  auto spawned = client->spawn("builtin", "walk");
  ASSERT_TRUE(spawned) << spawned.error().to_string();
  const uint32_t id = spawned->character_id();
  auto played = client->play(id, "run");
  ASSERT_TRUE(played) << played.error().to_string();

  anim::v1::QueryPoseRequest q;
  q.set_character_id(id);
  q.add_joint_names("hand_l");
  auto pose = client->query_pose(q);
  ASSERT_TRUE(pose) << pose.error().to_string();
  const anim::Asset asset = anim::make_builtin_character();
  EXPECT_GE(pose->tick(), spawned->tick());
  EXPECT_EQ(pose->palette_size(), static_cast<int>(asset.skeleton.num_joints() * 12));
  ASSERT_EQ(pose->joints_size(), 1);
  EXPECT_EQ(pose->joints(0).name(), "hand_l");
  EXPECT_EQ(pose->joints(0).matrix_size(), 12);

  // A bad request over TLS gets the daemon's error, like over TCP.
  auto missing = client->play(id, "no-such-clip");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().kind, animclient::Error::Kind::kServer);
  EXPECT_TRUE(client->connected());
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

TEST_F(TlsDaemon, StreamedPalettesOverTlsEqualCore) {
  DaemonProcess daemon(tls_args());
  ANIMD_START(daemon);
  auto client = connect_tls(tls_options(daemon));
  ASSERT_TRUE(client);
  const anim::Asset asset = anim::make_builtin_character();
  const int walk = asset.find_clip("walk");
  const int run = asset.find_clip("run");
  ASSERT_GE(walk, 0);
  ASSERT_GE(run, 0);

  auto spawned = client->spawn("builtin", "walk");
  ASSERT_TRUE(spawned) << spawned.error().to_string();
  const uint32_t id = spawned->character_id();
  const uint64_t spawn_tick = spawned->tick();
  anim::v1::SubscribeRequest sub;
  sub.add_character_ids(id);
  auto subscribed = client->subscribe(sub);
  ASSERT_TRUE(subscribed) << subscribed.error().to_string();

  Request cf;
  cf.mutable_crossfade()->set_character_id(id);
  cf.mutable_crossfade()->set_clip("run");
  cf.mutable_crossfade()->set_duration(0.25f);
  const uint64_t crossfade_tick = call_ok(*client, cf).tick();
  ASSERT_GE(crossfade_tick, spawn_tick);

  auto frames = collect_frames(*client, subscribed->subscription_id(), crossfade_tick + 30);
  ASSERT_FALSE(frames.empty());
  ASSERT_GE(frames.rbegin()->first, crossfade_tick + 30);

  // Replay the same commands at the ticks the daemon applied them, one dt per tick.
  anim::Animator local(asset.skeleton, asset.clips);
  ASSERT_TRUE(local.play(walk));
  size_t compared = 0;
  for (uint64_t t = spawn_tick; t <= frames.rbegin()->first; ++t) {
    if (t == crossfade_tick) {
      ASSERT_TRUE(local.crossfade(run, 0.25f));
    }
    ASSERT_TRUE(local.update(kDt)) << "tick " << t;
    const auto f = frames.find(t);
    if (f == frames.end()) continue;
    ASSERT_EQ(f->second.characters_size(), 1) << "tick " << t;
    const auto& streamed = f->second.characters(0);
    const auto palette = local.palette();
    ASSERT_EQ(streamed.palette_size(), static_cast<int>(palette.size() * 12)) << "tick " << t;
    for (size_t j = 0; j < palette.size(); ++j)
      for (int k = 0; k < 12; ++k)
        ASSERT_NEAR(streamed.palette(static_cast<int>(j * 12 + k)), palette[j].m[k], 1e-6)
            << "tick " << t << " joint " << asset.skeleton.names[j] << " element " << k;
    ++compared;
  }
  EXPECT_GE(compared, 10u);
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

TEST_F(TlsDaemon, ClientCertificatesAreVerifiedWhenRequired) {
  DaemonProcess daemon(tls_args(/*require_client_cert=*/true));
  ANIMD_START(daemon);

  auto with_cert = tls_options(daemon);
  with_cert.cert_file = certs().client_cert;
  with_cert.key_file = certs().client_key;
  auto trusted = connect_tls(with_cert);
  ASSERT_TRUE(trusted);
  auto stats = trusted->stats();
  EXPECT_TRUE(stats) << stats.error().to_string();

  // Refused: no certificate, or one from a CA the daemon does not trust. With TLS 1.3 the
  // refusal may arrive after the client's side of the handshake: then the first call fails.
  auto expect_refused = [&](animclient::ClientOptions o, const char* what) {
    o.request_timeout = kWait;
    auto c = animclient::Client::connect(o);
    if (!c) {
      EXPECT_EQ(c.error().kind, animclient::Error::Kind::kConnect) << what;
      return;
    }
    auto r = c.value()->stats();
    ASSERT_FALSE(r) << what << ": the daemon answered";
    EXPECT_EQ(r.error().kind, animclient::Error::Kind::kDisconnected)
        << what << ": " << r.error().to_string();
  };
  expect_refused(tls_options(daemon), "no client certificate");
  auto untrusted = tls_options(daemon);
  untrusted.cert_file = certs().untrusted_client_cert;
  untrusted.key_file = certs().untrusted_client_key;
  expect_refused(untrusted, "untrusted client certificate");

  // The trusted connection is unaffected.
  EXPECT_TRUE(trusted->stats());
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

TEST_F(TlsDaemon, PlainClientIsRefusedAndTheDaemonKeepsServing) {
  DaemonProcess daemon(tls_args());
  ANIMD_START(daemon);
  animclient::ClientOptions plain = tls_options(daemon);
  plain.tls = false;
  auto c = animclient::Client::connect(plain);  // TCP connects; the daemon then wants TLS
  ASSERT_TRUE(c) << c.error().to_string();
  auto r = c.value()->stats();
  ASSERT_FALSE(r) << "a TLS daemon answered a plain request";
  EXPECT_EQ(r.error().kind, animclient::Error::Kind::kDisconnected) << r.error().to_string();

  auto tls = connect_tls(tls_options(daemon));
  ASSERT_TRUE(tls);
  EXPECT_TRUE(tls->stats());
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

TEST_F(TlsDaemon, SilentClientIsClosedByTheAuthTimeoutDuringTheHandshake) {
  std::vector<std::string> args = tls_args();
  args.insert(args.end(), {"--auth-timeout", "0.5"});
  DaemonProcess daemon(args);
  ANIMD_START(daemon);
  // TCP connects and never sends a TLS hello: the handshake must not hold the connection.
  RawConnection silent(daemon.port());
  ASSERT_TRUE(silent.ok());
  EXPECT_TRUE(silent.wait_closed()) << daemon.log_tail();
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

TEST_F(TlsDaemon, AnimctlConnectsWithTlsAndCa) {
  DaemonProcess daemon(tls_args());
  ANIMD_START(daemon);
  const std::string port = std::to_string(daemon.port());
  auto ctl = [&](std::vector<std::string> args) {
    std::vector<std::string> argv = {animctl_binary(), "--port", port, "--timeout", "20000"};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_process(argv);
  };
  const ProcessResult spawned =
      ctl({"--tls", "--ca", certs().ca, "spawn", "builtin", "--clip", "walk"});
  ASSERT_EQ(spawned.exit_code, 0) << spawned.out << spawned.err;
  const ProcessResult stats = ctl({"--tls", "--ca", certs().ca, "--json", "stats"});
  ASSERT_EQ(stats.exit_code, 0) << stats.out << stats.err;
  EXPECT_NE(stats.out.find("STATUS_OK"), std::string::npos) << stats.out;

  // An untrusted CA: a transport failure (exit 3) that says why.
  const ProcessResult wrong_ca = ctl({"--tls", "--ca", certs().untrusted_ca, "stats"});
  EXPECT_EQ(wrong_ca.exit_code, 3) << wrong_ca.out << wrong_ca.err;
  EXPECT_NE(wrong_ca.err.find("certificate verify failed"), std::string::npos) << wrong_ca.err;
  // Without --tls the daemon refuses the connection.
  const ProcessResult plain = ctl({"stats"});
  EXPECT_EQ(plain.exit_code, 3) << plain.out << plain.err;
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

TEST_F(TlsDaemon, AnimloadRunsOverTls) {
  DaemonProcess daemon(tls_args());
  ANIMD_START(daemon);
  const ProcessResult r = run_process(
      {animload_binary(), "--port", std::to_string(daemon.port()), "--tls", "--ca", certs().ca,
       "--connections", "2", "--characters-per-connection", "2", "--duration", "1", "--quiet"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  const ProcessResult wrong_ca =
      run_process({animload_binary(), "--port", std::to_string(daemon.port()), "--tls", "--ca",
                   certs().untrusted_ca, "--duration", "1"});
  EXPECT_EQ(wrong_ca.exit_code, 3) << wrong_ca.out << wrong_ca.err;
  EXPECT_NE(wrong_ca.err.find("certificate verify failed"), std::string::npos) << wrong_ca.err;
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

// animhostile --tls: every hostile kind does its TLS handshake first (handshake_stall stops
// after 5 bytes), the good clients verify the daemon; the facts that do not depend on timing.
TEST_F(TlsDaemon, AnimhostileAttacksOverTlsAndGoodClientsLoseNothing) {
  std::vector<std::string> args = tls_args();
  args.insert(args.end(), {"--auth-timeout", "1"});
  DaemonProcess daemon(args);
  ANIMD_START(daemon);
  const auto out = daemon.temp_dir() / "hostile-tls.json";
  const ProcessResult r = run_process({ANIMHOSTILE_BIN,
                                       "--port",
                                       std::to_string(daemon.port()),
                                       "--tls",
                                       "--ca",
                                       certs().ca,
                                       "--hostile",
                                       "14",
                                       "--good",
                                       "2",
                                       "--good-rate",
                                       "10",
                                       "--spawn-characters",
                                       "5",
                                       "--duration",
                                       "4",
                                       "--upload-bytes",
                                       "1000000",
                                       "--quiet",
                                       "--json-out",
                                       out.string()},
                                      {}, std::chrono::seconds(120));
  ASSERT_NE(r.exit_code, -1) << "animhostile did not finish in time\n" << r.out << r.err;
  std::ifstream file(out);
  nlohmann::json j;
  ASSERT_NO_THROW(file >> j) << r.out << r.err;
  for (const char* kind : {"garbage", "huge_header", "slowloris", "subscribe_no_read",
                           "query_flood", "oversized_upload"})
    EXPECT_GT(j["hostile"]["kinds"][kind]["tls_handshakes"].get<uint64_t>(), 0u) << kind;
  // A handshake that stalls is closed by the auth timeout.
  EXPECT_GT(j["hostile"]["kinds"]["handshake_stall"]["closed_by_server"].get<uint64_t>(), 0u)
      << r.out;
  EXPECT_EQ(j["hostile"]["kinds"]["handshake_stall"]["tls_handshakes"].get<uint64_t>(), 0u);
  EXPECT_GT(j["good"]["requests_sent"].get<uint64_t>(), 0u) << r.out;
  EXPECT_EQ(j["good"]["replies_lost"].get<uint64_t>(), 0u) << r.out;
  EXPECT_TRUE(j["daemon"]["alive_after"].get<bool>()) << r.out;
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

bool python_with_protobuf() {
  return std::filesystem::exists("/usr/bin/python3") &&
         run_process({"/usr/bin/python3", "-c", "import google.protobuf"}).exit_code == 0;
}

TEST_F(TlsDaemon, PythonExampleConnectsWithTls) {
  if (!python_with_protobuf())
    GTEST_SKIP() << "skipped: /usr/bin/python3 with python3-protobuf not available";
  DaemonProcess daemon(tls_args(/*require_client_cert=*/true));
  ANIMD_START(daemon);
  // The Python distribution as installed (fixture animd_installed, tests/install): its
  // console scripts, which import from its dist-packages.
  auto run = [&](const std::string& script, std::vector<std::string> args) {
    std::vector<std::string> argv = {std::string(ANIMD_PYTHON_BIN_DIR) + "/" + script, "--port",
                                     std::to_string(daemon.port())};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_process(argv, {"PYTHONPATH=" + std::string(ANIMD_PYTHON_MODULE_DIR)});
  };
  const std::vector<std::string> tls = {
      "--tls", "--ca", certs().ca, "--cert", certs().client_cert, "--key", certs().client_key};
  auto with_tls = [&](std::vector<std::string> args) {
    args.insert(args.begin(), tls.begin(), tls.end());
    return args;
  };
  const ProcessResult ok = run("animd-py-example", with_tls({"--frames", "4"}));
  ASSERT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  size_t frames = 0;
  for (size_t at = ok.out.find("\ntick "); at != std::string::npos;
       at = ok.out.find("\ntick ", at + 1))
    ++frames;
  EXPECT_EQ(frames, 4u) << ok.out;
  EXPECT_NE(ok.out.find("22 joints"), std::string::npos) << ok.out;

  // Several threads sharing TLS connections while frames stream in (the client's I/O lock).
  const ProcessResult loaded =
      run("animd-py-load-example",
          with_tls({"--connections", "3", "--characters", "3", "--seconds", "2"}));
  ASSERT_EQ(loaded.exit_code, 0) << loaded.out << loaded.err;
  EXPECT_NE(loaded.out.find("errors: 0"), std::string::npos) << loaded.out;

  const ProcessResult wrong_ca = run("animd-py-example", {"--tls", "--ca", certs().untrusted_ca});
  EXPECT_EQ(wrong_ca.exit_code, 1);
  EXPECT_NE(wrong_ca.err.find("certificate verify failed"), std::string::npos) << wrong_ca.err;
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

// Start-up refuses a half or broken TLS configuration, naming the problem (flags: CLI11;
// files: make_server_tls_context in Server::init).
TEST_F(TlsDaemon, HalfConfigurationIsRefusedAtStartup) {
  const ProcessResult no_key = run_process({animd_binary(), "--tls-cert", certs().server_cert});
  EXPECT_NE(no_key.exit_code, 0);
  EXPECT_NE((no_key.out + no_key.err).find("--tls-key"), std::string::npos)
      << no_key.out << no_key.err;
  const ProcessResult require_without_ca =
      run_process({animd_binary(), "--tls-cert", certs().server_cert, "--tls-key",
                   certs().server_key, "--tls-require-client-cert"});
  EXPECT_NE(require_without_ca.exit_code, 0);
  EXPECT_NE((require_without_ca.out + require_without_ca.err).find("--tls-client-ca"),
            std::string::npos)
      << require_without_ca.out << require_without_ca.err;
}

TEST_F(TlsDaemon, MismatchedKeyIsRefusedAtStartupNamingTheFile) {
  DaemonProcess daemon({"--tls-cert", certs().server_cert, "--tls-key", certs().client_key});
  EXPECT_FALSE(daemon.start()) << "animd started with a key that does not match";
  EXPECT_NE(daemon.log_tail().find(certs().client_key), std::string::npos) << daemon.log_tail();
}

}  // namespace tls_daemon_test
}  // namespace animtest
