// to_reply (request_convert.h): the World's answers as wire replies.
#include "protocol/request_convert.h"

#include <variant>

#include "protocol/character_state_convert.h"
#include "protocol/proto_convert.h"

namespace animd {

namespace {

using anim::Status;

// Writes a WorldResult into its Reply field.
struct ResultWriter {
  anim::v1::Reply& reply;

  void operator()(const Done&) const {}
  void operator()(const Spawned& s) const {
    auto* out = reply.mutable_spawn();
    out->set_character_id(s.character_id);
    out->set_tick(s.tick);
  }
  void operator()(const LayerAdded& l) const {
    reply.mutable_add_layer()->set_layer_id(l.layer_id);
  }
  void operator()(const IkGoalSet& g) const { reply.mutable_set_ik_goal()->set_goal_id(g.goal_id); }
  void operator()(const PoseAnswer& p) const {
    auto* out = reply.mutable_query_pose();
    out->set_tick(p.tick);
    out->set_server_time(p.server_time);
    to_proto(p.root, out->mutable_root());
    out->mutable_joints()->Reserve(static_cast<int>(p.joints.size()));
    for (const PoseJoint& j : p.joints) {
      auto* jp = out->add_joints();
      jp->set_index(j.index);
      jp->set_name(p.asset->skeleton.names[j.index]);
      const float* m = j.matrix.m;
      jp->mutable_matrix()->Add(m, m + 12);
      to_proto(glm::vec3(m[3], m[7], m[11]), jp->mutable_position());
    }
    append_palette(p.palette.data(), p.palette.size(), out->mutable_palette());
    out->mutable_morph_weights()->Add(p.morph_weights.begin(), p.morph_weights.end());
  }
  void operator()(const CharacterList& l) const {
    auto* out = reply.mutable_list_characters();
    out->mutable_characters()->Reserve(static_cast<int>(l.characters.size()));
    for (const CharacterEntry& c : l.characters) {
      auto* ci = out->add_characters();
      ci->set_character_id(c.character_id);
      ci->set_asset(c.asset->name);
      if (c.clip >= 0) ci->set_clip(c.asset->clips[static_cast<size_t>(c.clip)].name);
      ci->set_blend_space(c.blend_space);
      to_proto(c.root, ci->mutable_root());
      ci->set_significance(c.significance);
      ci->set_update_interval(c.update_interval);
      ci->set_detail_skipped(c.detail_skipped);
    }
  }
  void operator()(const Subscribed& s) const {
    reply.mutable_subscribe()->set_subscription_id(s.subscription_id);
  }
  void operator()(const StatsAnswer& a) const {
    auto* s = reply.mutable_stats();
    s->set_tick(a.tick);
    s->set_tick_rate_hz(a.tick_rate_hz);
    s->set_uptime_s(a.uptime_s);
    s->set_characters(a.characters);
    s->set_sessions(a.sessions);
    s->set_subscriptions(a.subscriptions);
    s->set_assets(a.assets);
    s->set_tick_time_p50_us(a.tick_time_p50_us);
    s->set_tick_time_p99_us(a.tick_time_p99_us);
    s->set_tick_time_max_us(a.tick_time_max_us);
    s->set_tick_overruns(a.tick_overruns);
    s->set_bytes_in(a.bytes_in);
    s->set_bytes_out(a.bytes_out);
    s->set_stream_frames_sent(a.stream_frames_sent);
    s->set_stream_frames_dropped(a.stream_frames_dropped);
    s->set_requests(a.requests);
    s->set_request_errors(a.request_errors);
    s->set_worker_threads(a.worker_threads);
    s->set_events_fired(a.events_fired);
    s->set_events_overflowed(a.events_overflowed);
    s->set_events_sent(a.events_sent);
    s->set_events_dropped(a.events_dropped);
    s->set_tick_epoch_unix_s(a.tick_epoch_unix_s);
    s->set_tick_unix_time_s(a.tick_unix_time_s);
    s->set_first_tick(a.first_tick);
    s->set_ticks_skipped(a.ticks_skipped);
    s->set_clock_steps_forward(a.clock_steps_forward);
    s->set_clock_steps_back(a.clock_steps_back);
    s->set_anim_budget_ms(std::isfinite(a.anim_budget_ms) ? a.anim_budget_ms : 0.0);
    s->set_anim_pressure(a.anim_pressure);
    for (uint32_t n : a.update_intervals) s->add_update_intervals(n);
    s->set_detail_skipped_characters(a.detail_skipped_characters);
  }
  void operator()(const ClipEventsAnswer& a) const {
    auto* out = reply.mutable_add_clip_events();
    out->mutable_events()->Reserve(static_cast<int>(a.events.size()));
    for (const anim::ClipEvent& e : a.events) {
      auto* d = out->add_events();
      d->set_name(e.name);
      d->set_time(e.time);
      d->set_payload(e.payload);
    }
  }
  void operator()(const BlendSpaceDefined& d) const {
    reply.mutable_define_blend_space()->set_triangles(d.triangles);
  }
  // Where one machine is, into `out` (a GetStateReply or a MachineLayerState: same fields).
  template <typename Out>
  static void fill_machine(const anim::StateMachine& m, const anim::MachineStatus& s, Out* out) {
    out->set_machine(m.name);
    if (s.state >= 0) out->set_state(m.states[static_cast<size_t>(s.state)].name);
    out->set_state_time(s.state_time);
    if (s.transition < 0) return;
    auto* t = out->mutable_transition();
    if (s.from_state >= 0) t->set_from(m.states[static_cast<size_t>(s.from_state)].name);
    if (s.state >= 0) t->set_to(m.states[static_cast<size_t>(s.state)].name);
    t->set_elapsed(s.transition_elapsed);
    t->set_duration(s.transition_duration);
    t->set_index(static_cast<uint32_t>(s.transition));
  }
  void operator()(const MachineStateAnswer& a) const {
    auto* out = reply.mutable_get_state();
    // No machine on the base: its fields unset.
    if (a.machine && a.status.running) fill_machine(*a.machine, a.status, out);
    for (const MachineStateAnswer::Layer& l : a.layers) {
      auto* layer = out->add_layers();
      layer->set_layer_id(l.layer_id);
      if (l.machine) fill_machine(*l.machine, l.status, layer);
    }
    for (const auto& [name, value] : a.parameters) {
      auto* p = out->add_parameters();
      p->set_name(name);
      p->set_value(value);
    }
    for (const auto& [name, set] : a.triggers) {
      auto* t = out->add_triggers();
      t->set_name(name);
      t->set_set(set);
    }
  }
  void operator()(const CharactersExported& e) const {
    auto* out = reply.mutable_export_characters();
    for (const SavedCharacter& c : e.characters) to_proto(c, out->add_states());
  }
  void operator()(const CharactersImported& i) const {
    reply.mutable_import_characters()->mutable_character_ids()->Add(i.character_ids.begin(),
                                                                    i.character_ids.end());
  }
  void operator()(const MigrationBegun&) const {
    // Taken by the migrate's own sink (fleet/migration_sink.h) before any wire reply.
    reply.mutable_status()->set_code(anim::v1::STATUS_UNAVAILABLE);
    reply.mutable_status()->set_message("migrate: the migration was not handed to its thread");
  }
  void operator()(const Migrated& m) const {
    auto* out = reply.mutable_migrate();
    out->set_target(m.target);
    out->mutable_character_ids()->Add(m.target_ids.begin(), m.target_ids.end());
    out->set_tick(m.target_tick);
  }
  void operator()(const MigrationCommitted& c) const {
    auto* out = reply.mutable_commit_migration();
    out->mutable_character_ids()->Add(c.character_ids.begin(), c.character_ids.end());
    out->set_tick(c.tick);
  }
  void operator()(const AssetAdded& a) const {
    fill_asset_info(*a.asset, reply.mutable_load_asset()->mutable_asset());
  }
  void operator()(const RaycastHit& h) const {
    auto* out = reply.mutable_raycast();
    out->set_tick(h.tick);
    out->set_server_time(h.server_time);
    out->set_hit(h.hit);
    if (!h.hit) return;
    out->set_character_id(h.character_id);
    out->set_joint_index(h.joint);
    out->set_joint_name(h.asset->skeleton.names[h.joint]);
    to_proto(h.point, out->mutable_point());
    to_proto(h.normal, out->mutable_normal());
    out->set_distance(h.distance);
  }
  void operator()(const SphereOverlap& o) const {
    auto* out = reply.mutable_overlap_sphere();
    out->set_tick(o.tick);
    out->set_server_time(o.server_time);
    for (const CharacterOverlap& c : o.characters) {
      auto* co = out->add_characters();
      co->set_character_id(c.character_id);
      for (uint32_t j : c.joints) {
        auto* hj = co->add_joints();
        hj->set_index(j);
        hj->set_name(c.asset->skeleton.names[j]);
      }
    }
  }
  void operator()(const HitVolumesAnswer& h) const {
    auto* out = reply.mutable_hit_volumes();
    out->set_asset(h.asset->name);
    out->set_fitted(h.fitted);
    const auto& caps = h.volumes->capsules;
    for (size_t j = 0; j < caps.size(); ++j) {
      if (!caps[j].present()) continue;
      auto* jc = out->add_joints();
      jc->set_joint_index(static_cast<uint32_t>(j));
      jc->set_name(h.asset->skeleton.names[j]);
      to_proto(caps[j].a, jc->mutable_capsule()->mutable_a());
      to_proto(caps[j].b, jc->mutable_capsule()->mutable_b());
      jc->mutable_capsule()->set_radius(caps[j].radius);
    }
  }
};
}  // namespace

anim::v1::Reply to_reply(const anim::Expected<WorldResult>& result) {
  anim::v1::Reply reply;
  if (!result) {
    set_status(reply, result.error());
    return reply;
  }
  set_status(reply, Status::ok());
  std::visit(ResultWriter{reply}, *result);
  return reply;
}

}  // namespace animd
