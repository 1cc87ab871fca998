#pragma once
// Strict parsing of command-line values for animctl. Every parser accepts the whole string
// or throws UsageError naming what was wrong ("--target: '1,2' is not x,y,z"), so that a
// bad value never reaches the daemon and the tool exits with code 2.

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "anim/v1/characters.pb.h"
#include "anim/v1/hits.pb.h"
#include "anim/v1/types.pb.h"

namespace animctl {

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A finite float ("0.25", "-1", "1e-3"); NaN, inf, "abc", "1.5x" are rejected.
float parse_float(const std::string& what, const std::string& text);
// A finite float within [lo, hi].
float parse_float_in(const std::string& what, const std::string& text, float lo, float hi);
// A non-negative integer that fits in uint64 ("12"; not "-1", "1.0", "0x10").
uint64_t parse_u64(const std::string& what, const std::string& text);
// A positive id that fits in uint32 (character, layer, goal ids are > 0).
uint32_t parse_id(const std::string& what, const std::string& text);
// "x,y,z": exactly three finite floats.
anim::v1::Vec3 parse_vec3(const std::string& what, const std::string& text);
// "a,b,c" -> {"a","b","c"}; empty items are rejected.
std::vector<std::string> parse_list(const std::string& what, const std::string& text);
// "hips..hand_l" -> {"hips", "hand_l"}.
std::pair<std::string, std::string> parse_chain(const std::string& what, const std::string& text);
// "fabrik" | "ccd" | "two-bone" (also "two_bone", "twobone").
anim::v1::IkSolver parse_solver(const std::string& text);
// "own" | "base" | "param".
anim::v1::LayerTimeSource parse_time_source(const std::string& text);
// "spine=0.5,neck=1" -> per-joint weights, each in [0, 1].
void parse_joint_weights(const std::string& what, const std::string& text,
                         google::protobuf::Map<std::string, float>& out);

// "JOINT:ax,ay,az:bx,by,bz:radius" -> a joint's hit capsule (joint space). JOINT is a name,
// or "#N" for joint index N. The radius is >= 0 (0 removes the joint's volume).
anim::v1::JointCapsule parse_joint_capsule(const std::string& what, const std::string& text);

// A rotation of `degrees` about +Y (yaw), as a unit quaternion.
anim::v1::Quat yaw_quat(float degrees);

}  // namespace animctl
