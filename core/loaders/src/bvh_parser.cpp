// The BVH grammar (bvh_parser.h) over the lexer's tokens: HIERARCHY with an explicit stack of
// open joints (no recursion, so nesting depth costs no call stack), then MOTION line by line.
#include "bvh_parser.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>

#include <glm/gtc/quaternion.hpp>

#include "bvh_lexer.h"

namespace anim::bvh {

const char* channel_name(ChannelKind c) {
  switch (c) {
    case ChannelKind::kXposition:
      return "Xposition";
    case ChannelKind::kYposition:
      return "Yposition";
    case ChannelKind::kZposition:
      return "Zposition";
    case ChannelKind::kXrotation:
      return "Xrotation";
    case ChannelKind::kYrotation:
      return "Yrotation";
    case ChannelKind::kZrotation:
      return "Zrotation";
  }
  return "?";
}

namespace {

bool channel_from(std::string_view token, ChannelKind& out) {
  for (int c = 0; c < 6; ++c)
    if (same_word(token, channel_name(static_cast<ChannelKind>(c)))) {
      out = static_cast<ChannelKind>(c);
      return true;
    }
  return false;
}

// Joint names travel in protobuf strings and log lines: well-formed UTF-8, no control bytes.
bool valid_name(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if (c < 0x20 || c == 0x7f) return false;
      ++i;
      continue;
    }
    int more = 0;
    uint32_t cp = 0;
    if ((c & 0xE0) == 0xC0) {
      more = 1, cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      more = 2, cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      more = 3, cp = c & 0x07;
    } else {
      return false;
    }
    if (i + static_cast<size_t>(more) >= s.size()) return false;
    for (int k = 1; k <= more; ++k) {
      const auto d = static_cast<unsigned char>(s[i + k]);
      if ((d & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (d & 0x3F);
    }
    // Overlong forms, surrogates and values past U+10FFFF are not UTF-8.
    static constexpr uint32_t kMin[4] = {0, 0x80, 0x800, 0x10000};
    if (cp < kMin[more] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += static_cast<size_t>(more) + 1;
  }
  return true;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool starts_with_word(std::string_view s, std::string_view word) {
  return s.size() >= word.size() && same_word(s.substr(0, word.size()), word);
}

const char* describe(NumberResult r) {
  switch (r) {
    case NumberResult::kNaN:
      return "is NaN";
    case NumberResult::kInfinite:
      return "is infinite";
    case NumberResult::kTooLarge:
      return "is out of range (magnitude above 1e7)";
    default:
      return "is not a number";
  }
}

class Parser {
 public:
  Parser(std::string_view text, const std::string& label) : lex_(text, label) {}
  void set_max_decoded_bytes(uint64_t max) { max_decoded_bytes_ = max; }

  Expected<BvhFile> run() {
    read_hierarchy();
    read_motion_header();
    read_frames();
    if (!lex_.ok()) return lex_.status();
    return std::move(file_);
  }

 private:
  // How joint `j` is named in messages.
  std::string who(int j) const {
    const BvhJoint& b = file_.joints[j];
    if (!b.end_site) return "joint '" + b.name + "'";
    return "the End Site of joint '" + file_.joints[b.parent].name + "'";
  }

  // A number for `what`; on failure records the error and returns 0.
  double number(std::string_view what) {
    const Token t = lex_.next();
    if (t.text.empty()) {
      lex_.fail(lex_.last_line(), "the file ends where " + std::string(what) + " was expected");
      return 0.0;
    }
    double v = 0.0;
    const NumberResult r = parse_number(t.text, v);
    if (r != NumberResult::kOk)
      lex_.fail(t.line, std::string(what) + " " + quoted(t.text) + " " + describe(r),
                StatusCode::kInvalidArgument);
    return v;
  }

  void read_hierarchy() {
    const Token first = lex_.next();
    if (!same_word(first.text, "HIERARCHY"))
      return lex_.fail(first.line == 0 ? 1 : first.line,
                       "expected HIERARCHY at the start of a .bvh file, found " +
                           (first.text.empty() ? std::string("nothing") : quoted(first.text)),
                       StatusCode::kInvalidArgument);
    std::vector<int> open;  // joints whose '{' is open, innermost last
    while (lex_.ok()) {
      const Token t = lex_.next();
      if (t.text.empty()) {
        if (open.empty()) return lex_.fail(lex_.last_line(), "the file ends before MOTION");
        return lex_.fail(lex_.last_line(), "the file ends inside " + who(open.back()) + " (line " +
                                               std::to_string(file_.joints[open.back()].line) +
                                               "): a '}' is missing");
      }
      if (open.empty()) {
        if (same_word(t.text, "ROOT")) {
          begin_joint(t, -1, false, open);
        } else if (same_word(t.text, "MOTION")) {
          if (file_.joints.empty())
            lex_.fail(t.line, "MOTION before any ROOT: the file has no skeleton",
                      StatusCode::kInvalidArgument);
          return;
        } else {
          lex_.fail(t.line, "expected ROOT or MOTION, found " + quoted(t.text),
                    StatusCode::kInvalidArgument);
        }
        continue;
      }
      const int j = open.back();
      if (same_word(t.text, "OFFSET")) {
        read_offset(j, t);
      } else if (same_word(t.text, "CHANNELS")) {
        read_channels(j, t);
      } else if (same_word(t.text, "JOINT") || same_word(t.text, "End")) {
        const bool end_site = same_word(t.text, "End");
        if (file_.joints[j].end_site) {
          lex_.fail(t.line, who(j) + " cannot have children", StatusCode::kInvalidArgument);
        } else if (complete(j, t.line, "before its first child")) {
          has_children_[j] = true;
          begin_joint(t, j, end_site, open);
        }
      } else if (t.text == "}") {
        if (complete(j, t.line, "at its closing '}'")) open.pop_back();
      } else {
        lex_.fail(t.line,
                  "expected OFFSET, CHANNELS, JOINT, End Site or '}' in " + who(j) + ", found " +
                      quoted(t.text),
                  StatusCode::kInvalidArgument);
      }
    }
  }

  // Checks that joint `j` has what it needs (OFFSET; CHANNELS unless an End Site) `when`.
  bool complete(int j, int64_t line, const char* when) {
    const BvhJoint& b = file_.joints[j];
    if (!has_offset_[j]) {
      lex_.fail(line, who(j) + " (line " + std::to_string(b.line) + ") has no OFFSET " + when,
                StatusCode::kInvalidArgument);
      return false;
    }
    if (!b.end_site && !has_channels_[j]) {
      lex_.fail(line, who(j) + " (line " + std::to_string(b.line) + ") has no CHANNELS " + when,
                StatusCode::kInvalidArgument);
      return false;
    }
    return true;
  }

  // After ROOT / JOINT / End: the name (or "Site"), then '{' on the same line or the next.
  void begin_joint(const Token& keyword, int parent, bool end_site, std::vector<int>& open) {
    if (static_cast<int>(file_.joints.size()) >= kMaxJoints)
      return lex_.fail(keyword.line,
                       "more than " + std::to_string(kMaxJoints) +
                           " joints (End Sites included): the skeleton limit",
                       StatusCode::kResourceExhausted);
    BvhJoint b;
    b.parent = parent;
    b.end_site = end_site;
    b.line = keyword.line;
    bool brace = false;
    if (end_site) {
      const Token site = lex_.next();
      if (site.line != keyword.line || !same_word(site.text, "Site"))
        return lex_.fail(keyword.line,
                         "expected 'End Site', found 'End' then " +
                             (site.text.empty() ? "nothing" : quoted(site.text)),
                         StatusCode::kInvalidArgument);
    } else {
      std::string_view name = lex_.rest_of_line();
      if (!name.empty() && name.back() == '{') {
        brace = true;
        name = trim(name.substr(0, name.size() - 1));
      }
      const std::string kind = parent < 0 ? "ROOT" : "JOINT";
      if (name.empty())
        return lex_.fail(keyword.line, kind + " without a name", StatusCode::kInvalidArgument);
      if (name.size() > kMaxNameBytes)
        return lex_.fail(keyword.line,
                         kind + " name of " + std::to_string(name.size()) +
                             " bytes is longer than " + std::to_string(kMaxNameBytes),
                         StatusCode::kInvalidArgument);
      if (!valid_name(name))
        return lex_.fail(keyword.line,
                         kind + " name " + quoted(name) +
                             " is not valid UTF-8 text (control characters or bad bytes)",
                         StatusCode::kInvalidArgument);
      auto [it, added] = names_.emplace(std::string(name), keyword.line);
      if (!added)
        return lex_.fail(keyword.line,
                         "joint name '" + std::string(name) + "' is used twice (first on line " +
                             std::to_string(it->second) + ")",
                         StatusCode::kInvalidArgument);
      b.name = std::string(name);
    }
    if (!brace) {
      const Token t = lex_.next();
      if (t.text != "{")
        return lex_.fail(t.text.empty() ? lex_.last_line() : t.line,
                         "expected '{' to open " +
                             (end_site ? "an End Site" : "joint '" + b.name + "'") + ", found " +
                             (t.text.empty() ? std::string("the end of the file") : quoted(t.text)),
                         t.text.empty() ? StatusCode::kDataLoss : StatusCode::kInvalidArgument);
    }
    file_.joints.push_back(std::move(b));
    has_offset_.push_back(false);
    has_channels_.push_back(false);
    has_children_.push_back(false);
    open.push_back(static_cast<int>(file_.joints.size()) - 1);
  }

  void read_offset(int j, const Token& keyword) {
    if (has_offset_[j])
      return lex_.fail(keyword.line, who(j) + " has a second OFFSET", StatusCode::kInvalidArgument);
    if (has_children_[j])
      return lex_.fail(keyword.line, "the OFFSET of " + who(j) + " comes after its children",
                       StatusCode::kInvalidArgument);
    glm::dvec3 o;
    const std::string what = "OFFSET of " + who(j);
    for (int a = 0; a < 3; ++a) o[a] = number(what);
    file_.joints[j].offset = o;
    has_offset_[j] = true;
  }

  void read_channels(int j, const Token& keyword) {
    BvhJoint& b = file_.joints[j];
    if (b.end_site)
      return lex_.fail(keyword.line, "an End Site has no CHANNELS", StatusCode::kInvalidArgument);
    if (has_channels_[j])
      return lex_.fail(keyword.line, who(j) + " has a second CHANNELS",
                       StatusCode::kInvalidArgument);
    if (has_children_[j])
      return lex_.fail(keyword.line, "the CHANNELS of " + who(j) + " come after its children",
                       StatusCode::kInvalidArgument);
    const Token count = lex_.next();
    double n = -1.0;
    if (parse_number(count.text, n) != NumberResult::kOk || n != std::floor(n) || n < 0 || n > 6)
      return lex_.fail(count.text.empty() ? keyword.line : count.line,
                       "CHANNELS of " + who(j) + ": expected a count from 0 to 6, found " +
                           (count.text.empty() ? std::string("nothing") : quoted(count.text)),
                       StatusCode::kInvalidArgument);
    b.num_channels = static_cast<int>(n);
    b.first_value = file_.values_per_frame;
    for (int c = 0; c < b.num_channels; ++c) {
      const Token t = lex_.next();
      ChannelKind kind{};
      if (!channel_from(t.text, kind))
        return lex_.fail(t.text.empty() ? keyword.line : t.line,
                         "CHANNELS " + std::to_string(b.num_channels) + " of " + who(j) +
                             ": channel " + std::to_string(c + 1) +
                             " should be Xposition, Yposition, Zposition, Xrotation, Yrotation "
                             "or Zrotation, found " +
                             (t.text.empty() ? std::string("nothing") : quoted(t.text)),
                         StatusCode::kInvalidArgument);
      for (int d = 0; d < c; ++d)
        if (b.channels[d] == kind)
          return lex_.fail(t.line,
                           "CHANNELS of " + who(j) + " lists " + channel_name(kind) + " twice",
                           StatusCode::kInvalidArgument);
      b.channels[c] = kind;
    }
    file_.values_per_frame += b.num_channels;
    has_channels_[j] = true;
  }

  // "Frames: <n>" and "Frame Time: <seconds>" (the colon may touch either word).
  void read_motion_header() {
    if (!lex_.ok()) return;
    Token t = lex_.next();
    std::string line = std::string(t.text) + " " + std::string(lex_.rest_of_line());
    std::string_view rest = line;
    if (!starts_with_word(rest, "Frames"))
      return lex_.fail(t.text.empty() ? lex_.last_line() : t.line,
                       "expected 'Frames:' after MOTION, found " +
                           (t.text.empty() ? std::string("the end of the file") : quoted(t.text)),
                       t.text.empty() ? StatusCode::kDataLoss : StatusCode::kInvalidArgument);
    const int64_t frames_line = t.line;
    rest = trim(rest.substr(6));
    if (rest.empty() || rest.front() != ':')
      return lex_.fail(frames_line, "expected ':' after 'Frames'", StatusCode::kInvalidArgument);
    rest = trim(rest.substr(1));
    int64_t frames = 0;
    const auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), frames);
    if (ec == std::errc::result_out_of_range || (ec == std::errc() && frames > kMaxFrames))
      return lex_.fail(frames_line,
                       "Frames: " + std::string(rest.substr(0, 40)) + " is more than the " +
                           std::to_string(kMaxFrames) + " frames this loader accepts",
                       StatusCode::kResourceExhausted);
    if (ec != std::errc() || end != rest.data() + rest.size())
      return lex_.fail(frames_line, "Frames: expected a whole number, found " + quoted(rest),
                       StatusCode::kInvalidArgument);
    if (frames < 1)
      return lex_.fail(frames_line,
                       "Frames: " + std::to_string(frames) + ": a .bvh needs at least one frame",
                       StatusCode::kInvalidArgument);
    file_.num_frames = frames;

    t = lex_.next();
    line = std::string(t.text) + " " + std::string(lex_.rest_of_line());
    rest = line;
    if (!starts_with_word(rest, "Frame") || !starts_with_word(trim(rest.substr(5)), "Time"))
      return lex_.fail(t.text.empty() ? lex_.last_line() : t.line,
                       "expected 'Frame Time:' after Frames, found " +
                           (t.text.empty() ? std::string("the end of the file") : quoted(t.text)),
                       t.text.empty() ? StatusCode::kDataLoss : StatusCode::kInvalidArgument);
    const int64_t time_line = t.line;
    rest = trim(trim(rest.substr(5)).substr(4));
    if (rest.empty() || rest.front() != ':')
      return lex_.fail(time_line, "expected ':' after 'Frame Time'", StatusCode::kInvalidArgument);
    rest = trim(rest.substr(1));
    double ft = 0.0;
    const NumberResult r = parse_number(rest, ft);
    if (r != NumberResult::kOk)
      return lex_.fail(time_line, "Frame Time " + quoted(rest) + " " + describe(r),
                       StatusCode::kInvalidArgument);
    if (!(ft > 0.0 || (ft == 0.0 && frames == 1)) || ft > kMaxFrameTime)
      return lex_.fail(time_line,
                       "Frame Time " + quoted(rest) + " must be above 0 and at most " +
                           std::to_string(static_cast<int>(kMaxFrameTime)) + " seconds",
                       StatusCode::kInvalidArgument);
    file_.frame_time = ft;

    // Every value takes at least two bytes (a digit and a separator): what the rest of the
    // file can hold bounds the allocation, whatever Frames claims.
    const auto needed =
        static_cast<uint64_t>(frames) * static_cast<uint64_t>(file_.values_per_frame);
    const uint64_t room = (static_cast<uint64_t>(lex_.remaining()) + 1) / 2;
    if (needed > room)
      return lex_.fail(frames_line, "Frames: " + std::to_string(frames) + " x " +
                                        std::to_string(file_.values_per_frame) +
                                        " channels needs " + std::to_string(needed) +
                                        " values, but only " + std::to_string(lex_.remaining()) +
                                        " bytes follow (truncated file or wrong frame count)");
    const uint64_t decoded = decoded_bytes_bound(file_.joints, frames);
    if (max_decoded_bytes_ != 0 && decoded > max_decoded_bytes_)
      return lex_.fail(frames_line,
                       "Frames: " + std::to_string(frames) + " frames of these " +
                           std::to_string(file_.joints.size()) + " joints decode to up to " +
                           std::to_string(decoded) + " bytes, more than the " +
                           std::to_string(max_decoded_bytes_) + " this load allows",
                       StatusCode::kResourceExhausted);
    file_.values.resize(needed);
  }

  void read_frames() {
    if (!lex_.ok()) return;
    const int per_frame = file_.values_per_frame;
    // Which joint and channel each value of a frame belongs to, for messages.
    std::vector<int> joint_of_value(per_frame);
    for (int j = 0; j < static_cast<int>(file_.joints.size()); ++j)
      for (int c = 0; c < file_.joints[j].num_channels; ++c)
        joint_of_value[file_.joints[j].first_value + c] = j;
    if (per_frame > 0) {
      float* out = file_.values.data();
      for (int64_t k = 0; k < file_.num_frames && lex_.ok(); ++k) {
        Token t = lex_.next();
        if (t.text.empty())
          return lex_.fail(lex_.last_line(), "MOTION ends after " + std::to_string(k) + " of the " +
                                                 std::to_string(file_.num_frames) +
                                                 " frames that Frames: declares (truncated file?)");
        const int64_t line = t.line;
        int count = 0;
        for (;;) {
          if (count < per_frame) {
            double v = 0.0;
            const NumberResult r = parse_number(t.text, v);
            if (r != NumberResult::kOk) {
              const BvhJoint& b = file_.joints[joint_of_value[count]];
              return lex_.fail(line,
                               "frame " + std::to_string(k) + ", value " +
                                   std::to_string(count + 1) + " (" + who(joint_of_value[count]) +
                                   " " + channel_name(b.channels[count - b.first_value]) + ") " +
                                   quoted(t.text) + " " + describe(r),
                               StatusCode::kInvalidArgument);
            }
            *out++ = static_cast<float>(v);
          }
          ++count;
          if (!lex_.next_on_same_line()) break;
          t = lex_.next();
        }
        if (count != per_frame)
          return lex_.fail(line,
                           "frame " + std::to_string(k) + " has " + std::to_string(count) +
                               " values, but the HIERARCHY declares " + std::to_string(per_frame) +
                               " channels",
                           StatusCode::kInvalidArgument);
      }
    }
    const Token extra = lex_.next();
    if (!extra.text.empty())
      lex_.fail(extra.line,
                "found " + quoted(extra.text) + " after the last of the " +
                    std::to_string(file_.num_frames) + " frames that Frames: declares",
                StatusCode::kInvalidArgument);
  }

  Lexer lex_;
  uint64_t max_decoded_bytes_ = 0;
  BvhFile file_;
  // Per joint (same index as file_.joints): what its block has had so far.
  std::vector<bool> has_offset_, has_channels_, has_children_;
  std::map<std::string, int64_t, std::less<>> names_;  // name -> line
};

}  // namespace

uint64_t decoded_bytes_bound(const std::vector<BvhJoint>& joints, int64_t frames) {
  uint64_t per_frame = 0;
  for (const BvhJoint& j : joints) {
    bool moves = false, turns = false;
    for (int c = 0; c < j.num_channels; ++c) (is_rotation(j.channels[c]) ? turns : moves) = true;
    per_frame += 4u * static_cast<uint64_t>(j.num_channels);  // the parsed values
    // A key time and a value in the clip's channel, and the value again in its sampling
    // track (clip_tracks.h).
    if (moves) per_frame += sizeof(float) + 2 * sizeof(glm::vec3);
    if (turns) per_frame += sizeof(float) + 2 * sizeof(glm::quat);
  }
  return per_frame * static_cast<uint64_t>(std::max<int64_t>(frames, 0));
}

Expected<BvhFile> parse_bvh(std::string_view text, const std::string& label,
                            uint64_t max_decoded_bytes) {
  Parser parser(text, label);
  parser.set_max_decoded_bytes(max_decoded_bytes);
  return parser.run();
}

}  // namespace anim::bvh
