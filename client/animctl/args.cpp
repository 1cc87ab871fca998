#include "args.h"

#include <charconv>
#include <cmath>
#include <numbers>

namespace animctl {

namespace {

std::string quoted(const std::string& s) {
  return "'" + s + "'";
}

}  // namespace

float parse_float(const std::string& what, const std::string& text) {
  float value = 0.0f;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  // from_chars takes no leading '+'; accept it since people type it.
  if (begin != end && *begin == '+') ++begin;
  const auto [ptr, ec] = std::from_chars(begin, end, value);
  if (text.empty() || ec != std::errc() || ptr != end)
    throw UsageError(what + ": " + quoted(text) + " is not a number");
  if (!std::isfinite(value))
    throw UsageError(what + ": " + quoted(text) + " is not a finite number");
  return value;
}

float parse_float_in(const std::string& what, const std::string& text, float lo, float hi) {
  const float value = parse_float(what, text);
  if (value < lo || value > hi)
    throw UsageError(what + ": " + quoted(text) + " is outside [" + std::to_string(lo) + ", " +
                     std::to_string(hi) + "]");
  return value;
}

uint64_t parse_u64(const std::string& what, const std::string& text) {
  uint64_t value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec == std::errc::result_out_of_range)
    throw UsageError(what + ": " + quoted(text) + " is not a non-negative integer in range");
  if (ec != std::errc() || ptr != text.data() + text.size())
    throw UsageError(what + ": " + quoted(text) + " is not a non-negative integer");
  return value;
}

uint32_t parse_id(const std::string& what, const std::string& text) {
  const uint64_t value = parse_u64(what, text);
  if (value == 0 || value > UINT32_MAX)
    throw UsageError(what + ": " + quoted(text) + " is not an id (1 .. 4294967295)");
  return static_cast<uint32_t>(value);
}

std::vector<std::string> parse_list(const std::string& what, const std::string& text) {
  std::vector<std::string> items;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    std::string item =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (item.empty()) throw UsageError(what + ": " + quoted(text) + " has an empty item");
    items.push_back(std::move(item));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return items;
}

anim::v1::Vec3 parse_vec3(const std::string& what, const std::string& text) {
  std::vector<std::string> parts;
  try {
    parts = parse_list(what, text);
  } catch (const UsageError&) {
    throw UsageError(what + ": " + quoted(text) + " is not x,y,z (three numbers)");
  }
  if (parts.size() != 3)
    throw UsageError(what + ": " + quoted(text) + " is not x,y,z (three numbers)");
  anim::v1::Vec3 v;
  v.set_x(parse_float(what + " x", parts[0]));
  v.set_y(parse_float(what + " y", parts[1]));
  v.set_z(parse_float(what + " z", parts[2]));
  return v;
}

std::pair<std::string, std::string> parse_chain(const std::string& what, const std::string& text) {
  const size_t dots = text.find("..");
  if (dots == std::string::npos || dots == 0 || dots + 2 >= text.size() ||
      text.find("..", dots + 2) != std::string::npos)
    throw UsageError(what + ": " + quoted(text) +
                     " is not ROOT..EFFECTOR (e.g. upper_arm_l..hand_l)");
  return {text.substr(0, dots), text.substr(dots + 2)};
}

anim::v1::IkSolver parse_solver(const std::string& text) {
  if (text == "fabrik") return anim::v1::IK_SOLVER_FABRIK;
  if (text == "ccd") return anim::v1::IK_SOLVER_CCD;
  if (text == "two-bone" || text == "two_bone" || text == "twobone")
    return anim::v1::IK_SOLVER_TWO_BONE;
  throw UsageError("--solver: " + quoted(text) + " is not one of fabrik, ccd, two-bone");
}

anim::v1::LayerTimeSource parse_time_source(const std::string& text) {
  if (text == "own") return anim::v1::LAYER_TIME_OWN_CLOCK;
  if (text == "base") return anim::v1::LAYER_TIME_BASE_NORMALIZED;
  if (text == "param") return anim::v1::LAYER_TIME_PARAMETER;
  throw UsageError("--time: " + quoted(text) + " is not one of own, base, param");
}

void parse_joint_weights(const std::string& what, const std::string& text,
                         google::protobuf::Map<std::string, float>& out) {
  for (const std::string& item : parse_list(what, text)) {
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      throw UsageError(what + ": " + quoted(item) + " is not JOINT=WEIGHT");
    out[item.substr(0, eq)] =
        parse_float_in(what + " " + item.substr(0, eq), item.substr(eq + 1), 0.0f, 1.0f);
  }
}

anim::v1::JointCapsule parse_joint_capsule(const std::string& what, const std::string& text) {
  const std::string form = " is not JOINT:ax,ay,az:bx,by,bz:radius";
  const size_t c1 = text.find(':');
  const size_t c2 = c1 == std::string::npos ? c1 : text.find(':', c1 + 1);
  const size_t c3 = c2 == std::string::npos ? c2 : text.find(':', c2 + 1);
  if (c3 == std::string::npos || c1 == 0 || text.find(':', c3 + 1) != std::string::npos)
    throw UsageError(what + ": " + quoted(text) + form);
  anim::v1::JointCapsule out;
  const std::string joint = text.substr(0, c1);
  if (joint[0] == '#') {
    const uint64_t index = parse_u64(what + " joint index", joint.substr(1));
    if (index > 0xffffffffu) throw UsageError(what + ": joint index " + joint + " is too large");
    out.set_joint_index(static_cast<uint32_t>(index));
  } else {
    out.set_joint_name(joint);
  }
  auto* capsule = out.mutable_capsule();
  *capsule->mutable_a() = parse_vec3(what + " a", text.substr(c1 + 1, c2 - c1 - 1));
  *capsule->mutable_b() = parse_vec3(what + " b", text.substr(c2 + 1, c3 - c2 - 1));
  capsule->set_radius(parse_float_in(what + " radius", text.substr(c3 + 1), 0.0f, 1e6f));
  return out;
}

anim::v1::Quat yaw_quat(float degrees) {
  const double half = degrees * std::numbers::pi / 360.0;
  anim::v1::Quat q;
  q.set_x(0.0f);
  q.set_y(static_cast<float>(std::sin(half)));
  q.set_z(0.0f);
  q.set_w(static_cast<float>(std::cos(half)));
  return q;
}

}  // namespace animctl
