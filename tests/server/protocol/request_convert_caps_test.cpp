// The caps on the repeated fields of requests (request_convert_caps.h): every repeated field
// reachable from a Request (found by walking the protobuf descriptors, so a field added to a
// .proto without a cap fails here) has one; a request with one entry over it is refused with
// the field, the count and the cap named; a valid request exactly at the cap is accepted;
// and a list far over its cap (a million entries) is refused the same way.
#include "protocol/request_convert_caps.h"

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "protocol/request_convert.h"
#include "protocol/request_convert_assets.h"
#include "protocol/request_convert_hits.h"
#include "session/command_table.h"

namespace animd {
namespace request_convert_caps_test {

using anim::v1::Request;
using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;

// What the daemon's edge makes of `r`: the caps, then its command's converter (the hit
// queries' own, which the session runs, or the World's).
anim::Status converted(const Request& r) {
  if (auto s = check_repeated_field_caps(r); !s) return s;
  if (r.has_raycast()) {
    auto c = raycast_request(r.raycast());
    return c ? anim::Status() : c.error();
  }
  if (r.has_overlap_sphere()) {
    auto c = overlap_sphere_request(r.overlap_sphere());
    return c ? anim::Status() : c.error();
  }
  if (r.has_load_asset()) {  // converted for the loader threads, whatever its values
    anim::v1::LoadAssetRequest copy = r.load_asset();
    return load_request_from_proto(std::move(copy)).detail_joints.size() ==
                   static_cast<size_t>(r.load_asset().detail_joints_size())
               ? anim::Status()
               : anim::invalid_argument("detail_joints lost in the conversion");
  }
  auto c = to_world_request(r);
  return c ? anim::Status() : c.error();
}

// The repeated fields under `d`, as "<prefix>.<field>" (nested messages followed, maps and
// repeated messages included), each with its descriptor path from the command's message. A
// message type already on the path (a recursive one: a state's nested StateMachineDef) is
// not followed again: its fields are those named where it first appears.
void collect_repeated(const Descriptor* d, const std::string& prefix,
                      std::vector<const FieldDescriptor*> path,
                      std::map<std::string, std::vector<const FieldDescriptor*>>& out, int depth) {
  ASSERT_LT(depth, 8) << prefix << ": messages nest too deep";
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    const std::string name = prefix + "." + f->name();
    auto here = path;
    here.push_back(f);
    if (f->is_repeated()) out[name] = here;
    if (f->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE || f->is_map()) continue;
    bool seen = false;
    for (const FieldDescriptor* p : path) seen = seen || p->message_type() == f->message_type();
    if (!seen) collect_repeated(f->message_type(), name, here, out, depth + 1);
  }
}

// Every repeated field of every command, by the name errors give it.
std::map<std::string, std::vector<const FieldDescriptor*>> repeated_fields_of_requests() {
  std::map<std::string, std::vector<const FieldDescriptor*>> out;
  const auto* oneof = Request::descriptor()->FindOneofByName("command");
  for (int i = 0; i < oneof->field_count(); ++i) {
    const FieldDescriptor* command = oneof->field(i);
    collect_repeated(command->message_type(), command->name(), {command}, out, 0);
  }
  return out;
}

const RepeatedFieldCap* cap_of(const std::string& field) {
  for (const auto& cap : kRepeatedFieldCaps)
    if (field == cap.field) return &cap;
  return nullptr;
}

// The refusal of `count` entries; a list inside a repeated message's entries is filled in the
// first entry, and the refusal names it ("a.list[0].inner has ...").
std::string refusal(const RepeatedFieldCap& cap, int count) {
  std::string field = cap.field;
  if (field == caps::kDefineStateMachineConditions.field)
    field = "define_state_machine.machine.transitions[0].conditions";
  return field + " has " + std::to_string(count) + " " + cap.unit + ", more than " +
         std::to_string(cap.limit) + " (" + cap.why + ")";
}

// Whether a field on `path` lies inside the entries of a repeated message (reflection cannot
// fill it without filling its parent: its request is made by hand, in valid_fillers()).
bool under_repeated(const std::vector<const FieldDescriptor*>& path) {
  for (size_t k = 0; k + 1 < path.size(); ++k)
    if (path[k]->is_repeated()) return true;
  return false;
}

// A request with `count` default entries in the repeated field at `path` (map entries with
// distinct keys), through reflection: no field is special-cased.
Request with_entries(const std::vector<const FieldDescriptor*>& path, int count) {
  Request r;
  Message* m = &r;
  for (size_t k = 0; k + 1 < path.size(); ++k) {
    if (path[k]->is_repeated()) {
      ADD_FAILURE() << path.back()->full_name() << ": under a repeated message; fill it by hand";
      return r;
    }
    m = m->GetReflection()->MutableMessage(m, path[k]);
  }
  const FieldDescriptor* f = path.back();
  const auto* refl = m->GetReflection();
  for (int i = 0; i < count; ++i) {
    switch (f->cpp_type()) {
      case FieldDescriptor::CPPTYPE_STRING:
        refl->AddString(m, f, "s" + std::to_string(i));
        break;
      case FieldDescriptor::CPPTYPE_UINT32:
        refl->AddUInt32(m, f, static_cast<uint32_t>(i));
        break;
      case FieldDescriptor::CPPTYPE_INT32:
        refl->AddInt32(m, f, i);
        break;
      case FieldDescriptor::CPPTYPE_FLOAT:
        refl->AddFloat(m, f, 0.0f);
        break;
      case FieldDescriptor::CPPTYPE_MESSAGE: {
        Message* entry = refl->AddMessage(m, f);
        if (f->is_map()) {
          const FieldDescriptor* key = f->message_type()->FindFieldByName("key");
          EXPECT_EQ(key->cpp_type(), FieldDescriptor::CPPTYPE_STRING) << f->full_name();
          entry->GetReflection()->SetString(entry, key, "k" + std::to_string(i));
        }
        break;
      }
      default:
        ADD_FAILURE() << f->full_name() << ": a repeated type this test cannot fill";
        return r;
    }
  }
  return r;
}

TEST(RequestCaps, EveryRepeatedFieldOfEveryRequestHasACap) {
  const auto fields = repeated_fields_of_requests();
  ASSERT_FALSE(fields.empty());
  for (const auto& [name, path] : fields) EXPECT_NE(cap_of(name), nullptr) << name << " has no cap";
  // And every cap names such a field, once.
  std::set<std::string> seen;
  for (const auto& cap : kRepeatedFieldCaps) {
    EXPECT_TRUE(fields.count(cap.field)) << cap.field << " is not a repeated field of a request";
    EXPECT_TRUE(seen.insert(cap.field).second) << cap.field << " is in the table twice";
    EXPECT_GT(cap.limit, 0) << cap.field;
  }
}

TEST(RequestCaps, OneEntryOverACapIsRefusedNamingFieldCountAndCap) {
  for (const auto& [name, path] : repeated_fields_of_requests()) {
    const RepeatedFieldCap* cap = cap_of(name);
    if (!cap) continue;                  // reported by the test above
    if (under_repeated(path)) continue;  // by hand: the next test
    SCOPED_TRACE(name);
    // At the cap the counts pass (the values are the request families' to check).
    EXPECT_TRUE(check_repeated_field_caps(with_entries(path, cap->limit)));
    const Request over = with_entries(path, cap->limit + 1);
    const anim::Status s = check_repeated_field_caps(over);
    ASSERT_FALSE(s);
    EXPECT_EQ(s.code(), cap->code);
    EXPECT_EQ(s.message(), refusal(*cap, cap->limit + 1));
    // The converters are not reached: refused the same way, before looking at any value.
    const anim::Status refused = converted(over);
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.code(), cap->code);
    EXPECT_EQ(refused.message(), refusal(*cap, cap->limit + 1));
  }
}

