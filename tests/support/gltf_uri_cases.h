#pragma once
// Crafted glTF files whose buffer or image URI tries to reach a file it was not given, and the
// folder layout they are tried against. Shared by the core test (tests/unit/
// gltf_uri_safety_test.cpp) and the daemon round trip (tests/integration/
// asset_confinement_test.cpp).
//
// Layout, made fresh under `dir` by make_confinement_tree():
//   outside/secret.bin           kSecretSize bytes starting "TOPSECRET"; never to be read
//   root/                        the asset root
//   root/models/ok.bin           a legitimate buffer: 64 bytes, one identity matrix
//   root/models/link.bin         symlink -> ../../outside/secret.bin (escapes by symlink)
//   root/shared/shared.bin       a legitimate buffer reached as "../shared/shared.bin"
// Every crafted file has one joint whose inverseBindMatrices accessor reads buffer 0, so a
// loader that followed an escaping URI would hand the secret back as matrix floats.

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gltf_test_files.h"

namespace animtest {

inline constexpr size_t kSecretSize = 1221;  // an odd size, searched for in messages

struct ConfinementTree {
  std::filesystem::path dir;     // the whole tree (host path: must appear in no message)
  std::filesystem::path root;    // dir/root, the asset root
  std::filesystem::path models;  // dir/root/models
  std::filesystem::path secret;  // dir/outside/secret.bin
};

inline void write_bytes(const std::filesystem::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// 64 bytes: a column-major identity matrix of floats.
inline std::string identity_matrix_bytes() {
  const float m[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  return std::string(reinterpret_cast<const char*>(m), sizeof m);
}

inline ConfinementTree make_confinement_tree(const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  ConfinementTree t{dir, dir / "root", dir / "root" / "models", dir / "outside" / "secret.bin"};
  fs::remove_all(dir);
  fs::create_directories(dir / "outside");
  fs::create_directories(t.models);
  fs::create_directories(t.root / "shared");
  std::string secret = "TOPSECRET";
  secret.resize(kSecretSize, 'S');
  write_bytes(t.secret, secret);
  write_bytes(t.models / "ok.bin", identity_matrix_bytes());
  write_bytes(t.root / "shared" / "shared.bin", identity_matrix_bytes());
  fs::create_symlink("../../outside/secret.bin", t.models / "link.bin");
  return t;
}

// One joint, a skin whose inverse bind matrix is accessor 0 (MAT4 at buffer 0 offset 0), and
// a mesh-less scene. `buffer` is buffers[0]; `images` (if not null) is the images array.
inline nlohmann::json one_joint_document(const nlohmann::json& buffer,
                                         const nlohmann::json& images = nullptr) {
  nlohmann::json d;
  d["asset"] = {{"version", "2.0"}};
  d["scene"] = 0;
  d["scenes"] = nlohmann::json::array({{{"nodes", {0}}}});
  d["nodes"] = nlohmann::json::array({{{"name", "Root"}}});
  d["skins"] = nlohmann::json::array({{{"joints", {0}}, {"inverseBindMatrices", 0}}});
  d["bufferViews"] =
      nlohmann::json::array({{{"buffer", 0}, {"byteOffset", 0}, {"byteLength", 64}}});
  d["accessors"] = nlohmann::json::array(
      {{{"bufferView", 0}, {"componentType", kFloat}, {"count", 1}, {"type", "MAT4"}}});
  d["buffers"] = nlohmann::json::array({buffer});
  if (!images.is_null()) d["images"] = images;
  return d;
}

// buffers[0] naming `uri`. byteLength 1 on purpose: a loader that read the secret would
// report a size mismatch with the secret's real size, which must never be echoed.
inline nlohmann::json buffer_with_uri(const std::string& uri, size_t byte_length = 1) {
  return {{"uri", uri}, {"byteLength", byte_length}};
}

// A legitimate buffer 0 embedded as a data: URI.
inline nlohmann::json embedded_buffer() {
  return {{"uri", "data:application/octet-stream;base64," + base64(identity_matrix_bytes())},
          {"byteLength", 64}};
}

// .glb bytes of the JSON text `json` with `bin` as its BIN chunk (none when empty).
inline std::string glb_of_text(std::string json, const std::string& bin = "") {
  while (json.size() % 4) json.push_back(' ');
  std::string b = bin;
  while (b.size() % 4) b.push_back('\0');
  std::string out;
  auto u32 = [&out](uint32_t v) { out.append(reinterpret_cast<const char*>(&v), 4); };
  out += "glTF";
  u32(2);
  u32(static_cast<uint32_t>(12 + 8 + json.size() + (b.empty() ? 0 : 8 + b.size())));
  u32(static_cast<uint32_t>(json.size()));
  u32(0x4E4F534A);  // JSON
  out += json;
  if (!b.empty()) {
    u32(static_cast<uint32_t>(b.size()));
    u32(0x004E4942);  // BIN
    out += b;
  }
  return out;
}

// .glb bytes of `doc` with `bin` as its BIN chunk (none when empty).
inline std::string glb_of(const nlohmann::json& doc, const std::string& bin = "") {
  return glb_of_text(doc.dump(), bin);
}

// One escaping URI, as seen from a file in root/models/.
struct EscapeCase {
  std::string name;      // for test output
  std::string uri;       // as written in the file
  std::string expected;  // a phrase the by-path error must contain
};

// Relative, absolute, file:, percent-encoded and symlinked escapes.
inline std::vector<EscapeCase> escape_cases(const ConfinementTree& t) {
  const std::string abs = t.secret.string();
  return {
      {"relative", "../../outside/secret.bin", "escapes the asset root"},
      {"relative_deep", "../../../../../../../../etc/passwd", "escapes the asset root"},
      {"absolute", abs, "is an absolute path"},
      {"absolute_passwd", "/etc/passwd", "is an absolute path"},
      {"file_scheme", "file://" + abs, "scheme 'file:'"},
      {"file_scheme_passwd", "file:///etc/passwd", "scheme 'file:'"},
      {"http_scheme", "http://127.0.0.1:1/secret.bin", "scheme 'http:'"},
      {"percent_dots", "%2e%2e/%2E%2E/outside/secret.bin", "escapes the asset root"},
      {"percent_slashes", "%2e%2e%2f%2e%2e%2foutside%2fsecret.bin", "escapes the asset root"},
      {"percent_absolute", "%2Fetc%2Fpasswd", "is an absolute path"},
      {"symlink", "link.bin", "through a symlink"},
  };
}

// Words no error message may contain: the host folder of the tree, the secret's contents and
// size, and the contents of /etc/passwd.
inline std::vector<std::string> forbidden_in_messages(const ConfinementTree& t) {
  return {t.dir.string(),   "TOPSECRET", std::to_string(kSecretSize), "root:x:", "/tmp/",
          "requestedBytes", "but got"};
}

}  // namespace animtest
