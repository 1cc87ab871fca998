// CommandPipeline (command_pipeline.h): requests on their way to the tick and the loader.
#include "session/command_pipeline.h"

#include <algorithm>

#include <spdlog/spdlog.h>

#include "assets/asset_loading.h"

namespace animd {

bool CommandPipeline::full() const {
  return pending_ >= host_.config().max_pending_commands_per_connection;
}

anim::Status CommandPipeline::room() const {
  if (!full()) return anim::Status::ok();
  return {anim::StatusCode::kResourceExhausted,
          "--max-pending-commands-per-connection (" +
              std::to_string(host_.config().max_pending_commands_per_connection) +
              ") requests of this connection are already waiting for the tick"};
}

bool CommandPipeline::noted(uint64_t owner) const {
  return std::find(noted_owners_.begin(), noted_owners_.end(), owner) != noted_owners_.end();
}

anim::Status CommandPipeline::to_tick(WorldRequest request, const Origin& origin,
                                      std::shared_ptr<ResultSink> sink) {
  if (auto s = room(); !s) return s;
  const Config& cfg = host_.config();
  Command c;
  c.kind = Command::Kind::kRequest;
  c.session_id = session_id_;
  c.owner = origin.owner;
  c.seq = origin.seq;
  c.request_id = origin.request_id;
  c.at_tick = origin.at_tick;
  c.sink = std::move(sink);
  c.request = std::move(request);
  if (!host_.commands().push(std::move(c), cfg.max_queued_commands))
    return {anim::StatusCode::kResourceExhausted,
            "the daemon's command queue is full (--max-queued-commands " +
                std::to_string(cfg.max_queued_commands) + "); retry later"};
  ++pending_;
  if (!noted(origin.owner)) noted_owners_.push_back(origin.owner);
  return anim::Status::ok();
}

void CommandPipeline::note_owner(uint64_t owner) {
  if (noted(owner)) return;
  Command c;  // its request (GetStats) changes nothing, and without a sink it has no reply
  c.kind = Command::Kind::kRequest;
  c.session_id = session_id_;
  c.owner = owner;
  if (host_.commands().push(std::move(c), host_.config().max_queued_commands))
    noted_owners_.push_back(owner);
}

void CommandPipeline::to_loader(Load load, std::shared_ptr<ResultSink> sink,
                                std::function<void()> finished) {
  ++pending_;
  const uint64_t turn_key = load.turn_key;
  // The loader's jobs are copyable functions: the load (with its budget hold) rides in a
  // shared_ptr.
  auto job = std::make_shared<Load>(std::move(load));
  host_.loader().post(turn_key, [&host = host_, session_id = session_id_, job,
                                 sink = std::move(sink), finished = std::move(finished)] {
    const Config& cfg = host.config();
    const Origin& origin = job->origin;
    anim::GltfLimits limits;
    limits.max_working_bytes = cfg.max_load_bytes;
    limits.deadline = std::chrono::steady_clock::now() +
                      std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                          std::chrono::duration<double>(cfg.max_load_seconds));
    // attach_to reads the asset as published now; the tick swaps the new version in only if
    // it is still the current one (World::replace_asset).
    auto loaded =
        load_requested_asset(job->request, host.asset_root(), *host.catalog().get(), limits);
    // The request goes on with the asset while the daemon journals its assets (the bytes then
    // stay until the journal has them); otherwise the upload's bytes, then their draw, go
    // before anyone hears the load is over.
    std::shared_ptr<const LoadRequest> source;
    if (loaded && !host.config().state_dir.empty())
      source = std::make_shared<const LoadRequest>(std::move(job->request));
    std::string().swap(job->request.data);
    job->upload_draw.reset();
    if (!loaded) {
      host.log(spdlog::level::warn, "load_asset failed",
               "session " + std::to_string(session_id) +
                   ": load_asset failed: " + loaded.error().message());
      sink->deliver_result(ResultHeader{origin.seq, origin.request_id, 0}, loaded.error());
    } else {
      const anim::Asset& a = *loaded->asset;
      if (loaded->replaces)
        spdlog::info("session {}: retargeted clip '{}' for asset '{}' ({} clips)", session_id,
                     a.clips.back().name, a.name, a.clips.size());
      else
        spdlog::info("session {}: loaded asset '{}' ({} joints, {} clips)", session_id, a.name,
                     a.skeleton.num_joints(), a.clips.size());
      Command c;
      c.kind = loaded->replaces ? Command::Kind::kReplaceAsset : Command::Kind::kInsertAsset;
      c.session_id = session_id;
      c.owner = origin.owner;
      c.seq = origin.seq;
      c.request_id = origin.request_id;
      c.sink = sink;
      c.asset = std::move(loaded->asset);
      c.replaces = std::move(loaded->replaces);
      c.asset_shared = source ? source->shared : job->request.shared;
      c.source = std::move(source);
      host.commands().push(std::move(c));  // already counted as pending
    }
    finished();
  });
}

}  // namespace animd
