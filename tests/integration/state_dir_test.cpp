// --state-dir (docs/operations.md, "Saved state"): the real daemon killed with SIGKILL, or
// stopped with SIGTERM, and started again on the same folder gives its characters back under
// the same ids, their poses continuing in fleet time (core replaying the same clip for the
// same ticks, within a few ticks of start-up); damaged, cut-short and newer files are set aside
// and the daemon starts; an upgrade hands 2,000 characters and a listening socket passed as
// systemd does (LISTEN_FDS) from one process to the next while a subscriber reconnects.
// Loopback only; waits are bounds on a broken daemon, not timing assertions.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

#include <gtest/gtest.h>

#include "anim/animator.h"
#include "anim/loaders/builtin_character.h"
#include "anim/tick_clock.h"
#include "eventually.h"
#include "hostile_gltf.h"
#include "integration_support.h"

namespace animtest {
namespace state_dir_test {

namespace fs = std::filesystem;
using anim::v1::Request;

fs::path state_file(const TempDir& d) {
  return d.path() / "characters.state";
}

uint64_t file_size_or_0(const fs::path& p) {
  std::error_code ec;
  const auto n = fs::file_size(p, ec);
  return ec ? 0 : n;
}

size_t set_aside_files(const TempDir& d) {
  size_t n = 0;
  for (const auto& e : fs::directory_iterator(d.path()))
    n += e.path().filename().string().find("characters.state.bad-") == 0;
  return n;
}

std::vector<uint32_t> character_ids(animclient::Client& c) {
  Request r;
  r.mutable_list_characters();
  std::vector<uint32_t> ids;
  const auto reply = call_ok(c, r);
  for (const auto& ch : reply.list_characters().characters()) ids.push_back(ch.character_id());
  return ids;
}

uint32_t spawn(animclient::Client& c, const std::string& clip, uint64_t* tick = nullptr) {
  Request r;
  r.mutable_spawn()->set_asset("builtin");
  r.mutable_spawn()->set_clip(clip);
  auto reply = call_ok(c, r);
  if (tick) *tick = reply.tick();
  return reply.spawn().character_id();
}

// The built-in character playing `clip` after `updates` ticks at 60 Hz, as core computes it.
std::vector<float> core_palette(const std::string& clip, uint64_t updates) {
  static const anim::Asset asset = anim::make_builtin_character();
  anim::Animator a(asset.skeleton, asset.clips);
  EXPECT_TRUE(a.play(asset.find_clip(clip)));
  anim::TickClock clock(60.0);
  for (uint64_t i = 0; i < updates; ++i) EXPECT_TRUE(a.update(clock.next()));
  std::vector<float> out;
  for (const auto& m : a.palette()) out.insert(out.end(), m.m, m.m + 12);
  return out;
}

bool near(const std::vector<float>& a, const google::protobuf::RepeatedField<float>& b) {
  if (static_cast<int>(a.size()) != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::abs(a[i] - b[static_cast<int>(i)]) > 2e-4f) return false;
  return true;
}

// The character playing `clip` since `first_update` shows, at `tick`, the pose of a character
// that never stopped: core's after (tick - first_update + 1) updates, give or take the few
// ticks of a restart's start-up (the catch-up runs to the tick the daemon expects to start at).
void expect_pose_continues(animclient::Client& c, uint32_t id, const std::string& clip,
                           uint64_t first_update, uint64_t tick) {
  constexpr int window = 6;
  const auto pose = pose_at(c, id, tick);
  const uint64_t updates = tick - first_update + 1;
  bool matched = false;
  int offset_found = 0;
  for (int off = -window; off <= window && !matched; ++off) {
    if (static_cast<int64_t>(updates) + off < 1) continue;
    if (near(core_palette(clip, updates + off), pose.palette())) {
      matched = true;
      offset_found = off;
    }
  }
  EXPECT_TRUE(matched) << "character " << id << " at tick " << tick << " (" << updates
                       << " updates since its spawn) matches no never-stopped pose within "
                       << window << " ticks";
  EXPECT_LE(std::abs(offset_found), window);
}

// Assets and definitions clients made: an upload with a character of it playing an event
// clip, a blend space on the built-in character with a character in it.
struct Made {
  uint32_t prop = 0;
  uint32_t moving = 0;
};
Made make_assets_and_definitions(animclient::Client& c) {
  Made m;
  Request load;
  load.mutable_load_asset()->set_name("prop");
  load.mutable_load_asset()->set_glb_data(aliasing_clips_glb(1, 4));
  call_ok(c, load);
  Request events;
  events.mutable_add_clip_events()->set_asset("prop");
  events.mutable_add_clip_events()->set_clip("clip0");
  auto* e = events.mutable_add_clip_events()->add_events();
  e->set_name("tick");
  e->set_time(0.0f);
  call_ok(c, events);
  Request space;
  auto* d = space.mutable_define_blend_space();
  d->set_asset("builtin");
  d->set_name("move");
  d->add_axes("speed");
  for (auto [clip, x] : {std::pair<const char*, float>{"idle", 0.0f}, {"walk", 1.4f}}) {
    auto* sample = d->add_samples();
    sample->set_clip(clip);
    sample->set_x(x);
  }
  call_ok(c, space);
  Request spawn_prop;
  spawn_prop.mutable_spawn()->set_asset("prop");
  spawn_prop.mutable_spawn()->set_clip("clip0");
  m.prop = call_ok(c, spawn_prop).spawn().character_id();
  m.moving = spawn(c, "idle");
  Request fade;
  fade.mutable_crossfade()->set_character_id(m.moving);
  fade.mutable_crossfade()->set_clip("move");
  fade.mutable_crossfade()->set_duration(0.2f);
  call_ok(c, fade);
  return m;
}

TEST(StateDir, SigkillAndRestartBringTheCharactersBackUnderTheirIdsPosesContinuing) {
  TempDir dir("animd-state");
  std::vector<uint32_t> ids;
  std::vector<uint64_t> spawned_at;
  Made made;
  {
    DaemonProcess a({"--state-dir", dir.path().string(), "--state-interval-seconds", "0.2"});
    ANIMD_START(a);
    auto c = connect_client(a);
    ASSERT_TRUE(c);
    for (const char* clip : {"walk", "run", "walk"}) {
      uint64_t t = 0;
      ids.push_back(spawn(*c, clip, &t));
      spawned_at.push_back(t);
    }
    made = make_assets_and_definitions(*c);
    // A save with the five characters (an empty world's file is a few dozen bytes).
    ASSERT_TRUE(eventually([&] { return file_size_or_0(state_file(dir)) > 1000; }, kWait))
        << a.log_tail();
    ::kill(a.pid(), SIGKILL);
    EXPECT_EQ(a.wait_exit(kWait), 128 + SIGKILL);
  }
  // Down for a while: half a second of fleet time (30 ticks) the restart must catch up.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  DaemonProcess b({"--state-dir", dir.path().string()});
  ANIMD_START(b);
  auto c = connect_client(b);
  ASSERT_TRUE(c);
  std::vector<uint32_t> all = ids;
  all.insert(all.end(), {made.prop, made.moving});
  EXPECT_EQ(character_ids(*c), all) << b.log_tail();
  const uint64_t now = current_tick(*c);
  const char* clips[] = {"walk", "run", "walk"};
  for (size_t i = 0; i < ids.size(); ++i)
    expect_pose_continues(*c, ids[i], clips[i], spawned_at[i], now);
  // The upload and the blend space came back with their characters.
  Request list;
  list.mutable_list_characters();
  const auto listed = call_ok(*c, list);
  for (const auto& ch : listed.list_characters().characters()) {
    if (ch.character_id() == made.prop) {
      EXPECT_EQ(ch.asset(), "prop");
    }
    if (ch.character_id() == made.moving) {
      EXPECT_EQ(ch.blend_space(), "move");
    }
  }
  // New ids continue past the restored ones.
  EXPECT_EQ(spawn(*c, "idle"), made.moving + 1);
  const std::string log = b.log();
  EXPECT_NE(log.find("state: 3 asset change(s) made again"), std::string::npos) << b.log_tail();
  EXPECT_NE(log.find("state: 5 of 5 characters restored"), std::string::npos) << b.log_tail();
  EXPECT_EQ(set_aside_files(dir), 0u);
}

TEST(StateDir, SigtermSavesEveryCharacterBeforeExit) {
  TempDir dir("animd-state");
  std::vector<uint32_t> ids;
  {
    // An interval too long for a periodic save to hold them: only the one at exit does.
    DaemonProcess a({"--state-dir", dir.path().string(), "--state-interval-seconds", "3600"});
    ANIMD_START(a);
    auto c = connect_client(a);
    ASSERT_TRUE(c);
    for (int i = 0; i < 5; ++i) ids.push_back(spawn(*c, "walk"));
    c.reset();
    EXPECT_EQ(a.stop(kWait), 0) << a.log_tail();
    EXPECT_NE(a.log().find("state: 5 characters saved to"), std::string::npos) << a.log_tail();
  }
  DaemonProcess b({"--state-dir", dir.path().string()});
  ANIMD_START(b);
  auto c = connect_client(b);
  ASSERT_TRUE(c);
  EXPECT_EQ(character_ids(*c), ids) << b.log_tail();
}

// CRC-32 (IEEE), as base/durable_file.h frames a payload.
uint32_t crc32(const std::string& s) {
  uint32_t crc = 0xffffffffu;
  for (unsigned char ch : s) {
    crc ^= ch;
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

std::string durable(const std::string& payload) {
  std::string out = "ANIMDUR1";
  const uint64_t n = payload.size();
  const uint32_t crc = crc32(payload);
  out.append(reinterpret_cast<const char*>(&n), 8);
  out.append(reinterpret_cast<const char*>(&crc), 4);
  return out + payload;
}

// A file written by a newer animd: a characters file of format 99.
std::string newer_format_file() {
  std::string p = "ANIMDCHR";
  const uint32_t format = 99;
  p.append(reinterpret_cast<const char*>(&format), 4);
  p.append(40, '\0');
  return durable(p);
}

TEST(StateDir, DamagedCutShortAndNewerFilesAreSetAsideAndTheDaemonStartsEmpty) {
  // A real save to damage.
  TempDir source("animd-state");
  {
    DaemonProcess a({"--state-dir", source.path().string()});
    ANIMD_START(a);
    auto c = connect_client(a);
    ASSERT_TRUE(c);
    for (int i = 0; i < 4; ++i) spawn(*c, "walk");
    c.reset();
    ASSERT_EQ(a.stop(kWait), 0) << a.log_tail();
  }
  std::string good;
  {
    std::ifstream f(state_file(source), std::ios::binary);
    good.assign(std::istreambuf_iterator<char>(f), {});
  }
  ASSERT_GT(good.size(), 100u);
  std::string flipped = good;
  flipped[good.size() / 2] ^= 0x40;
  const struct Case {
    const char* name;
    std::string bytes;
    const char* logged;
  } cases[] = {
      {"flipped", flipped, "checksum"},
      {"truncated", good.substr(0, good.size() - 7), "characters.state"},
      {"newer", newer_format_file(), "format 99 is not one this daemon reads"},
      {"garbage", "not a state file at all", "characters.state"},
  };
  for (const Case& k : cases) {
    SCOPED_TRACE(k.name);
    TempDir dir("animd-state");
    write_text_file(state_file(dir), k.bytes);
    DaemonProcess d({"--state-dir", dir.path().string()});
    ANIMD_START(d);
    auto c = connect_client(d);
    ASSERT_TRUE(c);
    EXPECT_TRUE(character_ids(*c).empty());
    EXPECT_EQ(set_aside_files(dir), 1u);
    const std::string log = d.log();
    EXPECT_NE(log.find("state: nothing restored"), std::string::npos) << d.log_tail();
    EXPECT_NE(log.find(k.logged), std::string::npos) << d.log_tail();
    EXPECT_NE(log.find("kept aside as"), std::string::npos) << d.log_tail();
    c.reset();
    EXPECT_EQ(d.stop(kWait), 0) << d.log_tail();
  }
}

// animd started as systemd starts a socket-activated service: the listening socket (bound by
// the test, as by the .socket unit) at fd 3, LISTEN_FDS=1, LISTEN_PID its own pid.
class ActivatedDaemon {
 public:
  ActivatedDaemon(int listen_fd, std::vector<std::string> args)
      : fd_(listen_fd), args_(std::move(args)) {}
  ~ActivatedDaemon() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  bool start() {
    const std::string port_file = (dir_.path() / "port").string();
    log_ = (dir_.path() / "animd.log").string();
    std::vector<std::string> argv_s = {animd_binary(), "--port-file", port_file, "--http-port",
                                       "-1"};
    argv_s.insert(argv_s.end(), args_.begin(), args_.end());
    std::vector<char*> argv;
    for (auto& a : argv_s) argv.push_back(a.data());
    argv.push_back(nullptr);
    // The environment with LISTEN_FDS=1 and LISTEN_PID, whose digits the child writes: between
    // fork and exec nothing allocates (the test's client threads may hold the heap's lock).
    std::vector<std::string> env_s;
    for (char** e = environ; *e; ++e)
      if (std::strncmp(*e, "LISTEN_", 7) != 0) env_s.emplace_back(*e);
    env_s.emplace_back("LISTEN_FDS=1");
    env_s.emplace_back("LISTEN_PID=" + std::string(24, '\0'));
    std::vector<char*> envp;
    for (auto& e : env_s) envp.push_back(e.data());
    envp.push_back(nullptr);
    char* pid_digits = env_s.back().data() + std::strlen("LISTEN_PID=");
    const pid_t pid = ::fork();
    if (pid < 0) return false;
    if (pid == 0) {
      std::to_chars(pid_digits, pid_digits + 23, ::getpid());
      const int log = ::open(log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (log >= 0) {
        ::dup2(log, 1);
        ::dup2(log, 2);
      }
      if (fd_ != 3) {
        ::dup2(fd_, 3);
        ::close(fd_);
      }
      ::fcntl(3, F_SETFD, 0);  // inherited across exec
      ::execve(argv[0], argv.data(), envp.data());
      ::_exit(127);
    }
    pid_ = pid;
    return eventually([&] { return file_size_or_0(port_file) > 0; }, kWait);
  }
  int stop() {
    ::kill(pid_, SIGTERM);
    int status = 0;
    const bool exited =
        eventually([&] { return ::waitpid(pid_, &status, WNOHANG) == pid_; }, kWait);
    if (!exited) return -1;
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  std::string log() const {
    std::ifstream f(log_, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), {});
  }

 private:
  int fd_;
  std::vector<std::string> args_;
  TempDir dir_{"animd-activated"};
  std::string log_;
  pid_t pid_ = -1;
};

std::unique_ptr<animclient::Client> connect_port(uint16_t port) {
  animclient::ClientOptions o;
  o.host = "127.0.0.1";
  o.port = port;
  o.request_timeout = kWait;
  o.connect_timeout = kWait;
  o.frame_queue_capacity = 4096;
  auto c = animclient::Client::connect(o);
  if (!c) return nullptr;
  return std::move(c.value());
}

uint32_t subscribe(animclient::Client& c, const std::vector<uint32_t>& ids) {
  Request r;
  for (uint32_t id : ids) r.mutable_subscribe()->add_character_ids(id);
  return call_ok(c, r).subscribe().subscription_id();
}

// The characters the upgrade hands over. A sanitizer build updates 2,000 characters slower
// than real time (its ticks overrun): it could not make up the time the restore takes, and its
// poses would lag the fleet clock by design. There the test hands over as many as it keeps up
// with; the release build hands over 2,000.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr uint32_t kUpgradeCharacters = 400;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
constexpr uint32_t kUpgradeCharacters = 400;
#else
constexpr uint32_t kUpgradeCharacters = 2000;
#endif
#else
constexpr uint32_t kUpgradeCharacters = 2000;
#endif

TEST(StateDir, UpgradeHandsTwoThousandCharactersAndThePassedSocketToTheNextProcess) {
  // The socket systemd's animd.socket would hold: bound once, passed to both processes.
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(fd, 128), 0);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  const uint16_t port = ntohs(addr.sin_port);
  TempDir dir("animd-state");
  const std::vector<std::string> common = {"--state-dir", dir.path().string(), "--max-characters",
                                           "5000"};

  auto args_old = common;
  args_old.insert(args_old.end(), {"--spawn-builtin", std::to_string(kUpgradeCharacters)});
  ActivatedDaemon old_process(fd, args_old);
  ASSERT_TRUE(old_process.start()) << old_process.log();
  EXPECT_NE(old_process.log().find("(socket passed by systemd)"), std::string::npos);
  auto c = connect_port(port);
  ASSERT_TRUE(c) << old_process.log();
  const std::vector<uint32_t> before = character_ids(*c);
  ASSERT_EQ(before.size(), kUpgradeCharacters);
  const std::vector<uint32_t> watched = {before[0], before[kUpgradeCharacters / 2],
                                         before[kUpgradeCharacters - 1]};
  const uint32_t sub = subscribe(*c, watched);
  ASSERT_GT(sub, 0u);
  const uint64_t seen_before = collect_frames(*c, sub, current_tick(*c) + 2).rbegin()->first;
  const uint64_t first_update = first_tick(*c);  // --spawn-builtin: playing walk from it

  EXPECT_EQ(old_process.stop(), 0) << old_process.log();
  EXPECT_NE(old_process.log().find("state: " + std::to_string(kUpgradeCharacters) +
                                   " characters saved to"),
            std::string::npos)
      << old_process.log();
  // Between the two processes a client connects: it waits in the socket's backlog.
  auto waiting = connect_port(port);
  ASSERT_TRUE(waiting);
  // The new binary takes a while to come (30 ticks of fleet time to catch up).
  std::this_thread::sleep_for(std::chrono::milliseconds(500));

  ActivatedDaemon new_process(fd, common);
  ASSERT_TRUE(new_process.start()) << new_process.log();
  // The subscriber reconnects (its connection ended with the old process) and resubscribes.
  c = connect_port(port);
  ASSERT_TRUE(c) << new_process.log();
  EXPECT_EQ(character_ids(*c), before) << new_process.log();
  EXPECT_EQ(character_ids(*waiting), before);
  const uint32_t again = subscribe(*c, watched);
  ASSERT_GT(again, 0u);
  const auto frames = collect_frames(*c, again, current_tick(*c) + 2);
  ASSERT_FALSE(frames.empty());
  EXPECT_GT(frames.begin()->first, seen_before);
  const auto& [tick, frame] = *frames.rbegin();
  ASSERT_EQ(frame.characters_size(), 3);
  for (const auto& ch : frame.characters()) {
    SCOPED_TRACE(ch.character_id());
    expect_pose_continues(*c, ch.character_id(), "walk", first_update, tick);
  }
  c.reset();
  waiting.reset();
  EXPECT_EQ(new_process.stop(), 0) << new_process.log();
  ::close(fd);
}

}  // namespace state_dir_test
}  // namespace animtest
