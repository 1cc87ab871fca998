#pragma once
// Headless Chromium driven over the DevTools protocol by a Beast WebSocket client (no node,
// no driver), for the tests that load pages from a real daemon: the browser (an ephemeral
// DevTools port, its own profile, killed with its helpers), a session, a page to evaluate
// scripts in and take screenshots of.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

#include <stb_image.h>
#include <boost/beast/core/detail/base64.hpp>
#include <nlohmann/json.hpp>

#include "ws_support.h"

namespace browsertest {

namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace std::chrono_literals;
namespace asio = wstest::asio;
namespace beast = wstest::beast;
namespace websocket = wstest::websocket;
using wstest::tcp;

inline std::string find_chromium() {
  if (const char* env = std::getenv("ANIMD_CHROMIUM"); env && *env) return env;
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  size_t at = 0;
  while (at <= dirs.size()) {
    const size_t end = std::min(dirs.find(':', at), dirs.size());
    for (const char* name : {"chromium", "chromium-browser"}) {
      const fs::path p = fs::path(dirs.substr(at, end - at)) / name;
      if (::access(p.c_str(), X_OK) == 0) return p.string();
    }
    at = end + 1;
  }
  return {};
}

// Headless Chromium with its DevTools endpoint on an ephemeral port.
class Browser {
 public:
  Browser(const std::string& binary, const fs::path& dir) : dir_(dir) {
    const std::string profile = (dir / "profile").string();
    std::vector<std::string> args = {binary,
                                     "--headless",
                                     "--no-sandbox",
                                     "--use-angle=swiftshader",
                                     "--enable-unsafe-swiftshader",
                                     "--disable-background-networking",
                                     "--disable-component-update",
                                     "--disable-sync",
                                     "--no-first-run",
                                     "--disable-dev-shm-usage",
                                     "--disable-background-timer-throttling",
                                     "--disable-backgrounding-occluded-windows",
                                     "--disable-renderer-backgrounding",
                                     "--remote-debugging-port=0",
                                     "--remote-allow-origins=*",
                                     "--window-size=800,600",
                                     "--user-data-dir=" + profile,
                                     "about:blank"};
    pid_ = ::fork();
    if (pid_ == 0) {
      const int fd = ::open((dir / "chromium.log").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd >= 0) {
        ::dup2(fd, 1);
        ::dup2(fd, 2);
      }
      ::setpgid(0, 0);  // its helper processes go with it
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    // DevToolsActivePort: the port, then the browser's WebSocket path.
    const auto deadline = std::chrono::steady_clock::now() + 60s;
    while (std::chrono::steady_clock::now() < deadline) {
      std::ifstream f(fs::path(profile) / "DevToolsActivePort");
      int port = 0;
      std::string path;
      if (f >> port >> path && port > 0) {
        port_ = static_cast<uint16_t>(port);
        path_ = path;
        return;
      }
      std::this_thread::sleep_for(50ms);
    }
  }
  ~Browser() {
    if (pid_ > 0) {
      ::kill(-pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  bool ok() const { return port_ != 0; }
  uint16_t port() const { return port_; }
  const std::string& path() const { return path_; }
  std::string log() const {
    std::ifstream f(dir_ / "chromium.log");
    std::string s((std::istreambuf_iterator<char>(f)), {});
    return s.size() > 3000 ? s.substr(s.size() - 3000) : s;
  }

 private:
  fs::path dir_;
  pid_t pid_ = -1;
  uint16_t port_ = 0;
  std::string path_;
};

// A DevTools protocol session on one page (flattened target session).
class DevTools {
 public:
  DevTools(uint16_t port, const std::string& path) : ws_(io_) {
    beast::error_code ec;
    ws_.next_layer().connect({asio::ip::make_address("127.0.0.1"), port}, ec);
    timeval tv{30, 0};
    ::setsockopt(ws_.next_layer().native_handle(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    if (!ec) ws_.handshake("127.0.0.1:" + std::to_string(port), path, ec);
    ws_.read_message_max(64u << 20);
    ok_ = !ec;
  }
  bool ok() const { return ok_; }

  // Sends a command and returns its result (events in between are skipped); null on error.
  json call(const std::string& method, json params = json::object(),
            const std::string& session = {}) {
    const int id = ++next_id_;
    json msg = {{"id", id}, {"method", method}, {"params", std::move(params)}};
    if (!session.empty()) msg["sessionId"] = session;
    beast::error_code ec;
    ws_.text(true);
    ws_.write(asio::buffer(msg.dump()), ec);
    if (ec) return nullptr;
    for (int i = 0; i < 100000; ++i) {
      beast::flat_buffer buf;
      ws_.read(buf, ec);
      if (ec) return nullptr;
      json reply = json::parse(beast::buffers_to_string(buf.data()), nullptr, false);
      if (reply.is_object() && reply.value("id", 0) == id) {
        if (reply.contains("error")) {
          last_error_ = reply["error"].dump();
          return nullptr;
        }
        return reply["result"];
      }
    }
    return nullptr;
  }
  const std::string& last_error() const { return last_error_; }

 private:
  asio::io_context io_;
  websocket::stream<tcp::socket> ws_;
  bool ok_ = false;
  int next_id_ = 0;
  std::string last_error_;
};

struct Image {
  int width = 0, height = 0;
  std::vector<uint8_t> rgb;
  // The character's pixels: the viewer draws character 1 in a lit blue (renderer.js
  // COLORS[1]); the background, the grid and the text are grey (blue barely above red).
  bool character(size_t i) const { return int(rgb[3 * i + 2]) - int(rgb[3 * i]) > 30; }
};

inline Image decode_png(const std::string& base64) {
  std::string bytes(beast::detail::base64::decoded_size(base64.size()), '\0');
  const auto n = beast::detail::base64::decode(bytes.data(), base64.data(), base64.size());
  bytes.resize(n.first);
  Image img;
  int channels = 0;
  unsigned char* data =
      stbi_load_from_memory(reinterpret_cast<const unsigned char*>(bytes.data()),
                            static_cast<int>(bytes.size()), &img.width, &img.height, &channels, 3);
  if (!data) return img;
  img.rgb.assign(data, data + size_t(img.width) * img.height * 3);
  stbi_image_free(data);
  return img;
}

class Page {
 public:
  Page(DevTools& dt, std::string session) : dt_(dt), session_(std::move(session)) {}
  // Evaluates `expression` (awaiting a promise) in the page; its value must be a JSON string.
  json evaluate(const std::string& expression) {
    auto r = dt_.call("Runtime.evaluate",
                      {{"expression", expression}, {"returnByValue", true}, {"awaitPromise", true}},
                      session_);
    if (r.is_null() || !r.contains("result") || !r["result"].contains("value") ||
        !r["result"]["value"].is_string()) {
      last_error_ = r.is_null() ? dt_.last_error() : r.dump().substr(0, 2000);
      return nullptr;
    }
    return json::parse(r["result"]["value"].get<std::string>(), nullptr, false);
  }
  json status() {
    return evaluate("JSON.stringify(window.animdViewer ? animdViewer.status() : null)");
  }
  const std::string& last_error() const { return last_error_; }
  // Polls status() until `done` holds (bounded: a broken page fails, it does not hang).
  bool wait_for(const std::function<bool(const json&)>& done, json* last) {
    const auto deadline = std::chrono::steady_clock::now() + 90s;
    while (std::chrono::steady_clock::now() < deadline) {
      *last = status();
      if (last->is_object() && done(*last)) return true;
      std::this_thread::sleep_for(100ms);
    }
    return false;
  }
  Image screenshot() {
    auto r = dt_.call("Page.captureScreenshot", {{"format", "png"}}, session_);
    if (r.is_null() || !r.contains("data")) return {};
    return decode_png(r["data"].get<std::string>());
  }

 private:
  DevTools& dt_;
  std::string session_;
  std::string last_error_;
};

inline std::string base64(const std::string& bytes) {
  std::string out(beast::detail::base64::encoded_size(bytes.size()), '\0');
  out.resize(beast::detail::base64::encode(out.data(), bytes.data(), bytes.size()));
  return out;
}

}  // namespace browsertest
