#pragma once
// Migrator: the threads that carry migrations (migrate) to their targets, so that neither the
// tick nor a network thread waits for another daemon.
//
// A migration is begun by the World (BeginMigration: its characters frozen, their states
// taken); the migrate's sink (MigrationSink) hands it here. A thread then speaks to the target
// over the protocol (PeerConnection): stats (the connection's first, small request, which
// authenticates it), import_characters with the migration id, in parts that fit a request
// frame, then commit_migration. The outcome goes back to the World as a FinishMigration, whose
// answer is the migrate's reply:
//   - the target refused a step (its status, its message named): nothing was committed there;
//     an abort is sent on the same connection when the import was partly made;
//   - the connection failed before the commit was sent: nothing was committed (what the target
//     holds expires there);
//   - the commit's answer did not arrive: the commit is asked again on new connections until
//     the deadline. The target's answer settles it (OK: committed; NOT_FOUND: nothing was);
//     without any, the migration fails and the characters stay (docs/operations.md names this
//     one case where both daemons may have them: a target alive but unreachable past the
//     deadline right after committing).
//
// Thread-safe. post() never blocks. stop() fails the migrations not started and waits for the
// running ones (each bounded by its deadline).

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "base/config.h"
#include "fleet/peer_call.h"
#include "world/command.h"
#include "world/result_sink.h"
#include "world/world_results.h"

namespace animd {

struct MigrationJob {
  MigrationBegun begun;
  PeerAddress target;
  // How long the migration may take from its begin (the tick that froze its characters), and
  // the instant that makes (set when it begins).
  std::chrono::milliseconds duration{0};
  std::chrono::steady_clock::time_point deadline;
  // The migrate command's origin: its answer goes to `reply_to` as the answer of a command
  // with these numbers.
  uint64_t session = 0;
  uint64_t owner = 0;
  uint64_t seq = 0;
  uint64_t request_id = 0;
  std::shared_ptr<ResultSink> reply_to;
};

class Migrator {
 public:
  // Largest serialized import_characters sent in one request (the target's --max-frame-bytes
  // must hold it; its default is 1 MiB).
  static constexpr size_t kMaxImportBytes = 512u << 10;

  // `threads` (>= 1) carry migrations at once; more wait in order.
  Migrator(CommandQueue& commands, int threads);
  ~Migrator();
  Migrator(const Migrator&) = delete;
  Migrator& operator=(const Migrator&) = delete;

  void post(MigrationJob job);
  void stop();

  // The outcome of carrying `job` to its target (what run() sends to the World), exposed for
  // tests: the FinishMigration for the World.
  static FinishMigration carry(const MigrationJob& job);

 private:
  void run();
  void finish(const MigrationJob& job, FinishMigration outcome);

  CommandQueue& commands_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<MigrationJob> waiting_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

// The migrate command's sink (session/): the World's MigrationBegun goes to the Migrator with
// the target's address; an error (a bad id, a frozen character) goes straight to the session.
class MigrationSink : public ResultSink {
 public:
  MigrationSink(Migrator& migrator, MigrationJob job) : migrator_(migrator), job_(std::move(job)) {}
  void deliver_result(const ResultHeader& header,
                      const anim::Expected<WorldResult>& result) override;

 private:
  Migrator& migrator_;
  MigrationJob job_;  // everything but `begun`
};

}  // namespace animd
