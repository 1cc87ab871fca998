#include "base/durable_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <system_error>

#include <boost/crc.hpp>

namespace animd {

namespace {

constexpr char kMagic[8] = {'A', 'N', 'I', 'M', 'D', 'U', 'R', '1'};
constexpr size_t kHeaderBytes = sizeof kMagic + 8 + 4;

uint32_t crc32_of(std::string_view bytes) {
  boost::crc_32_type crc;
  crc.process_bytes(bytes.data(), bytes.size());
  return crc.checksum();
}

void put_le(std::string& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint64_t get_le(const char* p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= uint64_t(static_cast<unsigned char>(p[i])) << (8 * i);
  return v;
}

anim::Status os_error(const std::string& what, const std::filesystem::path& path) {
  return anim::Status(anim::StatusCode::kUnavailable,
                      what + " " + path.string() + ": " + std::strerror(errno));
}

// Closes a descriptor on every path out.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

bool write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

}  // namespace

anim::Status write_durable(const std::filesystem::path& path, std::string_view payload) {
  std::string header(kMagic, sizeof kMagic);
  put_le(header, payload.size(), 8);
  put_le(header, crc32_of(payload), 4);
  const std::filesystem::path tmp = path.string() + ".tmp";
  {
    Fd f{::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)};
    if (f.fd < 0) return os_error("open", tmp);
    if (!write_all(f.fd, header) || !write_all(f.fd, payload) || ::fsync(f.fd) != 0) {
      anim::Status s = os_error("write", tmp);
      ::unlink(tmp.c_str());
      return s;
    }
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    anim::Status s = os_error("rename to", path);
    ::unlink(tmp.c_str());
    return s;
  }
  const std::filesystem::path dir =
      path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  Fd d{::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
  if (d.fd < 0 || ::fsync(d.fd) != 0) return os_error("fsync the directory of", path);
  return anim::Status::ok();
}

anim::Expected<std::string> read_durable(const std::filesystem::path& path, uint64_t max_bytes) {
  Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (f.fd < 0) {
    if (errno == ENOENT) return anim::not_found("no file " + path.string());
    return os_error("open", path);
  }
  struct stat st {};
  if (::fstat(f.fd, &st) != 0) return os_error("stat", path);
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  const std::string name = path.string();
  if (size < kHeaderBytes)
    return anim::data_loss(name + ": " + std::to_string(size) +
                           " bytes, shorter than a durable file's header");
  if (size - kHeaderBytes > max_bytes)
    return anim::Status(anim::StatusCode::kResourceExhausted,
                        name + ": " + std::to_string(size) + " bytes, more than the limit of " +
                            std::to_string(max_bytes));
  std::string bytes(size, '\0');
  size_t got = 0;
  while (got < size) {
    const ssize_t n = ::read(f.fd, bytes.data() + got, size - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return os_error("read", path);
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  if (got != size) return anim::data_loss(name + ": the file shrank while it was read");
  if (std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
    return anim::data_loss(name + ": not an animd durable file (bad magic)");
  const uint64_t length = get_le(bytes.data() + sizeof kMagic, 8);
  const uint32_t crc = static_cast<uint32_t>(get_le(bytes.data() + sizeof kMagic + 8, 4));
  if (length != size - kHeaderBytes)
    return anim::data_loss(name + ": the header says " + std::to_string(length) +
                           " payload bytes, the file has " + std::to_string(size - kHeaderBytes) +
                           " (cut short or appended to)");
  std::string payload = bytes.substr(kHeaderBytes);
  if (crc32_of(payload) != crc) return anim::data_loss(name + ": checksum mismatch (damaged)");
  return payload;
}

std::filesystem::path set_aside(const std::filesystem::path& path) {
  const auto now = std::chrono::duration_cast<std::chrono::seconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
  std::filesystem::path target = path.string() + ".bad-" + std::to_string(now);
  std::error_code ec;
  for (int k = 1; std::filesystem::exists(target, ec) && k < 1000; ++k)
    target = path.string() + ".bad-" + std::to_string(now) + "-" + std::to_string(k);
  std::filesystem::rename(path, target, ec);
  return ec ? std::filesystem::path() : target;
}

}  // namespace animd