// A valid request with `n` entries in the capped field, for each cap.
std::map<std::string, std::function<void(Request&, int)>> valid_fillers() {
  auto ik = [](Request& r) {
    auto* g = r.mutable_set_ik_goal();
    g->set_character_id(1);
    g->set_root_joint("upper_arm_l");
    g->set_effector_joint("hand_l");
    return g;
  };
  auto aim = [](Request& r) {
    auto* a = r.mutable_set_aim_ik();
    a->set_character_id(1);
    a->set_root_joint("spine");
    a->set_end_joint("head");
    return a;
  };
  auto ray = [](Request& r) {
    auto* q = r.mutable_raycast();
    q->mutable_direction()->set_z(1.0f);
    q->set_max_distance(10.0f);
    return q;
  };
  auto blend = [](Request& r) {
    auto* d = r.mutable_define_blend_space();
    d->set_asset("builtin");
    d->set_name("locomotion");
    return d;
  };
  auto machine = [](Request& r) {
    auto* d = r.mutable_define_state_machine();
    d->set_asset("builtin");
    d->mutable_machine()->set_name("locomotion");
    return d->mutable_machine();
  };
  // A valid state (the form the converter checks), the request's first.
  auto state = [](Request& r) {
    auto* im = r.mutable_import_characters();
    auto* st = im->states_size() > 0 ? im->mutable_states(0) : im->add_states();
    st->set_version(1);
    st->set_asset("builtin");
    st->mutable_animator()->set_next_layer_id(1);
    st->mutable_animator()->set_next_goal_id(1);
    return st->mutable_animator();
  };
  auto layer = [=](Request& r) {
    auto* a = state(r);
    if (a->layers_size() > 0) return a->mutable_layers(0);
    auto* l = a->add_layers();
    l->set_id(1);
    return l;
  };
  auto goal = [=](Request& r) {
    auto* a = state(r);
    if (a->goals_size() > 0) return a->mutable_goals(0);
    auto* g = a->add_goals();
    g->set_id(1);
    return g;
  };
  return {
      {"export_characters.character_ids",
       [](Request& r, int n) {
         for (int i = 0; i < n; ++i) r.mutable_export_characters()->add_character_ids(i + 1);
       }},
      {"import_characters.states",
       [=](Request& r, int n) {
         for (int i = 0; i < n; ++i) {
           auto* st = r.mutable_import_characters()->add_states();
           st->set_version(1);
           st->set_asset("builtin");
           st->mutable_animator()->set_next_layer_id(1);
           st->mutable_animator()->set_next_goal_id(1);
         }
       }},
      {"import_characters.states.blend_spaces",
       [=](Request& r, int n) {
         state(r);
         for (int i = 0; i < n; ++i)
           r.mutable_import_characters()->mutable_states(0)->add_blend_spaces()->set_name(
               "b" + std::to_string(i));
       }},
      {"import_characters.states.animator.parameters",
       [=](Request& r, int n) {
         for (int i = 0; i < n; ++i) state(r)->add_parameters()->set_name("p" + std::to_string(i));
       }},
      {"import_characters.states.animator.triggers",
       [=](Request& r, int n) {
         for (int i = 0; i < n; ++i) state(r)->add_triggers()->set_name("t" + std::to_string(i));
       }},
      {"import_characters.states.animator.main.fades",
       [=](Request& r, int n) {
         for (int i = 0; i < n; ++i) state(r)->mutable_main()->add_fades()->set_duration(1.0f);
       }},
      {"import_characters.states.animator.machine.players",
       [=](Request& r, int n) {
         auto* m = state(r)->mutable_machine();
         m->mutable_machine()->set_name("loco");
         for (int i = 0; i < n; ++i) m->add_players();
       }},
      {"import_characters.states.animator.layers",
       [=](Request& r, int n) {
         for (int i = 0; i < n; ++i) state(r)->add_layers()->set_id(static_cast<uint32_t>(i + 1));
       }},
      {"import_characters.states.animator.layers.mask",
       [=](Request& r, int n) {
         for (int i = 0; i < n; ++i) layer(r)->add_mask(0.5f);
       }},
      {"import_characters.states.animator.layers.morph_targets",
       [=](Request& r, int n) {
         for (int i = 0; i < n; ++i) layer(r)->add_morph_targets("t" + std::to_string(i));
       }},
      {"import_characters.states.animator.layers.machine_track.fades",
       [=](Request& r, int n) {
         auto* l = layer(r);
         l->mutable_machine_driver()->mutable_machine()->set_name("loco");
         for (int i = 0; i < n; ++i) l->mutable_machine_track()->add_fades();
       }},
      {"import_characters.states.animator.layers.machine_driver.players",
       [=](Request& r, int n) {
         auto* l = layer(r);
         l->mutable_machine_track();
         l->mutable_machine_driver()->mutable_machine()->set_name("loco");
         for (int i = 0; i < n; ++i) l->mutable_machine_driver()->add_players();
       }},
      {"import_characters.states.animator.layers.montage.sections",
       [=](Request& r, int n) {
         for (int i = 0; i < n; ++i)
           layer(r)->mutable_montage()->add_sections()->set_name("s" + std::to_string(i));
       }},
      {"import_characters.states.animator.goals",
       [=](Request& r, int n) {
         for (int i = 0; i < n; ++i) state(r)->add_goals()->set_id(static_cast<uint32_t>(i + 1));
       }},
      {"import_characters.states.animator.goals.joint_weights",
       [=](Request& r, int n) {
         for (int i = 0; i < n; ++i) goal(r)->add_joint_weights(0.5f);
       }},
      {"import_characters.states.animator.goals.constraints",
       [=](Request& r, int n) {
         for (int i = 0; i < n; ++i) goal(r)->add_constraints();
       }},
      {"import_characters.states.animator.aim.joint_weights",
       [=](Request& r, int n) {
         for (int i = 0; i < n; ++i) state(r)->mutable_aim()->add_joint_weights(1.0f);
       }},
      {"import_characters.states.animator.aim.max_angles",
       [=](Request& r, int n) {
         for (int i = 0; i < n; ++i) state(r)->mutable_aim()->add_max_angles(1.0f);
       }},
      {"import_characters.states.animator.held_pose.locals",
       [=](Request& r, int n) {
         for (int i = 0; i < n; ++i)
           state(r)->mutable_held_pose()->add_locals(i % 10 == 6 ? 1.0f : 0.0f);
       }},
      {"import_characters.states.animator.morph_weights",
       [=](Request& r, int n) {
         for (int i = 0; i < n; ++i) state(r)->add_morph_weights(0.5f);
       }},
      {"import_characters.states.animator.morph_overrides",
       [=](Request& r, int n) {
         for (int i = 0; i < n; ++i) state(r)->add_morph_overrides();
       }},
      {"migrate.character_ids",
       [](Request& r, int n) {
         r.mutable_migrate()->mutable_target()->set_host("10.0.0.2");
         r.mutable_migrate()->mutable_target()->set_port(7450);
         for (int i = 0; i < n; ++i) r.mutable_migrate()->add_character_ids(i + 1);
       }},
      {"set_significance.character_ids",
       [](Request& r, int n) {
         r.mutable_set_significance()->set_significance(0.5f);
         for (int i = 0; i < n; ++i) r.mutable_set_significance()->add_character_ids(i + 1);
       }},
      {"query_pose.joint_names",
       [](Request& r, int n) {
         for (int i = 0; i < n; ++i)
           r.mutable_query_pose()->add_joint_names("j" + std::to_string(i));
       }},
      {"query_pose.joint_indices",
       [](Request& r, int n) {
         for (int i = 0; i < n; ++i) r.mutable_query_pose()->add_joint_indices(i);
       }},
      {"subscribe.character_ids",
       [](Request& r, int n) {
         for (int i = 0; i < n; ++i) r.mutable_subscribe()->add_character_ids(i + 1);
       }},
      {"raycast.ignore_character_ids",
       [=](Request& r, int n) {
         for (int i = 0; i < n; ++i) ray(r)->add_ignore_character_ids(i + 1);
       }},
      {"overlap_sphere.ignore_character_ids",
       [](Request& r, int n) {
         r.mutable_overlap_sphere()->set_radius(1.0f);
         for (int i = 0; i < n; ++i) r.mutable_overlap_sphere()->add_ignore_character_ids(i + 1);
       }},
      {"add_layer.mask.joint_weights",
       [](Request& r, int n) {
         auto& m = *r.mutable_add_layer()->mutable_mask()->mutable_joint_weights();
         for (int i = 0; i < n; ++i) m["j" + std::to_string(i)] = 0.5f;
       }},
      {"set_ik_goal.joint_weights",
       [=](Request& r, int n) {
         for (int i = 0; i < n; ++i) ik(r)->add_joint_weights(0.5f);
       }},
      {"set_ik_goal.constraints",
       [=](Request& r, int n) {
         for (int i = 0; i < n; ++i) {
           auto* c = ik(r)->add_constraints();
           c->set_joint("j" + std::to_string(i));
           c->mutable_ball_socket()->set_cone_angle(1.0f);
         }
       }},
      {"set_aim_ik.joint_weights",
       [=](Request& r, int n) {
         for (int i = 0; i < n; ++i) aim(r)->add_joint_weights(1.0f);
       }},
      {"set_aim_ik.max_angles",
       [=](Request& r, int n) {
         for (int i = 0; i < n; ++i) aim(r)->add_max_angles(1.0f);
       }},
      {"add_clip_events.events",
       [](Request& r, int n) {
         auto* a = r.mutable_add_clip_events();
         a->set_asset("builtin");
         a->set_clip("walk");
         for (int i = 0; i < n; ++i) a->add_events()->set_name("e" + std::to_string(i));
       }},
      {"define_blend_space.axes",
       [=](Request& r, int n) {
         for (int i = 0; i < n; ++i) blend(r)->add_axes("p" + std::to_string(i));
       }},
      {"define_blend_space.samples",
       [=](Request& r, int n) {
         blend(r)->add_axes("speed");
         for (int i = 0; i < n; ++i) {
           auto* s = blend(r)->add_samples();
           s->set_clip("walk");
           s->set_x(static_cast<float>(i));
         }
       }},
      {"play_montage.sections",
       [](Request& r, int n) {
         auto* m = r.mutable_play_montage();
         m->set_character_id(1);
         m->set_slot(1);
         m->set_clip("wave");
         for (int i = 0; i < n; ++i) {
           auto* s = m->add_sections();
           s->set_name("s" + std::to_string(i));
           s->set_start_time(0.01f * static_cast<float>(i));
         }
       }},
      {"define_state_machine.machine.states",
       [=](Request& r, int n) {
         for (int i = 0; i < n; ++i) {
           auto* s = machine(r)->add_states();
           s->set_name("s" + std::to_string(i));
           s->set_motion("walk");
         }
       }},
      {"define_state_machine.machine.transitions",
       [=](Request& r, int n) {
         for (int i = 0; i < n; ++i) {
           auto* t = machine(r)->add_transitions();
           t->set_from("s0");
           t->set_to("s1");
           t->set_exit_time(1.0f);
         }
       }},
      {"define_state_machine.machine.transitions.conditions",
       [=](Request& r, int n) {
         auto* t = machine(r)->add_transitions();
         t->set_from("s0");
         t->set_to("s1");
         for (int i = 0; i < n; ++i) {
           auto* c = t->add_conditions();
           c->set_parameter("p" + std::to_string(i));
           c->set_op(anim::v1::CONDITION_TRUE);
         }
       }},
      {"load_asset.detail_joints",
       [](Request& r, int n) {
         r.mutable_load_asset()->set_path("a.glb");
         for (int i = 0; i < n; ++i)
           r.mutable_load_asset()->add_detail_joints("joint" + std::to_string(i));
       }},
      {"set_hit_volumes.joints",
       [](Request& r, int n) {
         r.mutable_set_hit_volumes()->set_asset("builtin");
         for (int i = 0; i < n; ++i) {
           auto* j = r.mutable_set_hit_volumes()->add_joints();
           j->set_joint_index(i);
           j->mutable_capsule()->set_radius(0.1f);
         }
       }},
      {"set_pose.locals",
       [](Request& r, int n) {
         r.mutable_set_pose()->set_character_id(1);
         for (int i = 0; i < n; ++i) r.mutable_set_pose()->add_locals(i % 10 == 6 ? 1.0f : 0.0f);
       }},
      {"set_morph_weights.weights",
       [](Request& r, int n) {
         r.mutable_set_morph_weights()->set_character_id(1);
         for (int i = 0; i < n; ++i) {
           auto* w = r.mutable_set_morph_weights()->add_weights();
           w->set_index(static_cast<uint32_t>(i));
           w->set_value(0.5f);
         }
       }},
      {"clear_morph_weights.targets",
       [](Request& r, int n) {
         r.mutable_clear_morph_weights()->set_character_id(1);
         for (int i = 0; i < n; ++i)
           r.mutable_clear_morph_weights()->add_targets()->set_name("t" + std::to_string(i));
       }},
      {"add_layer.morph_targets",
       [](Request& r, int n) {
         r.mutable_add_layer()->set_clip("wave");
         for (int i = 0; i < n; ++i)
           r.mutable_add_layer()->add_morph_targets("t" + std::to_string(i));
       }},
  };
}

