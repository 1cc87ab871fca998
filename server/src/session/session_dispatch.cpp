// Session (session.h): what happens to a parsed Request. Admission (rate, token, role), then
// its handler in the command table (command_table.h): answered here (asset catalog, pose
// history, hit queries), loaded on the loader threads, or queued for the tick. The replies
// coming back are in session_reply.cpp.
#include "session/session.h"

#include <algorithm>

#include <boost/asio/post.hpp>

#include "fleet/migrator.h"
#include "history/hit_query.h"
#include "history/pose_query.h"
#include "protocol/proto_convert.h"
#include "protocol/request_convert.h"
#include "protocol/request_convert_assets.h"
#include "protocol/request_convert_caps.h"
#include "protocol/request_convert_fleet.h"
#include "protocol/request_convert_hits.h"

namespace animd {

namespace asio = boost::asio;

namespace {
// How long a connection closed for misbehaving has to take the reply saying why.
constexpr std::chrono::seconds kFlushBeforeClose{2};
}  // namespace

// Rate, command, token and role checks. Returns the command's entry, or null after answering
// when the request may not go further.
const CommandSpec* Session::admit(const Request& r, uint64_t seq) {
  const Admission::Verdict verdict = admission_.check(r, Clock::now());
  if (verdict.admitted) {
    if (verdict.first) connection_.trust();
    return verdict.command;
  }
  reply_error(seq, r, verdict.code, verdict.message);
  if (!verdict.close_reason.empty())
    connection_.close_after_flush(verdict.close_reason, Clock::now() + kFlushBeforeClose);
  return nullptr;
}

void Session::handle(Request& r, uint64_t seq) {
  const CommandSpec* command = admit(r, seq);
  if (!command) return;
  if (server_.shutting_down())
    return reply_error(seq, r, anim::v1::STATUS_UNAVAILABLE, "the daemon is shutting down");
  // Every repeated field within its cap before any route reads one (request_convert_caps.h).
  if (auto s = check_repeated_field_caps(r); !s)
    return reply_error(seq, r, to_proto(s.code()), s.message());
  if (r.has_at_tick() && command->route != Route::kTick)
    return reply_error(seq, r, anim::v1::STATUS_INVALID_ARGUMENT,
                       "at_tick: " + std::string(command->field) +
                           " is not answered by the tick; only commands the tick answers can "
                           "be scheduled");
  if (r.has_at_tick() && r.at_tick() == 0)
    return reply_error(seq, r, anim::v1::STATUS_INVALID_ARGUMENT,
                       "at_tick: 0 is no tick (ticks count from 1)");
  (this->*command->handle)(r, seq);
}

uint64_t Session::owner_of(const Request& r) const {
  return server_.auth().check(r.auth_token()).owner_key;
}

bool Session::outbound_room(uint64_t seq, const Request& r) {
  const ByteBudget& budget = server_.stream_budget();
  if (budget.used() < budget.limit()) return true;
  reply_error(seq, r, anim::v1::STATUS_RESOURCE_EXHAUSTED,
              "the daemon's outbound budget is spent (--max-stream-bytes-total; clients are not "
              "reading what was sent to them): retry later");
  return false;
}

void Session::answer_list_assets(Request& r, uint64_t seq) {
  if (!outbound_room(seq, r)) return;
  anim::v1::Reply reply;
  reply.set_request_id(r.request_id());
  set_status(reply, anim::Status::ok());
  auto assets = server_.catalog().get();
  // Set even with no asset (all unloaded): an empty list is still a list_assets result.
  auto* out = reply.mutable_list_assets();
  for (const auto& [name, a] : *assets) fill_asset_info(*a, out->add_assets());
  complete(seq, std::move(reply));
}

void Session::answer_asset_data(Request& r, uint64_t seq) {
  if (!outbound_room(seq, r)) return;
  auto assets = server_.catalog().get();
  auto it = assets->find(r.get_asset_data().asset());
  if (it == assets->end())
    return reply_error(seq, r, anim::v1::STATUS_NOT_FOUND,
                       "get_asset_data.asset: unknown asset '" + r.get_asset_data().asset() + "'");
  anim::v1::Reply reply;
  reply.set_request_id(r.request_id());
  set_status(reply, anim::Status::ok());
  fill_asset_data(*it->second, r.get_asset_data().skip_mesh(), reply.mutable_get_asset_data());
  complete(seq, std::move(reply));
}

void Session::queue_for_tick(Request& r, uint64_t seq) {
  push_command(r, seq);
}

void Session::handle_unsubscribe(Request& r, uint64_t seq) {
  stream_.subscriptions().expect_unsubscribe(seq, r.unsubscribe().subscription_id());
  push_command(r, seq);
}

void Session::handle_subscribe(Request& r, uint64_t seq) {
  const Config& cfg = server_.config();
  SubscriptionSet& subs = stream_.subscriptions();
  const auto& s = r.subscribe();
  if (s.encoding() != anim::v1::ENCODING_FLOAT_3X4 && s.encoding() != anim::v1::ENCODING_COMPACT)
    return reply_error(seq, r, anim::v1::STATUS_INVALID_ARGUMENT,
                       "subscribe.encoding has an unknown value " + std::to_string(s.encoding()) +
                           " (ENCODING_FLOAT_3X4 = 0, ENCODING_COMPACT = 1)");
  if (subs.count() >= cfg.max_subscriptions_per_connection)
    return reply_error(seq, r, anim::v1::STATUS_RESOURCE_EXHAUSTED,
                       "--max-subscriptions-per-connection (" +
                           std::to_string(cfg.max_subscriptions_per_connection) + ") reached");
  StreamSubscription sub;
  sub.id = subs.next_id();
  sub.all = s.all_characters();
  // A bad region is refused with the request (push_command -> to_world_request).
  if (s.has_region())
    if (auto region = region_from_proto(s.region(), "subscribe.region")) sub.region = *region;
  sub.ids.assign(s.character_ids().begin(), s.character_ids().end());
  std::sort(sub.ids.begin(), sub.ids.end());
  sub.ids.erase(std::unique(sub.ids.begin(), sub.ids.end()), sub.ids.end());
  sub.divisor = std::max<uint32_t>(1, s.rate_divisor());
  sub.encoding = s.encoding();
  sub.events = s.events().enabled();  // min_weight checked with the request (to_world_request)
  sub.event_min_weight = s.events().min_weight();
  const uint32_t id = sub.id;
  subs.expect_subscribe(seq, std::move(sub));
  push_command(r, seq, id);
}

void Session::push_command(Request& r, uint64_t seq, uint32_t subscription_id,
                           std::shared_ptr<ResultSink> sink) {
  SubscriptionSet& subs = stream_.subscriptions();
  auto refuse = [&](const anim::Status& why) {
    subs.forget(seq);
    reply_error(seq, r, to_proto(why.code()), why.message());
  };
  if (auto room = pipeline_.room(); !room) return refuse(room);
  // Converted (and checked) here, so a malformed request is answered without the tick.
  auto request = to_world_request(r);
  if (!request) return refuse(request.error());
  if (auto* sub = std::get_if<Subscribe>(&*request)) sub->subscription_id = subscription_id;
  // The stream follows the region; the camera is the World's alone (significance).
  if (const auto* move = std::get_if<UpdateSubscription>(&*request); move && move->region)
    subs.expect_region_move(seq, move->subscription_id, *move->region);
  const CommandPipeline::Origin origin{seq, r.request_id(), owner_of(r), r.at_tick()};
  if (!sink) sink = shared_from_this();
  if (auto queued = pipeline_.to_tick(std::move(*request), origin, std::move(sink)); !queued)
    refuse(queued);
}

void Session::handle_migrate(Request& r, uint64_t seq) {
  const Config& cfg = server_.config();
  const auto& m = r.migrate();
  MigrationJob job;
  // A port out of range is refused by the request's converter, before the job is used.
  job.target = PeerAddress{m.target().host(),  static_cast<uint16_t>(m.target().port()),
                           m.target().token(), m.target().tls(),
                           cfg.peer_ca_file,   cfg.peer_cert_file,
                           cfg.peer_key_file};
  job.duration = std::chrono::milliseconds(m.deadline_ms() != 0 ? m.deadline_ms()
                                                                : kDefaultMigrationDeadlineMs);
  job.session = id_;
  job.owner = owner_of(r);
  job.seq = seq;
  job.request_id = r.request_id();
  job.reply_to = shared_from_this();
  push_command(r, seq, 0, std::make_shared<MigrationSink>(server_.migrator(), std::move(job)));
}

void Session::handle_query_pose(Request& r, uint64_t seq) {
  auto request = to_world_request(r);
  if (!request)
    return reply_error(seq, r, to_proto(request.error().code()), request.error().message());
  uint64_t newest = 0;
  auto answer = query_history(server_.history(), std::get<QueryPose>(*request), &newest);
  if (!answer) return push_command(r, seq);
  pipeline_.note_owner(owner_of(r));
  // The reply's tick is the newest published one: the state the answer comes from.
  WireReply out = wire_reply(ResultHeader{seq, r.request_id(), newest},
                             *answer ? anim::Expected<WorldResult>(WorldResult(std::move(**answer)))
                                     : anim::Expected<WorldResult>(answer->error()),
                             &server_.stream_budget());
  complete(seq, std::move(out.reply), out.drawn);
}

void Session::handle_hit_query(Request& r, uint64_t seq) {
  const uint32_t max_poses = server_.config().max_hit_query_poses;
  uint64_t newest = 0;
  anim::Expected<WorldResult> answer = anim::invalid_argument("not a hit query");
  if (r.has_raycast()) {
    auto ray = raycast_request(r.raycast());
    if (!ray) return reply_error(seq, r, to_proto(ray.error().code()), ray.error().message());
    auto hit = raycast_history(server_.history(), server_.hit_volumes(), *ray, max_poses, &newest);
    answer = hit ? anim::Expected<WorldResult>(WorldResult(std::move(*hit)))
                 : anim::Expected<WorldResult>(hit.error());
  } else {
    auto sphere = overlap_sphere_request(r.overlap_sphere());
    if (!sphere)
      return reply_error(seq, r, to_proto(sphere.error().code()), sphere.error().message());
    auto overlap =
        overlap_history(server_.history(), server_.hit_volumes(), *sphere, max_poses, &newest);
    answer = overlap ? anim::Expected<WorldResult>(WorldResult(std::move(*overlap)))
                     : anim::Expected<WorldResult>(overlap.error());
  }
  pipeline_.note_owner(owner_of(r));
  // The reply's tick is the newest published one: the state the answer comes from.
  WireReply out =
      wire_reply(ResultHeader{seq, r.request_id(), newest}, answer, &server_.stream_budget());
  complete(seq, std::move(out.reply), out.drawn);
}

void Session::handle_load(Request& r, uint64_t seq) {
  const Config& cfg = server_.config();
  const auto& req = r.load_asset();
  if (req.source_case() == anim::v1::LoadAssetRequest::SOURCE_NOT_SET)
    return reply_error(seq, r, anim::v1::STATUS_INVALID_ARGUMENT,
                       "load_asset needs a source: path, glb_data or bvh_data");
  if (req.has_glb_data() || req.has_bvh_data()) {
    const char* field = req.has_glb_data() ? "glb_data" : "bvh_data";
    const size_t size = req.has_glb_data() ? req.glb_data().size() : req.bvh_data().size();
    if (cfg.max_upload_bytes == 0)
      return reply_error(seq, r, anim::v1::STATUS_FAILED_PRECONDITION,
                         "uploads are disabled on this daemon (--max-upload-bytes 0)");
    if (size > cfg.max_upload_bytes)
      return reply_error(seq, r, anim::v1::STATUS_RESOURCE_EXHAUSTED,
                         "load_asset." + std::string(field) + " of " + std::to_string(size) +
                             " bytes exceeds --max-upload-bytes " +
                             std::to_string(cfg.max_upload_bytes));
  }
  // Loading runs on the loader threads, this owner's loads one at a time (asset_loader.h).
  // Reading pauses meanwhile so that later commands of this connection reach the tick after
  // the asset does (request order is kept). An upload's bytes stay drawn on the inbound
  // budget until its load is over: the frame's draw passes to the load.
  connection_.pause_reading();
  const uint64_t owner = owner_of(r);
  CommandPipeline::Load load{load_request_from_proto(std::move(*r.mutable_load_asset())),
                             CommandPipeline::Origin{seq, r.request_id(), owner},
                             owner != 0 ? owner : (uint64_t{1} << 63) | id_,
                             connection_.take_frame_draw()};
  pipeline_.to_loader(std::move(load), shared_from_this(), [self = shared_from_this()] {
    asio::post(self->connection_.executor(), [self] { self->connection_.resume_reading(); });
  });
}

}  // namespace animd
