#pragma once
// What the animd-client (npm package, client/js) tests share: finding node and npm, the
// package's build-tree copy that the ctest fixture js_client_install made (`npm ci`), the
// C++ codec's frames for the JavaScript decoder, and the package's static file server
// (test/serve.mjs) as a child process on 127.0.0.1.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "anim/animator.h"
#include "anim/loaders/builtin_character.h"
#include "codec_harness.h"
#include "skeleton_message.h"

namespace jstest {

namespace fs = std::filesystem;

// The first of `names` on PATH, as an absolute path; empty when none.
inline std::string find_on_path(std::initializer_list<const char*> names) {
  const char* path = std::getenv("PATH");
  const std::string dirs = path ? path : "/usr/bin:/bin";
  for (size_t at = 0; at <= dirs.size();) {
    const size_t end = std::min(dirs.find(':', at), dirs.size());
    for (const char* name : names) {
      const fs::path p = fs::path(dirs.substr(at, end - at)) / name;
      if (::access(p.c_str(), X_OK) == 0) return p.string();
    }
    at = end + 1;
  }
  return {};
}

inline std::string node() {
  return find_on_path({"node", "nodejs"});
}

// The package's copy in the build tree, or why it cannot be used.
inline fs::path package_dir() {
  return ANIMD_JS_CLIENT_DIR;
}
inline std::string package_missing() {
  if (node().empty()) return "no node on PATH (Debian package nodejs; deploy/install-deps.sh)";
  if (!fs::exists(package_dir() / "node_modules" / "three") ||
      !fs::exists(package_dir() / "src" / "descriptor.js"))
    return "the animd-client package is not installed in " + package_dir().string() +
           " (the ctest fixture js_client_install runs npm ci; it needs npm and the registry)";
  return {};
}

// The built-in character walking with an additive layer and root motion, 40 frames of the
// C++ codec (a key frame, deltas, a key frame again at 20), in the chunk file format of
// client/js/test/chunks.mjs: the SkeletonData first. Returns the quantized poses and roots
// the codec's own receiver holds.
struct CodecFrames {
  animcodec::Skeleton skeleton;
  std::vector<std::vector<animcodec::QJoint>> poses;
  std::vector<animcodec::QRoot> roots;
};

inline void put_chunk(std::ofstream& f, const std::string& bytes) {
  const uint32_t n = static_cast<uint32_t>(bytes.size());
  const char le[4] = {char(n & 0xff), char((n >> 8) & 0xff), char((n >> 16) & 0xff), char(n >> 24)};
  f.write(le, 4);
  f.write(bytes.data(), n);
}

inline CodecFrames write_codec_frames(const fs::path& path) {
  CodecFrames out;
  const anim::Asset asset = anim::make_builtin_character();
  const anim::v1::SkeletonData data =
      codectest::skeleton_data(asset.skeleton, codectest::codec_skeleton(asset).layout);
  if (!animcodec::skeleton_from_proto(data, out.skeleton).empty()) return out;
  anim::Animator animator(asset.skeleton, asset.clips);
  (void)animator.play(asset.find_clip("walk"));
  anim::AdditiveLayerDesc lean;
  lean.clip = asset.find_clip("lean");
  lean.weight = 0.5f;
  (void)animator.add_layer(lean);
  fs::create_directories(path.parent_path());
  std::ofstream file(path, std::ios::binary);
  put_chunk(file, data.SerializeAsString());
  codectest::Stream stream(out.skeleton);
  std::vector<animcodec::QJoint> pose;
  for (int f = 0; f < 40; ++f) {
    (void)animator.update(1.0f / 60.0f);
    codectest::quantize_pose(out.skeleton.layout, animator.local_pose().locals, pose);
    const animcodec::QRoot root = animcodec::quantize_root(
        {0.02f * f, 0.0f, -0.5f}, glm::angleAxis(0.01f * f, glm::vec3(0, 1, 0)), {1, 1, 1});
    const size_t n = stream.push(pose, root, f == 20);
    put_chunk(file, std::string(reinterpret_cast<const char*>(stream.buffer.data()), n));
    out.poses.push_back(stream.recv[0]);
    out.roots.push_back(stream.recv_root[0]);
  }
  return out;
}

// client/js/test/serve.mjs: the package folder at /, `assets` at /assets/; port() is 0 when
// it did not start. Killed with the object.
class StaticServer {
 public:
  StaticServer(const fs::path& assets, const fs::path& log) {
    int pipe_fds[2];
    if (::pipe(pipe_fds) != 0) return;
    const std::string node_bin = node();
    const std::string script = (package_dir() / "test" / "serve.mjs").string();
    const std::string assets_arg = assets.string();
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(pipe_fds[1], 1);
      const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd >= 0) ::dup2(fd, 2);
      ::close(pipe_fds[0]);
      ::execl(node_bin.c_str(), node_bin.c_str(), script.c_str(), assets_arg.c_str(), nullptr);
      ::_exit(127);
    }
    ::close(pipe_fds[1]);
    // "port N\n", bounded by a receive deadline.
    std::string line;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    ::fcntl(pipe_fds[0], F_SETFL, O_NONBLOCK);
    while (std::chrono::steady_clock::now() < deadline && line.find('\n') == std::string::npos) {
      char buf[64];
      const ssize_t n = ::read(pipe_fds[0], buf, sizeof buf);
      if (n > 0)
        line.append(buf, size_t(n));
      else if (n == 0)
        break;
      else
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ::close(pipe_fds[0]);
    if (line.rfind("port ", 0) == 0) port_ = static_cast<uint16_t>(std::atoi(line.c_str() + 5));
  }
  ~StaticServer() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  uint16_t port() const { return port_; }

 private:
  pid_t pid_ = -1;
  uint16_t port_ = 0;
};

}  // namespace jstest