TEST(RequestCaps, AValidRequestAtTheCapIsAcceptedAndOneMoreIsRefused) {
  const auto fillers = valid_fillers();
  for (const auto& cap : kRepeatedFieldCaps) {
    SCOPED_TRACE(cap.field);
    auto fill = fillers.find(cap.field);
    ASSERT_NE(fill, fillers.end()) << "no valid request for this cap";
    Request at;
    fill->second(at, cap.limit);
    const anim::Status accepted = converted(at);
    EXPECT_TRUE(accepted) << accepted.message();
    Request over;
    fill->second(over, cap.limit + 1);
    const anim::Status refused = converted(over);
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.code(), cap.code);
    EXPECT_EQ(refused.message(), refusal(cap, cap.limit + 1));
  }
}

TEST(RequestCaps, AMillionRepeatsOfOneJointAreRefusedByTheCap) {
  Request r;
  r.mutable_query_pose()->set_character_id(1);
  r.mutable_query_pose()->mutable_joint_indices()->Resize(1000000, 0u);
  const auto refused = to_world_request(r);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code(), anim::StatusCode::kInvalidArgument);
  EXPECT_EQ(refused.error().message(),
            "query_pose.joint_indices has 1000000 indices, more than 1024 (a skeleton's joint "
            "limit)");
  Request names;
  for (int i = 0; i < 1025; ++i) names.mutable_query_pose()->add_joint_names("head");
  EXPECT_EQ(to_world_request(names).error().message(),
            "query_pose.joint_names has 1025 names, more than 1024 (a skeleton's joint limit)");
}

