// Buffer/image URI confinement for the glTF loader. See gltf_uri_policy.h.
#include "gltf_uri_policy.h"

#include <cctype>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <system_error>

namespace anim::gltf {

namespace fs = std::filesystem;

namespace {

constexpr const char* kUploadRule =
    "external URI not allowed in an upload (only base64 data: URIs)";
constexpr size_t kMaxParserMessage = 400;

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The URI's scheme ("file", "http", ...) per RFC 3986 (ALPHA *(ALPHA / DIGIT / "+" / "-" /
// ".") ":"), or "" for a relative reference.
std::string scheme_of(std::string_view uri) {
  if (uri.empty() || !std::isalpha(static_cast<unsigned char>(uri[0]))) return "";
  for (size_t i = 1; i < uri.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(uri[i]);
    if (c == ':') return std::string(uri.substr(0, i));
    if (!std::isalnum(c) && c != '+' && c != '-' && c != '.') return "";
  }
  return "";
}

// True when `p` equals `root` or lies below it, comparing whole components (both normal).
bool is_within(const fs::path& p, const fs::path& root) {
  auto q = p.begin();
  for (auto r = root.begin(); r != root.end(); ++r, ++q) {
    if (r->empty()) continue;  // a trailing separator on the root
    if (q == p.end() || *q != *r) return false;
  }
  return true;
}

}  // namespace

Expected<UriPolicy> file_policy(const fs::path& file, const std::string& uri_root) {
  std::error_code ec;
  UriPolicy policy;
  policy.allow_files = true;
  policy.base_dir = fs::canonical(fs::absolute(file, ec).parent_path(), ec);
  if (ec) return not_found("the file's folder cannot be resolved");
  if (uri_root.empty()) {
    policy.root = policy.base_dir;
  } else {
    policy.root = fs::canonical(uri_root, ec);
    if (ec) return failed_precondition("the URI root does not exist");
    if (!is_within(policy.base_dir, policy.root))
      return invalid_argument("the file lies outside its URI root");
  }
  return policy;
}

std::optional<std::string> decode_uri(std::string_view uri) {
  std::string out;
  out.reserve(uri.size());
  for (size_t i = 0; i < uri.size(); ++i) {
    if (uri[i] == '+') {
      out += ' ';  // as tinygltf's decoder does: this is the name it will open
    } else if (uri[i] == '%') {
      if (i + 2 >= uri.size()) return std::nullopt;
      const int hi = hex_value(uri[i + 1]);
      const int lo = hex_value(uri[i + 2]);
      if (hi < 0 || lo < 0) return std::nullopt;
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else {
      out += uri[i];
    }
  }
  return out;
}

Status check_uri(const UriPolicy& policy, const std::string& uri, const std::string& owner,
                 bool must_exist) {
  if (uri.empty() || tinygltf::IsDataURI(uri)) return Status::ok();
  if (!policy.allow_files) return invalid_argument(owner + ": " + kUploadRule);
  if (const std::string scheme = scheme_of(uri); !scheme.empty()) {
    const std::string shown = scheme.size() <= 16 ? scheme : scheme.substr(0, 16) + "...";
    return invalid_argument(owner + " URI has scheme '" + shown +
                            ":'; only base64 data: URIs and relative paths are allowed");
  }
  const std::optional<std::string> decoded = decode_uri(uri);
  if (!decoded) return invalid_argument(owner + " URI has a malformed percent escape");
  if (decoded->find('\0') != std::string::npos)
    return invalid_argument(owner + " URI contains a NUL byte");
  if (!decoded->empty() && (*decoded)[0] == '/')
    return invalid_argument(owner + " URI is an absolute path; URIs must be relative to the file");
  // Lexically first, so that a "../" escape is refused without probing the path it names.
  const fs::path joined = (policy.base_dir / *decoded).lexically_normal();
  if (!is_within(joined, policy.root))
    return invalid_argument(owner + " URI escapes the asset root");
  std::error_code ec;
  const fs::path real = fs::canonical(joined, ec);
  if (ec) {
    if (!must_exist) return Status::ok();  // a missing texture does not matter
    return not_found(owner + " URI names a file that does not exist in the asset root");
  }
  if (!is_within(real, policy.root))
    return invalid_argument(owner + " URI escapes the asset root (through a symlink)");
  if (must_exist && !fs::is_regular_file(real, ec))
    return invalid_argument(owner + " URI does not name a regular file");
  return Status::ok();
}

Status check_document_uris(const UriPolicy& policy, std::span<const uint8_t> json) {
  const nlohmann::json doc =
      nlohmann::json::parse(json.begin(), json.end(), nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) return Status::ok();

  const auto check_list = [&](const char* key, const char* owner, bool must_exist) -> Status {
    const auto list = doc.find(key);
    if (list == doc.end() || !list->is_array()) return Status::ok();
    for (size_t i = 0; i < list->size(); ++i) {
      const nlohmann::json& item = (*list)[i];
      if (!item.is_object()) continue;
      const auto uri = item.find("uri");
      if (uri == item.end() || !uri->is_string()) continue;
      if (Status s = check_uri(policy, uri->get<std::string>(),
                               std::string(owner) + " " + std::to_string(i), must_exist);
          !s)
        return s;
    }
    return Status::ok();
  };
  if (Status s = check_list("buffers", "buffer", /*must_exist=*/true); !s) return s;
  return check_list("images", "image", /*must_exist=*/false);
}

tinygltf::FsCallbacks UriGate::callbacks() {
  tinygltf::FsCallbacks fs;
  fs.FileExists = &UriGate::file_exists;
  fs.ExpandFilePath = &UriGate::expand_file_path;
  fs.ReadWholeFile = &UriGate::read_whole_file;
  fs.WriteWholeFile = &UriGate::write_whole_file;
  fs.user_data = this;
  return fs;
}

std::optional<fs::path> UriGate::admit(const std::string& path) {
  const auto refuse = [this](const std::string& why) {
    if (refusal_.empty()) refusal_ = why;
    return std::nullopt;
  };
  if (!policy_.allow_files) return refuse(std::string("a buffer URI: ") + kUploadRule);
  if (path.empty() || path.find('\0') != std::string::npos)
    return refuse("a buffer URI is malformed");
  // tinygltf asks for base_dir/uri first, then ./uri (relative to the process's working
  // directory) when the first is missing. The fallback is never admitted, and is not a
  // refusal of its own: the first request already decided.
  if (path[0] != '/') return std::nullopt;
  if (!is_within(fs::path(path).lexically_normal(), policy_.root))
    return refuse("a buffer URI escapes the asset root");
  std::error_code ec;
  fs::path real = fs::canonical(path, ec);
  if (ec) return std::nullopt;  // missing: tinygltf reports "File not found"
  if (!is_within(real, policy_.root))
    return refuse("a buffer URI escapes the asset root (through a symlink)");
  if (!fs::is_regular_file(real, ec)) return refuse("a buffer URI does not name a regular file");
  return real;
}

bool UriGate::file_exists(const std::string& path, void* self) {
  return static_cast<UriGate*>(self)->admit(path).has_value();
}

std::string UriGate::expand_file_path(const std::string& path, void*) {
  return path;  // no '~' or variable expansion: a URI names a file, nothing more
}

bool UriGate::read_whole_file(std::vector<unsigned char>* out, std::string* err,
                              const std::string& path, void* self) {
  const std::optional<fs::path> real = static_cast<UriGate*>(self)->admit(path);
  if (!real) {
    if (err) *err = "not readable";
    return false;
  }
  std::ifstream in(*real, std::ios::binary);
  if (!in) {
    if (err) *err = "cannot open";
    return false;
  }
  out->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  if (in.bad()) {
    if (err) *err = "read error";
    return false;
  }
  return true;
}

bool UriGate::write_whole_file(std::string* err, const std::string&,
                               const std::vector<unsigned char>&, void* self) {
  static_cast<UriGate*>(self)->refusal_ = "the loader never writes files";
  if (err) *err = "writing is not allowed";
  return false;
}

std::string sanitize_parser_message(std::string message, const UriPolicy& policy) {
  if (!policy.base_dir.empty()) {
    std::string prefix = policy.base_dir.string();
    if (prefix.back() != '/') prefix += '/';
    for (size_t at; (at = message.find(prefix)) != std::string::npos;)
      message.erase(at, prefix.size());
  }
  for (char& c : message)
    if (c == '\n') c = ';';
  while (!message.empty() && (message.back() == ';' || message.back() == ' ')) message.pop_back();
  if (message.size() > kMaxParserMessage) message = message.substr(0, kMaxParserMessage) + "...";
  return message;
}

}  // namespace anim::gltf
