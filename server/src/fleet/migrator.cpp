// Migrator (migrator.h): carrying a migration to its target and its outcome back to the World.
#include "fleet/migrator.h"

#include <algorithm>
#include <utility>

#include "protocol/character_state_convert.h"

namespace animd {

namespace {

using Clock = std::chrono::steady_clock;
using anim::Status;

// Between two attempts to learn a commit's outcome.
constexpr std::chrono::milliseconds kCommitRetryPause{200};

// A wire status code as the migrate answers it (codes without a match here answered as the
// nearest: a refused token as PERMISSION_DENIED, the target's internal error as UNAVAILABLE).
anim::StatusCode code_of(anim::v1::StatusCode code) {
  switch (code) {
    case anim::v1::STATUS_INVALID_ARGUMENT:
      return anim::StatusCode::kInvalidArgument;
    case anim::v1::STATUS_NOT_FOUND:
      return anim::StatusCode::kNotFound;
    case anim::v1::STATUS_FAILED_PRECONDITION:
      return anim::StatusCode::kFailedPrecondition;
    case anim::v1::STATUS_DATA_LOSS:
      return anim::StatusCode::kDataLoss;
    case anim::v1::STATUS_UNIMPLEMENTED:
      return anim::StatusCode::kUnimplemented;
    case anim::v1::STATUS_RESOURCE_EXHAUSTED:
      return anim::StatusCode::kResourceExhausted;
    case anim::v1::STATUS_UNAUTHENTICATED:
    case anim::v1::STATUS_PERMISSION_DENIED:
      return anim::StatusCode::kPermissionDenied;
    default:
      return anim::StatusCode::kUnavailable;
  }
}

// The target's answer as the migrate's: its code, its message named as the target's.
Status refused(const MigrationJob& job, const char* step, const anim::v1::Reply& reply) {
  return Status(code_of(reply.status().code()),
                "migrate: target " + job.target.describe() + " refused " + step + ": " +
                    reply.status().message() + " (the characters stay here)");
}

Status unreachable(const MigrationJob& job, const char* step, const Status& why) {
  return Status(anim::StatusCode::kUnavailable, "migrate: target " + job.target.describe() + ", " +
                                                    step + ": " + why.message() +
                                                    " (the characters stay here)");
}

FinishMigration failed(const MigrationJob& job, Status why) {
  FinishMigration f;
  f.migration = job.begun.migration;
  f.failure = std::move(why);
  return f;
}

// The import_characters requests carrying the states, each within kMaxImportBytes.
std::vector<anim::v1::Request> import_parts(const MigrationBegun& begun) {
  std::vector<anim::v1::Request> parts;
  size_t bytes = 0;
  for (const SavedCharacter& s : begun.states) {
    anim::v1::CharacterState state;
    to_proto(s, &state);
    const size_t size = state.ByteSizeLong() + 8;
    if (parts.empty() || bytes + size > Migrator::kMaxImportBytes) {
      parts.emplace_back().mutable_import_characters()->set_migration_id(begun.migration_id);
      bytes = 0;
    }
    *parts.back().mutable_import_characters()->add_states() = std::move(state);
    bytes += size;
  }
  return parts;
}

anim::v1::Request commit_request(const std::string& id, bool abort) {
  anim::v1::Request r;
  r.mutable_commit_migration()->set_migration_id(id);
  r.mutable_commit_migration()->set_abort(abort);
  return r;
}

FinishMigration committed(const MigrationJob& job, const anim::v1::Reply& reply) {
  FinishMigration f;
  f.migration = job.begun.migration;
  f.committed = true;
  const auto& c = reply.commit_migration();
  f.target_ids.assign(c.character_ids().begin(), c.character_ids().end());
  f.target_tick = c.tick();
  if (f.target_ids.size() != job.begun.characters.size())
    return failed(job, Status(anim::StatusCode::kFailedPrecondition,
                              "migrate: target " + job.target.describe() + " committed " +
                                  std::to_string(f.target_ids.size()) + " characters of " +
                                  std::to_string(job.begun.characters.size())));
  return f;
}

}  // namespace

FinishMigration Migrator::carry(const MigrationJob& job) {
  auto conn = PeerConnection::open(job.target, job.deadline);
  if (!conn) return failed(job, unreachable(job, "connecting", conn.error()));
  // A small first request: it authenticates the connection before the large ones.
  anim::v1::Request hello;
  hello.mutable_stats();
  auto greeted = (*conn)->call(hello, job.deadline);
  if (!greeted) return failed(job, unreachable(job, "stats", greeted.error()));
  if (greeted->status().code() != anim::v1::STATUS_OK)
    return failed(job, refused(job, "stats", *greeted));

  bool imported_some = false;
  for (anim::v1::Request& part : import_parts(job.begun)) {
    auto reply = (*conn)->call(std::move(part), job.deadline);
    if (!reply) return failed(job, unreachable(job, "import_characters", reply.error()));
    if (reply->status().code() != anim::v1::STATUS_OK) {
      if (imported_some)  // best effort: otherwise it expires on the target
        (void)(*conn)->call(commit_request(job.begun.migration_id, true), job.deadline);
      return failed(job, refused(job, "import_characters", *reply));
    }
    imported_some = true;
  }

  auto reply = (*conn)->call(commit_request(job.begun.migration_id, false), job.deadline);
  if (reply && reply->status().code() == anim::v1::STATUS_OK) return committed(job, *reply);
  if (reply) return failed(job, refused(job, "commit_migration", *reply));
  // The commit was sent and its answer lost: ask again until the target answers.
  Status last = reply.error();
  while (Clock::now() + kCommitRetryPause < job.deadline) {
    std::this_thread::sleep_for(kCommitRetryPause);
    auto again = PeerConnection::open(job.target, job.deadline);
    if (!again) {
      last = again.error();
      continue;
    }
    auto answer = (*again)->call(commit_request(job.begun.migration_id, false), job.deadline);
    if (!answer) {
      last = answer.error();
      continue;
    }
    if (answer->status().code() == anim::v1::STATUS_OK) return committed(job, *answer);
    return failed(job, refused(job, "commit_migration", *answer));
  }
  return failed(job, unreachable(job, "commit_migration (no answer before the deadline)", last));
}

Migrator::Migrator(CommandQueue& commands, int threads) : commands_(commands) {
  for (int i = 0; i < std::max(1, threads); ++i) threads_.emplace_back([this] { run(); });
}

Migrator::~Migrator() {
  stop();
}

void Migrator::post(MigrationJob job) {
  {
    std::lock_guard lock(mutex_);
    if (!stopping_) {
      waiting_.push_back(std::move(job));
      wake_.notify_one();
      return;
    }
  }
  finish(job, failed(job, Status(anim::StatusCode::kUnavailable,
                                 "migrate: the daemon is stopping (the characters stay here)")));
}

void Migrator::stop() {
  std::deque<MigrationJob> dropped;
  {
    std::lock_guard lock(mutex_);
    if (stopping_ && threads_.empty()) return;
    stopping_ = true;
    std::swap(dropped, waiting_);
  }
  wake_.notify_all();
  for (auto& job : dropped)
    finish(job, failed(job, Status(anim::StatusCode::kUnavailable,
                                   "migrate: the daemon is stopping (the characters stay here)")));
  for (auto& t : threads_)
    if (t.joinable()) t.join();
  threads_.clear();
}

void Migrator::run() {
  for (;;) {
    MigrationJob job;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || !waiting_.empty(); });
      if (waiting_.empty()) return;
      job = std::move(waiting_.front());
      waiting_.pop_front();
    }
    finish(job, carry(job));
  }
}

void Migrator::finish(const MigrationJob& job, FinishMigration outcome) {
  Command c;
  c.kind = Command::Kind::kRequest;
  c.session_id = job.session;
  c.owner = job.owner;
  c.seq = job.seq;
  c.request_id = job.request_id;
  c.sink = job.reply_to;
  c.request = std::move(outcome);
  commands_.push(std::move(c));
}

void MigrationSink::deliver_result(const ResultHeader& header,
                                   const anim::Expected<WorldResult>& result) {
  const MigrationBegun* begun = result ? std::get_if<MigrationBegun>(&*result) : nullptr;
  if (!begun) return job_.reply_to->deliver_result(header, result);
  MigrationJob job = job_;
  job.begun = *begun;
  job.deadline = Clock::now() + job.duration;
  migrator_.post(std::move(job));
}

}  // namespace animd