TEST(RequestCaps, QueryPoseNamesEachJointOnce) {
  auto query = [](std::vector<std::string> names, std::vector<uint32_t> indices) {
    Request r;
    r.mutable_query_pose()->set_character_id(1);
    for (const auto& n : names) r.mutable_query_pose()->add_joint_names(n);
    for (uint32_t i : indices) r.mutable_query_pose()->add_joint_indices(i);
    return to_world_request(r);
  };
  auto refused = [&](std::vector<std::string> names, std::vector<uint32_t> indices,
                     const std::string& message) {
    const auto converted = query(std::move(names), std::move(indices));
    ASSERT_FALSE(converted) << message;
    EXPECT_EQ(converted.error().code(), anim::StatusCode::kInvalidArgument);
    EXPECT_EQ(converted.error().message(), message);
  };
  refused({"head", "hand_l", "head"}, {},
          "query_pose.joint_names[2]: joint 'head' is already asked for by joint_names[0]");
  // The first repeat in request order, named with the first of its equals.
  refused({"a", "b", "c", "c", "b", "a"}, {},
          "query_pose.joint_names[3]: joint 'c' is already asked for by joint_names[2]");
  refused({}, {5, 7, 9, 7, 5, 5},
          "query_pose.joint_indices[3]: joint 7 is already asked for by joint_indices[1]");
  refused({}, {0, 0},
          "query_pose.joint_indices[1]: joint 0 is already asked for by "
          "joint_indices[0]");
  // Distinct lists pass (a name and an index of one joint: the history refuses those).
  const auto ok = query({"head", "hand_l"}, {0, 3, 2});
  ASSERT_TRUE(ok) << ok.error().message();
  const auto& q = std::get<QueryPose>(*ok);
  EXPECT_EQ(q.joint_names, (std::vector<std::string>{"head", "hand_l"}));
  EXPECT_EQ(q.joint_indices, (std::vector<uint32_t>{0, 3, 2}));
}

}  // namespace request_convert_caps_test
}  // namespace animd
