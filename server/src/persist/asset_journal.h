#pragma once
// AssetJournal: `assets.journal` in --state-dir, every change clients made to the assets while
// the daemon ran (load_asset: uploads, loads by path and attach_to; define_blend_space,
// define_state_machine, add_clip_events, set_hit_volumes, unload_asset), in the order the
// tick applied them, as the wire requests that make them (journal_convert.h). At start-up,
// after --assets load and before the characters are restored, replay() makes them again in
// that order; then the World tells the journal of each new change (AssetChangeSink) and the
// journal's thread (`animd-journal`) appends it durably. Assets from --assets are not
// journaled (the command line loads them again); definitions made on them are.
//
// File: "ANIMDJNL", format (uint32), then records, each: payload bytes (uint32), CRC-32 of
// the payload (uint32), payload = owner key (uint64, 0: shared) + an anim.v1.Request; all
// little-endian. A record is appended with one write and made durable (fdatasync) before the
// next.
//
// Replay refuses what it cannot make again and starts with the rest: a newer format or a file
// that is not a journal makes nothing; a record cut short (a crash while appending) ends the
// journal there; a damaged record (CRC) ends it too; a record whose request fails (its file
// gone from the asset root, its asset no longer loaded) is skipped. Each is logged naming the
// file, the record and why; then the journal is set aside (`<file>.bad-<unix s>`) and written
// anew with the records that were made again.

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "anim/v1/envelope.pb.h"
#include "assets/asset_catalog.h"
#include "assets/load_request.h"
#include "base/config.h"
#include "base/metrics.h"
#include "world/asset_change_sink.h"
#include "world/world.h"

namespace animd {

inline constexpr uint32_t kAssetJournalFormat = 1;
// A record larger than this is taken for damage (uploads are at most --max-upload-bytes).
inline constexpr uint32_t kMaxJournalRecordBytes = 1u << 30;

class AssetJournal final : public AssetChangeSink {
 public:
  AssetJournal(std::filesystem::path path, Metrics& metrics);
  // Writes every change queued, then stops the thread.
  ~AssetJournal() override;
  AssetJournal(const AssetJournal&) = delete;
  AssetJournal& operator=(const AssetJournal&) = delete;

  const std::filesystem::path& path() const { return path_; }

  // Start-up (no tick running, the World not yet telling this journal): makes the journaled
  // changes again at `tick`. `asset_root`: --assets (loads by path resolve there).
  void replay(World& world, const AssetCatalog& catalog, const std::filesystem::path& asset_root,
              const Config& config, uint64_t tick);

  // AssetChangeSink (tick thread): queued for the journal's thread.
  void asset_loaded(const std::shared_ptr<const anim::Asset>& asset,
                    std::shared_ptr<const LoadRequest> source, uint64_t owner,
                    bool replaced) override;
  void request_applied(const WorldRequest& request, uint64_t owner) override;

  // Returns once every change queued before the call is on disk (or failed, logged).
  void flush();

 private:
  struct Change {
    uint64_t owner = 0;
    std::optional<LoadRequest> load;
    std::optional<WorldRequest> request;
  };
  void run();
  // Appends one record; the file is opened (and its header written) on first use.
  anim::Status append(const std::string& payload);

  const std::filesystem::path path_;
  Metrics& metrics_;
  int fd_ = -1;  // the journal's thread only
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable idle_;
  std::deque<Change> queue_;
  bool busy_ = false;  // a change taken from the queue is being written
  bool stopping_ = false;
  std::thread thread_;
};

// A record's bytes as the journal holds them (the frame: size, CRC-32, then the payload);
// for tests and for writing a journal anew.
std::string journal_record(uint64_t owner, const anim::v1::Request& request);
// The file's header.
std::string journal_header();

}  // namespace animd
