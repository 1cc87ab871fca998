#include "persist/asset_journal.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <vector>

#include <spdlog/spdlog.h>
#include <boost/crc.hpp>

#include "assets/asset_loading.h"
#include "base/durable_file.h"
#include "base/thread_name.h"
#include "persist/journal_convert.h"

namespace animd {

namespace {

namespace fs = std::filesystem;

constexpr char kMagic[8] = {'A', 'N', 'I', 'M', 'D', 'J', 'N', 'L'};
// Without tokens an owner key is a connection's (top bit): it means nothing to another process.
constexpr uint64_t kConnectionOwnerBit = uint64_t{1} << 63;

uint32_t crc32_of(const std::string& bytes) {
  boost::crc_32_type crc;
  crc.process_bytes(bytes.data(), bytes.size());
  return crc.checksum();
}

template <typename T>
void put(std::string& out, T v) {
  char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));  // little-endian hosts (x86-64, arm64)
  out.append(b, sizeof(T));
}

template <typename T>
T get(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

bool write_all(int fd, const std::string& bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

// The whole file replaced by `content`: a temporary file, fsync, rename, fsync of the folder.
anim::Status replace_file(const fs::path& path, const std::string& content) {
  const fs::path tmp = path.string() + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0)
    return anim::Status(anim::StatusCode::kUnavailable, tmp.string() + ": " + std::strerror(errno));
  const bool ok = write_all(fd, content) && ::fsync(fd) == 0;
  ::close(fd);
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    ::unlink(tmp.c_str());
    return anim::Status(anim::StatusCode::kUnavailable,
                        path.string() + ": cannot write: " + std::strerror(errno));
  }
  const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  const int d = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (d >= 0) {
    ::fsync(d);
    ::close(d);
  }
  return {};
}

// What a replayed command's result was.
class ResultKeeper final : public ResultSink {
 public:
  void deliver_result(const ResultHeader&, const anim::Expected<WorldResult>& result) override {
    status = result ? anim::Status() : result.error();
  }
  anim::Status status;
};

std::string kind_of(const anim::v1::Request& r) {
  const auto* field = r.GetDescriptor()->FindFieldByNumber(static_cast<int>(r.command_case()));
  return field ? field->name() : std::string("an empty request");
}

}  // namespace

std::string journal_header() {
  std::string out(kMagic, sizeof(kMagic));
  put<uint32_t>(out, kAssetJournalFormat);
  return out;
}

std::string journal_record(uint64_t owner, const anim::v1::Request& request) {
  std::string payload;
  put<uint64_t>(payload, owner);
  request.AppendToString(&payload);
  std::string out;
  put<uint32_t>(out, static_cast<uint32_t>(payload.size()));
  put<uint32_t>(out, crc32_of(payload));
  return out + payload;
}

AssetJournal::AssetJournal(fs::path path, Metrics& metrics)
    : path_(std::move(path)), metrics_(metrics) {
  thread_ = std::thread([this] {
    name_this_thread("animd-journal");
    run();
  });
}

AssetJournal::~AssetJournal() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
  if (fd_ >= 0) ::close(fd_);
}

