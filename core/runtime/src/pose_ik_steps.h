#pragma once
// The aim and foot IK steps of evaluate_pose (pose_evaluation.cpp), each in its own file.
// They run on the model matrices after local_to_model, write local rotations (and, for the
// pelvis drop, one local translation) back into `out` and recompute the model matrices they
// changed. No allocation.

#include "anim/pose_evaluation.h"

namespace anim {

// inputs.aim.weight > 0.
void apply_aim_ik(const Skeleton& s, const PoseInputs& inputs, const AimSetup& aim,
                  PoseScratch& scratch, PoseOutput out);

// inputs.feet.weight > 0 and inputs.feet.has_ground.
void apply_foot_ik(const Skeleton& s, const PoseInputs& inputs, const FootIkSetup& feet,
                   PoseScratch& scratch, PoseOutput out);

}  // namespace anim
