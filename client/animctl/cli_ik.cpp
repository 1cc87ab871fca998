// animctl's IK commands: `ik` (goals on chains), `aim` (look-at) and `feet` (foot IK and the
// ground under it).
#include <string>
#include <vector>

#include "args.h"
#include "cli_commands.h"

namespace animctl {

namespace {

// A comma-separated list of floats, each within [lo, hi].
std::vector<float> parse_floats(const std::string& what, const std::string& text, float lo,
                                float hi) {
  std::vector<float> out;
  for (const std::string& item : parse_list(what, text))
    out.push_back(parse_float_in(what, item, lo, hi));
  return out;
}

}  // namespace

void add_ik(CLI::App& app, Plan& plan) {
  auto id = store<std::string>();
  CLI::App* sub = id_command(app, "ik", "Set or clear an IK goal", *id);
  sub->require_subcommand(1);

  struct SetOpts {
    std::string chain, solver = "fabrik", target, weight, pole, goal, iterations, tolerance, soften;
    bool world = false;
  };
  auto s = store<SetOpts>();
  CLI::App* set = sub->add_subcommand("set", "Set a goal on a chain (or move goal --goal G)");
  set->add_option("--chain", s->chain, "ROOT..EFFECTOR joints, e.g. upper_arm_l..hand_l")
      ->required();
  set->add_option("--solver", s->solver, "fabrik | ccd | two-bone (default fabrik)");
  set->add_option("--target", s->target, "target x,y,z (model space; --world for world)")
      ->required();
  set->add_flag("--world", s->world, "target and pole are in world space");
  set->add_option("--weight", s->weight, "0..1 (default 1)");
  set->add_option("--pole", s->pole, "two-bone: bend toward this point x,y,z");
  set->add_option("--goal", s->goal, "update this existing goal instead of adding one");
  set->add_option("--iterations", s->iterations, "CCD/FABRIK iterations (default 16)");
  set->add_option("--tolerance", s->tolerance, "CCD/FABRIK tolerance (default 1e-4)");
  set->add_option("--soften", s->soften, "two-bone softening 0..1");
  set->callback([id, s, &plan] {
    plan.command = "ik set";
    auto* goal = plan.request.mutable_set_ik_goal();
    goal->set_character_id(parse_id("character id", *id));
    const auto [root, effector] = parse_chain("--chain", s->chain);
    goal->set_root_joint(root);
    goal->set_effector_joint(effector);
    goal->set_solver(parse_solver(s->solver));
    goal->set_space(s->world ? anim::v1::SPACE_WORLD : anim::v1::SPACE_MODEL);
    *goal->mutable_target() = parse_vec3("--target", s->target);
    if (!s->weight.empty()) goal->set_weight(parse_float_in("--weight", s->weight, 0.0f, 1.0f));
    if (!s->pole.empty()) *goal->mutable_pole() = parse_vec3("--pole", s->pole);
    if (!s->goal.empty()) goal->set_goal_id(parse_id("--goal", s->goal));
    if (!s->iterations.empty()) {
      const uint64_t n = parse_u64("--iterations", s->iterations);
      if (n == 0 || n > 1000) throw UsageError("--iterations: must be 1 .. 1000");
      goal->set_max_iterations(static_cast<uint32_t>(n));
    }
    if (!s->tolerance.empty())
      goal->set_tolerance(parse_float_in("--tolerance", s->tolerance, 0.0f, 1e6f));
    if (!s->soften.empty()) goal->set_soften(parse_float_in("--soften", s->soften, 0.0f, 1.0f));
    plan.print_human = [](const Reply& r, std::ostream& out) {
      out << "IK goal " << r.set_ik_goal().goal_id() << " (" << tick_of(r) << ")\n";
    };
  });

  auto g = store<std::string>();
  CLI::App* clear = sub->add_subcommand("clear", "Remove an IK goal");
  clear->add_option("goal", *g, "goal id (from ik set)")->required();
  clear->callback([id, g, &plan] {
    plan.command = "ik clear";
    plan.request.mutable_clear_ik_goal()->set_character_id(parse_id("character id", *id));
    plan.request.mutable_clear_ik_goal()->set_goal_id(parse_id("goal id", *g));
  });
}

void add_aim(CLI::App& app, Plan& plan) {
  auto id = store<std::string>();
  CLI::App* sub = id_command(app, "aim", "Set, move or clear the aim (look-at) IK", *id);
  sub->require_subcommand(1);

  struct SetOpts {
    std::string chain, target, weight, forward, up, pole, joint_weights, max_angles;
    bool world = false;
  };
  auto s = store<SetOpts>();
  CLI::App* set = sub->add_subcommand("set", "Aim a chain's last joint at a target");
  set->add_option("--chain", s->chain, "ROOT..END joints, e.g. spine..head")->required();
  set->add_option("--target", s->target, "target point x,y,z (model space; --world for world)")
      ->required();
  set->add_flag("--world", s->world, "target and pole are in world space");
  set->add_option("--weight", s->weight, "0..1 (default 1)");
  set->add_option("--forward", s->forward, "forward axis in the end joint's frame (default 0,0,1)");
  set->add_option("--pole", s->pole, "direction the end joint's up axis leans toward x,y,z");
  set->add_option("--up", s->up, "with --pole: the end joint's up axis (default 0,1,0)");
  set->add_option("--joint-weights", s->joint_weights, "per chain joint, root first: w,w,...");
  set->add_option("--max-angles", s->max_angles, "per chain joint radians 0..pi: a,a,...");
  set->callback([id, s, &plan] {
    plan.command = "aim set";
    auto* aim = plan.request.mutable_set_aim_ik();
    aim->set_character_id(parse_id("character id", *id));
    const auto [root, end] = parse_chain("--chain", s->chain);
    aim->set_root_joint(root);
    aim->set_end_joint(end);
    aim->set_space(s->world ? anim::v1::SPACE_WORLD : anim::v1::SPACE_MODEL);
    *aim->mutable_target() = parse_vec3("--target", s->target);
    if (!s->weight.empty()) aim->set_weight(parse_float_in("--weight", s->weight, 0.0f, 1.0f));
    if (!s->forward.empty()) *aim->mutable_forward_axis() = parse_vec3("--forward", s->forward);
    if (!s->up.empty() && s->pole.empty()) throw UsageError("--up: needs --pole");
    if (!s->pole.empty()) *aim->mutable_pole() = parse_vec3("--pole", s->pole);
    if (!s->up.empty()) *aim->mutable_up_axis() = parse_vec3("--up", s->up);
    if (!s->joint_weights.empty())
      for (float w : parse_floats("--joint-weights", s->joint_weights, 0.0f, 1e6f))
        aim->add_joint_weights(w);
    if (!s->max_angles.empty())
      for (float a : parse_floats("--max-angles", s->max_angles, 0.0f, 3.14159265f))
        aim->add_max_angles(a);
  });

  struct MoveOpts {
    std::string target, weight;
  };
  auto m = store<MoveOpts>();
  CLI::App* move = sub->add_subcommand("move", "Move the aim's target (and weight)");
  move->add_option("--target", m->target, "target point x,y,z (the aim's space)")->required();
  move->add_option("--weight", m->weight, "0..1 (default: unchanged)");
  move->callback([id, m, &plan] {
    plan.command = "aim move";
    auto* mv = plan.request.mutable_move_aim_target();
    mv->set_character_id(parse_id("character id", *id));
    *mv->mutable_target() = parse_vec3("--target", m->target);
    if (!m->weight.empty()) mv->set_weight(parse_float_in("--weight", m->weight, 0.0f, 1.0f));
  });

  CLI::App* clear = sub->add_subcommand("clear", "Remove the aim IK");
  clear->callback([id, &plan] {
    plan.command = "aim clear";
    plan.request.mutable_clear_aim_ik()->set_character_id(parse_id("character id", *id));
  });
}

void add_feet(CLI::App& app, Plan& plan) {
  auto id = store<std::string>();
  CLI::App* sub = id_command(app, "feet", "Set or clear foot IK, or describe the ground", *id);
  sub->require_subcommand(1);

  struct SetOpts {
    std::string left, right, pelvis, sole_offsets, max_tilt, weight, contact_height, contact_speed,
        release_time;
    bool no_lock = false;
  };
  auto s = store<SetOpts>();
  CLI::App* set = sub->add_subcommand("set", "Foot IK on both legs (joints found by name)");
  set->add_option("--left", s->left, "left leg HIP,KNEE,ANKLE (default: found by name)");
  set->add_option("--right", s->right, "right leg HIP,KNEE,ANKLE (default: found by name)");
  set->add_option("--pelvis", s->pelvis, "joint lowered (default: the hips' common ancestor)");
  set->add_option("--sole-offsets", s->sole_offsets, "LEFT,RIGHT ankle heights above the sole");
  set->add_option("--max-tilt", s->max_tilt, "radians 0..1.5 (default 0.6)");
  set->add_option("--weight", s->weight, "0..1 (default 1)");
  set->add_flag("--no-lock", s->no_lock, "do not lock planted feet in place");
  set->add_option("--contact-height", s->contact_height, "stride curves: height threshold");
  set->add_option("--contact-speed", s->contact_speed, "stride curves: speed threshold");
  set->add_option("--release-time", s->release_time, "seconds 0..10 (default 0.2)");
  set->callback([id, s, &plan] {
    plan.command = "feet set";
    auto* f = plan.request.mutable_set_foot_ik();
    f->set_character_id(parse_id("character id", *id));
    const auto leg = [](const char* what, const std::string& text, anim::v1::LegJoints* out) {
      if (text.empty()) return;
      const std::vector<std::string> j = parse_list(what, text);
      if (j.size() != 3) throw UsageError(std::string(what) + ": expected HIP,KNEE,ANKLE");
      out->set_hip(j[0]);
      out->set_knee(j[1]);
      out->set_ankle(j[2]);
    };
    leg("--left", s->left, f->mutable_left());
    leg("--right", s->right, f->mutable_right());
    f->set_pelvis(s->pelvis);
    if (!s->sole_offsets.empty()) {
      const std::vector<float> o = parse_floats("--sole-offsets", s->sole_offsets, 0.0f, 1e6f);
      if (o.size() != 2) throw UsageError("--sole-offsets: expected LEFT,RIGHT");
      f->set_left_sole_offset(o[0]);
      f->set_right_sole_offset(o[1]);
    }
    if (!s->max_tilt.empty())
      f->set_max_tilt(parse_float_in("--max-tilt", s->max_tilt, 0.0f, 1.5f));
    if (!s->weight.empty()) f->set_weight(parse_float_in("--weight", s->weight, 0.0f, 1.0f));
    if (s->no_lock) f->set_lock_feet(false);
    if (!s->contact_height.empty())
      f->set_contact_height(parse_float_in("--contact-height", s->contact_height, 0.0f, 1e6f));
    if (!s->contact_speed.empty())
      f->set_contact_speed(parse_float_in("--contact-speed", s->contact_speed, 0.0f, 1e6f));
    if (!s->release_time.empty())
      f->set_release_time(parse_float_in("--release-time", s->release_time, 0.0f, 10.0f));
  });

  struct GroundOpts {
    std::string point, normal, heights, left_normal, right_normal, weight;
  };
  auto g = store<GroundOpts>();
  CLI::App* ground =
      sub->add_subcommand("ground", "The ground: a plane, or heights under the feet");
  ground->add_option("--point", g->point, "plane: a point x,y,z (world)");
  ground->add_option("--normal", g->normal, "plane: up-facing normal x,y,z (default 0,1,0)");
  ground->add_option("--heights", g->heights, "per foot: LEFT,RIGHT ground heights (world y)");
  ground->add_option("--left-normal", g->left_normal, "per foot: left normal (default 0,1,0)");
  ground->add_option("--right-normal", g->right_normal, "per foot: right normal (default 0,1,0)");
  ground->add_option("--weight", g->weight, "0..1: the foot IK's weight (default: unchanged)");
  ground->callback([id, g, &plan] {
    plan.command = "feet ground";
    auto* r = plan.request.mutable_set_ground();
    r->set_character_id(parse_id("character id", *id));
    const bool plane = !g->point.empty() || !g->normal.empty();
    const bool feet = !g->heights.empty() || !g->left_normal.empty() || !g->right_normal.empty();
    if (plane == feet) throw UsageError("feet ground: give --point/--normal or --heights");
    if (plane) {
      auto* p = r->mutable_plane();
      if (!g->point.empty()) *p->mutable_point() = parse_vec3("--point", g->point);
      if (!g->normal.empty()) *p->mutable_normal() = parse_vec3("--normal", g->normal);
    } else {
      if (g->heights.empty()) throw UsageError("--heights: required with per-foot normals");
      const std::vector<float> h = parse_floats("--heights", g->heights, -1e9f, 1e9f);
      if (h.size() != 2) throw UsageError("--heights: expected LEFT,RIGHT");
      auto* f = r->mutable_feet();
      f->mutable_left()->set_height(h[0]);
      f->mutable_right()->set_height(h[1]);
      if (!g->left_normal.empty())
        *f->mutable_left()->mutable_normal() = parse_vec3("--left-normal", g->left_normal);
      if (!g->right_normal.empty())
        *f->mutable_right()->mutable_normal() = parse_vec3("--right-normal", g->right_normal);
    }
    if (!g->weight.empty()) r->set_weight(parse_float_in("--weight", g->weight, 0.0f, 1.0f));
  });

  CLI::App* clear = sub->add_subcommand("clear", "Remove the foot IK");
  clear->callback([id, &plan] {
    plan.command = "feet clear";
    plan.request.mutable_clear_foot_ik()->set_character_id(parse_id("character id", *id));
  });
}

}  // namespace animctl
