// Pose evaluation: base, fades, layers, local-to-model, IK (pose_evaluation.h).
#include "anim/pose_evaluation.h"

#include <algorithm>

#include "anim/blend.h"
#include "anim/clip.h"
#include "anim/ik_solvers.h"
#include "anim/local_to_model_job.h"
#include "anim/palette.h"
#include "anim/root_motion.h"
#include "anim/skeleton.h"
#include "pose_ik_steps.h"

namespace anim {

namespace {

const JointMask kAllJoints{};  // namespace scope: no guarded static init per evaluation

void run_sampling(const Skeleton& skeleton, const Clip& clip, float time, SamplingCursor* cursor,
                  bool skip_detail, std::span<Transform> out) {
  SamplingJob job;
  job.skip_detail = skip_detail;
  job.clip = &clip;
  job.time = time;
  job.cursor = cursor;
  job.rest = skeleton.rest_pose;
  job.output = out;
  job.run();
}

// A clip's pose (the rest pose for clip -1), with root motion taken out; a blend space's
// further samples (each pinned too, so their bodies blend, not their headings) mixed in.
void sample_clip(const Skeleton& skeleton, std::span<const Clip> clips, const ClipInput& in,
                 const RootMotionInput& root_motion, bool skip_detail,
                 std::vector<Transform>& term_buffer, std::span<Transform> out) {
  if (in.clip < 0) {
    // The rest pose is its own rest motion frame: nothing to take out.
    for (size_t j = 0; j < out.size(); ++j) out[j] = skeleton.rest_pose[j];
    return;
  }
  run_sampling(skeleton, clips[in.clip], in.time, in.cursor, skip_detail, out);
  remove_root_motion(skeleton, root_motion, out);
  if (in.num_terms <= 0) return;
  if (term_buffer.size() < out.size()) term_buffer.resize(out.size());
  const std::span<Transform> term = std::span(term_buffer).first(out.size());
  for (int k = 0; k < in.num_terms && k < 2; ++k) {
    const BlendTermInput& t = in.terms[static_cast<size_t>(k)];
    run_sampling(skeleton, clips[t.clip], t.time, t.cursor, skip_detail, term);
    remove_root_motion(skeleton, root_motion, term);
    blend(out, term, t.mix, kAllJoints, out);
  }
}

// A machine layer's pose into `out`: its source, then its fades blended over it.
void sample_machine_layer(const Skeleton& skeleton, std::span<const Clip> clips,
                          const MachineLayerInput& in, const RootMotionInput& root_motion,
                          bool skip_detail, PoseScratch& scratch, std::span<Transform> out) {
  sample_clip(skeleton, clips, in.source, root_motion, skip_detail, scratch.term, out);
  if (in.num_fades <= 0) return;
  if (scratch.layer.size() < out.size()) scratch.layer.resize(out.size());
  const std::span<Transform> fade = std::span(scratch.layer).first(out.size());
  for (const FadeInput& f : in.active_fades()) {
    sample_clip(skeleton, clips, f.source, root_motion, skip_detail, scratch.term, fade);
    blend(out, fade, f.weight, kAllJoints, out);
  }
}

void apply_layers(const Skeleton& skeleton, std::span<const Clip> clips, const PoseInputs& inputs,
                  const PoseSetup& setup, PoseScratch& scratch, std::span<Transform> sample,
                  std::span<Transform> locals) {
  size_t machine = 0;
  for (size_t i = 0; i < inputs.layers.size(); ++i) {
    const LayerInput& in = inputs.layers[i];
    const LayerSetup& layer = *setup.layers[i];
    const bool additive = layer.blend == LayerBlend::kAdditive;
    if (layer.machine) {
      const size_t k = machine++;
      if (in.weight <= 0.0f || k >= inputs.machine_layers.size()) continue;
      // An additive machine layer's delta keeps its root joint's travel, as a clip layer's.
      const RootMotionInput motion = additive ? RootMotionInput{} : inputs.root_motion;
      sample_machine_layer(skeleton, clips, inputs.machine_layers[k], motion, inputs.skip_detail,
                           scratch, sample);
    } else {
      if (in.weight <= 0.0f) continue;  // weight 0: the pose is untouched
      run_sampling(skeleton, clips[layer.clip], in.time, in.cursor, inputs.skip_detail, sample);
      // An override layer's clip is a whole pose: in place, like the base (it moves nothing).
      if (!additive) remove_root_motion(skeleton, inputs.root_motion, sample);
    }
    if (additive)
      add_additive(locals, sample, layer.reference, in.weight, layer.mask, locals);
    else
      blend(locals, sample, in.weight, layer.mask, locals);
  }
}

// The rotation part of an affine matrix without shear (uniform or not).
glm::quat rotation_of(const glm::mat4& m) {
  return from_matrix(m).rotation;
}

void apply_ik(const Skeleton& s, const PoseInputs& inputs, const PoseSetup& setup,
              PoseScratch& scratch, PoseOutput out) {
  const Transform world_to_model = inverse(inputs.root);
  for (size_t i = 0; i < inputs.goals.size(); ++i) {
    const GoalInput& in = inputs.goals[i];
    if (in.weight <= 0.0f) continue;  // weight 0: the animated pose, untouched
    const GoalSetup& g = *setup.goals[i];
    const IkGoalDesc& d = g.desc;
    const int n = static_cast<int>(g.joints.size());
    const bool world = d.space == IkSpace::kWorld;
    const glm::vec3 target = world ? transform_point(world_to_model, in.target) : in.target;
    const glm::vec3 pole = world ? transform_point(world_to_model, d.pole) : d.pole;

    const auto positions = std::span(scratch.positions).first(n);
    const auto rotations = std::span(scratch.rotations).first(n);
    const auto solved = std::span(scratch.solved).first(n);
    for (int k = 0; k < n; ++k) {
      const glm::mat4& m = out.model[g.joints[k]];
      positions[k] = glm::vec3(m[3]);
      rotations[k] = rotation_of(m);
    }
    const int parent = s.parents[g.joints[0]];
    ik::Chain chain;
    chain.positions = positions;
    chain.rotations = rotations;
    chain.parent_rotation = rotation_of(parent < 0 ? s.root_transform : out.model[parent]);
    chain.rest_locals = g.rest_locals;
    chain.bone_dirs = g.bone_dirs;
    chain.constraints = d.constraints;
    // The daemon's IK budget may scale every iterative goal down (at least one sweep).
    const float scale = inputs.ik_iteration_scale;
    const int iterations =
        scale >= 1.0f ? d.max_iterations
                      : std::max(1, static_cast<int>(static_cast<float>(d.max_iterations) * scale));
    switch (d.solver) {
      case IkSolver::kCcd:
        ik::solve_ccd(chain, target, d.joint_weights, iterations, d.tolerance);
        break;
      case IkSolver::kFabrik:
        ik::solve_fabrik(chain, target, solved, iterations, d.tolerance);
        break;
      case IkSolver::kTwoBone:
        ik::solve_two_bone(chain, target, d.has_pole ? &pole : nullptr, d.soften, solved);
        break;
    }
    // Back to local rotations (the effector keeps its own), blended with the animated ones.
    for (int k = 0; k + 1 < n; ++k) {
      glm::quat& animated = out.locals[g.joints[k]].rotation;
      const glm::quat local = chain.local(k);
      animated = in.weight >= 1.0f ? local : slerp_shortest(animated, local, in.weight);
    }
    LocalToModelJob job;
    job.skeleton = &s;
    job.input = out.locals;
    job.output = out.model;
    job.from = g.joints[0];
    job.run();
  }
}

}  // namespace

bool evaluate_pose(const Skeleton& skeleton, std::span<const Clip> clips, const PoseInputs& inputs,
                   const PoseSetup* setup, PoseScratch& scratch, PoseOutput output) {
  const size_t n = static_cast<size_t>(skeleton.num_joints());
  if (scratch.sample.size() < n) scratch.sample.resize(n);
  const std::span<Transform> sample = std::span(scratch.sample).first(n);
  // An additive layer's reference pose is the character's own memory, read once per update
  // and cold by then (the hardware's prefetcher only starts after the first misses): asked
  // for now, it arrives while the clips are sampled.
  if (setup)
    for (size_t i = 0; i < inputs.layers.size() && i < setup->layers.size(); ++i) {
      const std::vector<Transform>& ref = setup->layers[i]->reference;
      if (inputs.layers[i].weight <= 0.0f || ref.empty()) continue;
      const char* p = reinterpret_cast<const char*>(ref.data());
      for (size_t off = 0; off < ref.size() * sizeof(Transform); off += 64)
        __builtin_prefetch(p + off);
    }
  // Base, then every fade blended onto the result so far, then layers, the held pose, IK.
  const bool skip = inputs.skip_detail;
  sample_clip(skeleton, clips, inputs.base, inputs.root_motion, skip, scratch.term, output.locals);
  for (const FadeInput& f : inputs.fades) {
    sample_clip(skeleton, clips, f.source, inputs.root_motion, skip, scratch.term, sample);
    blend(output.locals, sample, f.weight, kAllJoints, output.locals);
  }
  if (setup) apply_layers(skeleton, clips, inputs, *setup, scratch, sample, output.locals);
  if (setup && setup->held && inputs.held_weight > 0.0f)
    blend(output.locals, setup->held->locals, inputs.held_weight, kAllJoints, output.locals);
  // Every joint is written by here: the sampling leaves skipped detail joints unspecified, and
  // Animator::update(dt, buffers, previous) hands over storage that held another pose.
  if (skip)
    for (const int32_t j : skeleton.detail_joints)
      output.locals[static_cast<size_t>(j)] = skeleton.rest_pose[static_cast<size_t>(j)];
  if (output.feet) output.feet->ran = false;
  // Weight 0 skips a step entirely: the pose is bit for bit the one without it.
  const bool feet = setup && setup->feet && inputs.feet.weight > 0.0f && inputs.feet.has_ground;
  const bool aim = setup && setup->aim && inputs.aim.weight > 0.0f;
  const bool goals = setup && !inputs.goals.empty();
  if (output.skip_model && !feet && !aim && !goals) return false;
  local_to_model(skeleton, output.locals, output.model);
  if (feet) apply_foot_ik(skeleton, inputs, *setup->feet, scratch, output);
  if (aim) apply_aim_ik(skeleton, inputs, *setup->aim, scratch, output);
  if (goals) apply_ik(skeleton, inputs, *setup, scratch, output);
  return true;
}

}  // namespace anim