void AssetJournal::replay(World& world, const AssetCatalog& catalog, const fs::path& asset_root,
                          const Config& config, uint64_t tick) {
  const std::string name = path_.string();
  std::ifstream in(path_, std::ios::binary);
  std::error_code size_error;
  const uint64_t file_bytes = fs::file_size(path_, size_error);
  if (!in || size_error) {
    spdlog::info("state: no asset journal in {}: no uploaded assets or definitions to make again",
                 path_.parent_path().string());
    return;
  }
  const auto keep_aside = [&] {
    in.close();
    const auto aside = set_aside(path_);
    if (aside.empty())
      spdlog::error("state: {} could not be moved aside", name);
    else
      spdlog::error("state: {} kept aside as {}", name, aside.string());
  };
  char header[sizeof(kMagic) + 4];
  if (!in.read(header, sizeof(header)) || std::memcmp(header, kMagic, sizeof(kMagic)) != 0) {
    spdlog::error("state: nothing made again from {}: not an asset journal (no ANIMDJNL header)",
                  name);
    keep_aside();
    return;
  }
  if (const uint32_t format = get<uint32_t>(header + sizeof(kMagic));
      format == 0 || format > kAssetJournalFormat) {
    spdlog::error(
        "state: nothing made again from {}: format {} is not one this daemon reads (1..{}; "
        "written by a newer animd?)",
        name, format, kAssetJournalFormat);
    keep_aside();
    return;
  }
  anim::GltfLimits limits;
  limits.max_working_bytes = config.max_load_bytes;
  std::string kept = journal_header();  // the records made again, for a rewrite
  size_t made = 0;
  size_t index = 0;
  bool dropped = false;
  bool requests = false;
  for (;; ++index) {
    char frame[8];
    in.read(frame, sizeof(frame));
    if (in.gcount() == 0) break;  // the end
    const std::string record = "record " + std::to_string(index);
    if (in.gcount() != sizeof(frame)) {
      spdlog::warn(
          "state: {}: {} is cut short (the daemon stopped while writing it); the "
          "journal ends before it",
          name, record);
      dropped = true;
      break;
    }
    const uint32_t size = get<uint32_t>(frame);
    const uint32_t crc = get<uint32_t>(frame + 4);
    if (size < 8 || size > kMaxJournalRecordBytes) {
      spdlog::error("state: {}: {} has a size of {} bytes: damaged; the journal ends before it",
                    name, record, size);
      dropped = true;
      break;
    }
    // A size past the file's end is a record cut short: nothing is allocated for it.
    const auto at = static_cast<uint64_t>(in.tellg());
    if (size > file_bytes - std::min(file_bytes, at)) {
      spdlog::warn(
          "state: {}: {} is cut short (the daemon stopped while writing it); the "
          "journal ends before it",
          name, record);
      dropped = true;
      break;
    }
    std::string payload(size, '\0');
    if (!in.read(payload.data(), size)) {
      spdlog::warn(
          "state: {}: {} is cut short (the daemon stopped while writing it); the "
          "journal ends before it",
          name, record);
      dropped = true;
      break;
    }
    if (crc32_of(payload) != crc) {
      spdlog::error("state: {}: {} fails its checksum: damaged; the journal ends before it", name,
                    record);
      dropped = true;
      break;
    }
    const auto skip = [&](const std::string& why) {
      spdlog::error("state: {}: {} not made again: {}", name, record, why);
      dropped = true;
    };
    const uint64_t owner = get<uint64_t>(payload.data());
    anim::v1::Request request;
    if (!request.ParseFromArray(payload.data() + 8, static_cast<int>(size - 8))) {
      skip("not a Request message");
      continue;
    }
    const std::string kind = kind_of(request);
    auto change = journaled_change(std::move(request));
    if (!change) {
      skip(kind + ": " + change.error().message());
      continue;
    }
    Command c;
    c.owner = owner;
    auto keeper = std::make_shared<ResultKeeper>();
    c.sink = keeper;
    if (change->load) {
      auto loaded = load_requested_asset(*change->load, asset_root, *catalog.get(), limits);
      if (!loaded) {
        skip(kind + ": " + loaded.error().message());
        continue;
      }
      c.kind = loaded->replaces ? Command::Kind::kReplaceAsset : Command::Kind::kInsertAsset;
      c.asset = std::move(loaded->asset);
      c.replaces = std::move(loaded->replaces);
      c.asset_shared = owner == 0;
    } else {
      c.kind = Command::Kind::kRequest;
      c.request = std::move(*change->request);
      requests = true;
    }
    std::vector<Command> batch;
    batch.push_back(std::move(c));
    world.apply(batch, tick, 0.0);
    if (!keeper->status) {
      skip(kind + ": " + keeper->status.message());
      continue;
    }
    kept.append(frame, sizeof(frame));
    kept += payload;
    ++made;
  }
  if (requests) {
    // The replay acted as its owners from no connection: they have none now.
    std::vector<Command> closed(1);
    closed[0].kind = Command::Kind::kSessionClosed;
    world.apply(closed, tick, 0.0);
  }
  spdlog::info("state: {} asset change(s) made again from {}", made, name);
  if (!dropped) return;
  keep_aside();
  if (auto s = replace_file(path_, kept); !s)
    spdlog::error("state: {}: the journal could not be written anew: {}", name, s.message());
  else
    spdlog::info("state: {} written anew with the {} change(s) made again", name, made);
}

void AssetJournal::asset_loaded(const std::shared_ptr<const anim::Asset>& /*asset*/,
                                std::shared_ptr<const LoadRequest> source, uint64_t owner,
                                bool /*replaced*/) {
  if (!source) return;  // not from load_asset (start-up loads)
  std::optional<LoadRequest> request(*source);
  {
    std::lock_guard lock(mutex_);
    queue_.push_back(Change{owner & kConnectionOwnerBit ? 0 : owner, std::move(request), {}});
  }
  wake_.notify_all();
}

void AssetJournal::request_applied(const WorldRequest& request, uint64_t owner) {
  {
    std::lock_guard lock(mutex_);
    queue_.push_back(Change{owner & kConnectionOwnerBit ? 0 : owner, {}, request});
  }
  wake_.notify_all();
}

void AssetJournal::flush() {
  std::unique_lock lock(mutex_);
  idle_.wait(lock, [&] { return queue_.empty() && !busy_; });
}

anim::Status AssetJournal::append(const std::string& record) {
  if (fd_ < 0) {
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (fd_ < 0)
      return anim::Status(anim::StatusCode::kUnavailable,
                          path_.string() + ": open: " + std::strerror(errno));
    std::error_code ec;
    if (fs::file_size(path_, ec) == 0 && !write_all(fd_, journal_header()))
      return anim::Status(anim::StatusCode::kUnavailable,
                          path_.string() + ": write: " + std::strerror(errno));
  }
  if (!write_all(fd_, record) || ::fdatasync(fd_) != 0)
    return anim::Status(anim::StatusCode::kUnavailable,
                        path_.string() + ": write: " + std::strerror(errno));
  return {};
}

void AssetJournal::run() {
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [&] { return !queue_.empty() || stopping_; });
    if (queue_.empty()) return;  // stopping with nothing left
    Change change = std::move(queue_.front());
    queue_.pop_front();
    busy_ = true;
    lock.unlock();
    std::optional<anim::v1::Request> request;
    if (change.load)
      request = journal_request(*change.load);
    else if (change.request)
      request = journal_request(*change.request);
    if (request) {
      if (auto s = append(journal_record(change.owner, *request)); !s) {
        metrics_.state_save_failures.fetch_add(1, std::memory_order_relaxed);
        spdlog::error("state: asset change not journaled ({}): {}", kind_of(*request), s.message());
      } else {
        metrics_.state_journaled.fetch_add(1, std::memory_order_relaxed);
      }
    }
    lock.lock();
    busy_ = false;
    if (queue_.empty()) idle_.notify_all();
  }
}

}  // namespace animd
