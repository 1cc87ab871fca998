#include "persist/journal_convert.h"

#include "protocol/proto_convert.h"
#include "protocol/request_convert_assets.h"
#include "protocol/request_convert_caps.h"
#include "protocol/request_convert_clips.h"
#include "protocol/request_convert_hits.h"
#include "protocol/request_convert_state_machine.h"

namespace animd {

namespace {

anim::v1::ConditionOp op_to_proto(anim::ConditionOp op) {
  // The wire's values follow the domain's order from 1 (0 is "unset").
  return static_cast<anim::v1::ConditionOp>(static_cast<int>(op) + 1);
}

anim::v1::BlendCurve curve_to_proto(anim::BlendCurve c) {
  return c == anim::BlendCurve::kSmoothStep ? anim::v1::BLEND_CURVE_SMOOTH_STEP
                                            : anim::v1::BLEND_CURVE_LINEAR;
}

anim::v1::TransitionSync sync_to_proto(anim::TransitionSync s) {
  switch (s) {
    case anim::TransitionSync::kNormalized:
      return anim::v1::TRANSITION_SYNC_NORMALIZED;
    case anim::TransitionSync::kMarkers:
      return anim::v1::TRANSITION_SYNC_MARKERS;
    case anim::TransitionSync::kNone:
      break;
  }
  return anim::v1::TRANSITION_SYNC_NONE;
}

void machine_to_proto(const anim::StateMachineDesc& m, anim::v1::StateMachineDef* out) {
  out->set_name(m.name);
  out->set_entry(m.entry);
  for (const anim::StateDesc& s : m.states) {
    auto* d = out->add_states();
    d->set_name(s.name);
    d->set_motion(s.motion);
    d->set_speed(s.speed);
    d->set_loop(s.loop);
    if (!s.machine.empty()) machine_to_proto(s.machine.front(), d->mutable_machine());
  }
  for (const anim::TransitionDesc& t : m.transitions) {
    auto* d = out->add_transitions();
    d->set_from(t.any_state ? std::string("*") : t.from);
    d->set_to(t.to);
    for (const anim::ConditionDesc& c : t.conditions) {
      auto* cd = d->add_conditions();
      cd->set_parameter(c.parameter);
      cd->set_op(op_to_proto(c.op));
      cd->set_value(c.value);
    }
    if (t.exit_time >= 0.0f) d->set_exit_time(t.exit_time);
    d->set_duration(t.duration);
    d->set_curve(curve_to_proto(t.curve));
    d->set_sync(sync_to_proto(t.sync));
    d->set_priority(t.priority);
    d->set_interruptible(t.interruptible);
  }
}

}  // namespace

anim::v1::Request journal_request(const LoadRequest& r) {
  anim::v1::Request out;
  auto* l = out.mutable_load_asset();
  switch (r.source) {
    case LoadRequest::Source::kPath:
      l->set_path(r.path);
      break;
    case LoadRequest::Source::kGlbData:
      l->set_glb_data(r.data);
      break;
    case LoadRequest::Source::kBvhData:
      l->set_bvh_data(r.data);
      break;
    case LoadRequest::Source::kNone:
      break;
  }
  l->set_name(r.name);
  l->set_skin_name(r.skin_name);
  if (r.skin_index) l->set_skin_index(*r.skin_index);
  l->set_attach_to(r.attach_to);
  if (r.bvh_scale) l->set_bvh_scale(*r.bvh_scale);
  l->set_clip_name(r.clip_name);
  l->set_shared(r.shared);
  return out;
}

std::optional<anim::v1::Request> journal_request(const WorldRequest& request) {
  anim::v1::Request out;
  if (const auto* r = std::get_if<DefineBlendSpace>(&request)) {
    auto* d = out.mutable_define_blend_space();
    d->set_asset(r->asset);
    d->set_name(r->name);
    for (const auto& a : r->axes) d->add_axes(a);
    for (const auto& [clip, at] : r->samples) {
      auto* s = d->add_samples();
      s->set_clip(clip);
      s->set_x(at.x);
      s->set_y(at.y);
    }
    d->set_sync_markers(r->sync_markers);
  } else if (const auto* r = std::get_if<DefineStateMachine>(&request)) {
    auto* d = out.mutable_define_state_machine();
    d->set_asset(r->asset);
    machine_to_proto(r->machine, d->mutable_machine());
  } else if (const auto* r = std::get_if<AddClipEvents>(&request)) {
    auto* d = out.mutable_add_clip_events();
    d->set_asset(r->asset);
    d->set_clip(r->clip);
    for (const anim::ClipEvent& e : r->events) {
      auto* ed = d->add_events();
      ed->set_name(e.name);
      ed->set_time(e.time);
      ed->set_payload(e.payload);
    }
    d->set_replace(r->replace);
  } else if (const auto* r = std::get_if<SetHitVolumes>(&request)) {
    auto* d = out.mutable_set_hit_volumes();
    d->set_asset(r->asset);
    d->set_reset(r->reset);
    for (const JointCapsuleEdit& j : r->joints) {
      auto* jd = d->add_joints();
      if (!j.joint_name.empty())
        jd->set_joint_name(j.joint_name);
      else
        jd->set_joint_index(j.joint_index);
      to_proto(j.capsule.a, jd->mutable_capsule()->mutable_a());
      to_proto(j.capsule.b, jd->mutable_capsule()->mutable_b());
      jd->mutable_capsule()->set_radius(j.capsule.radius);
    }
  } else if (const auto* r = std::get_if<UnloadAsset>(&request)) {
    out.mutable_unload_asset()->set_asset(r->asset);
  } else {
    return std::nullopt;
  }
  return out;
}

anim::Expected<JournaledChange> journaled_change(anim::v1::Request&& r) {
  if (auto s = check_repeated_field_caps(r); !s) return s;
  JournaledChange out;
  switch (r.command_case()) {
    case anim::v1::Request::kLoadAsset:
      out.load = load_request_from_proto(std::move(*r.mutable_load_asset()));
      return out;
    case anim::v1::Request::kDefineBlendSpace: {
      auto c = define_blend_space_request(r.define_blend_space());
      if (!c) return c.error();
      out.request = std::move(*c);
      return out;
    }
    case anim::v1::Request::kDefineStateMachine: {
      auto c = define_state_machine_request(r.define_state_machine());
      if (!c) return c.error();
      out.request = std::move(*c);
      return out;
    }
    case anim::v1::Request::kAddClipEvents: {
      auto c = add_clip_events_request(r.add_clip_events());
      if (!c) return c.error();
      out.request = std::move(*c);
      return out;
    }
    case anim::v1::Request::kSetHitVolumes: {
      auto c = set_hit_volumes_request(r.set_hit_volumes());
      if (!c) return c.error();
      out.request = std::move(*c);
      return out;
    }
    case anim::v1::Request::kUnloadAsset:
      if (r.unload_asset().asset().empty())
        return anim::invalid_argument("unload_asset.asset is empty");
      out.request = WorldRequest(UnloadAsset{r.unload_asset().asset()});
      return out;
    default:
      return anim::invalid_argument("not a request the asset journal holds (field " +
                                    std::to_string(static_cast<int>(r.command_case())) + ")");
  }
}

}  // namespace animd
