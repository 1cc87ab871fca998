// Montage sections (montage_sections.h).
#include "anim/montage_sections.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "anim/clip.h"

namespace anim {

namespace {

std::string num(float v) {
  return std::to_string(v);
}

std::string field(size_t i, const char* name) {
  return "sections[" + std::to_string(i) + "]." + name;
}

// Whole loop turns counted in one move at most (a step of absurd length); the playhead still
// lands where the exact sum puts it.
constexpr double kMaxTurns = 1e15;

}  // namespace

int MontageTimeline::find(const std::string& name) const {
  for (size_t i = 0; i < sections.size(); ++i)
    if (sections[i].name == name) return static_cast<int>(i);
  return -1;
}

int MontageTimeline::section_at(float time) const {
  auto it = std::upper_bound(sections.begin(), sections.end(), time,
                             [](float t, const Section& s) { return t < s.start; });
  return it == sections.begin() ? 0 : static_cast<int>(it - sections.begin()) - 1;
}

double MontageTimeline::remaining(int section, float time) const {
  const Section& s = sections[static_cast<size_t>(section)];
  return (double(s.end) - double(time)) + s.rest;
}

void MontageTimeline::loop_of(int section, double& seconds, int64_t& count) const {
  seconds = 0.0;
  count = 0;
  int s = section;
  do {
    const Section& sec = sections[static_cast<size_t>(s)];
    seconds += double(sec.end) - double(sec.start);
    ++count;
    s = sec.next;
  } while (s >= 0 && s != section && count <= static_cast<int64_t>(sections.size()));
}

Expected<std::shared_ptr<const MontageTimeline>> make_montage_timeline(
    std::span<const MontageSection> sections, const Clip& clip, const std::string& who) {
  const std::string at = who + ": ";
  if (sections.size() > static_cast<size_t>(kMaxMontageSections))
    return Status(StatusCode::kResourceExhausted,
                  at + "sections has " + std::to_string(sections.size()) + " entries, more than " +
                      std::to_string(kMaxMontageSections));
  if (sections.empty()) return invalid_argument(at + "sections is empty");
  if (!(clip.duration > 0.0f))
    return invalid_argument(at + "sections: clip '" + clip.name +
                            "' has no duration to divide into sections");
  auto timeline = std::make_shared<MontageTimeline>();
  timeline->sections.resize(sections.size());
  for (size_t i = 0; i < sections.size(); ++i) {
    const MontageSection& s = sections[i];
    if (s.name.empty()) return invalid_argument(at + field(i, "name") + " is empty");
    if (s.name.size() > kMaxMontageSectionNameBytes)
      return invalid_argument(at + field(i, "name") + " is " + std::to_string(s.name.size()) +
                              " bytes, more than " + std::to_string(kMaxMontageSectionNameBytes));
    for (size_t j = 0; j < i; ++j)
      if (sections[j].name == s.name)
        return invalid_argument(at + field(i, "name") + " '" + s.name + "' is also " +
                                field(j, "name"));
    const std::string start = field(i, "start_time");
    if (std::isnan(s.start_time)) return invalid_argument(at + start + " is NaN");
    if (std::isinf(s.start_time)) return invalid_argument(at + start + " is infinite");
    if (s.start_time < 0.0f || s.start_time >= clip.duration)
      return invalid_argument(at + start + " " + num(s.start_time) + " is outside [0, " +
                              num(clip.duration) + ") of clip '" + clip.name + "'");
    if (i == 0 && s.start_time != 0.0f)
      return invalid_argument(at + start + " " + num(s.start_time) +
                              " is not 0: the first section starts the clip");
    if (i > 0 && !(s.start_time > sections[i - 1].start_time))
      return invalid_argument(at + start + " " + num(s.start_time) + " is not after " +
                              field(i - 1, "start_time") + " " + num(sections[i - 1].start_time));
    MontageTimeline::Section& out = timeline->sections[i];
    out.name = s.name;
    out.start = s.start_time;
    out.end = i + 1 < sections.size() ? sections[i + 1].start_time : clip.duration;
  }
  for (size_t i = 0; i < sections.size(); ++i) {
    const std::string& next = sections[i].next;
    if (next.empty()) continue;
    const int n = timeline->find(next);
    if (n < 0) return invalid_argument(at + field(i, "next") + " '" + next + "' names no section");
    timeline->sections[i].next = n;
  }
  // What plays after each section: follow `next` until a section without one, or until more
  // sections were visited than there are (the chain came back: a loop).
  const size_t count = timeline->sections.size();
  for (size_t i = 0; i < count; ++i) {
    double rest = 0.0;
    size_t steps = 0;
    int s = timeline->sections[i].next;
    while (s >= 0 && steps <= count) {
      const MontageTimeline::Section& sec = timeline->sections[static_cast<size_t>(s)];
      rest += double(sec.end) - double(sec.start);
      s = sec.next;
      ++steps;
    }
    timeline->sections[i].rest = s >= 0 ? std::numeric_limits<double>::infinity() : rest;
  }
  return std::shared_ptr<const MontageTimeline>(std::move(timeline));
}

MontageMove advance_montage_time(const MontageTimeline& timeline, MontagePlayhead& playhead,
                                 float step) {
  MontageMove move;
  const int64_t count = static_cast<int64_t>(timeline.sections.size());
  double u = double(playhead.time) + double(playhead.carry) + double(step);
  if (!std::isfinite(u)) u = std::numeric_limits<double>::max() / 4.0;
  move.travel = u - double(playhead.time);
  int s = playhead.section;
  bool folded = false;
  for (;;) {
    const MontageTimeline::Section& sec = timeline.sections[static_cast<size_t>(s)];
    if (u < double(sec.end)) break;
    if (sec.next < 0) {
      move.travel -= u - double(sec.end);
      u = sec.end;
      move.at_end = true;
      break;
    }
    s = sec.next;
    u = double(timeline.sections[static_cast<size_t>(s)].start) + (u - double(sec.end));
    ++move.hops;
    // After as many hops as there are sections the playhead is on a loop: whole turns of it
    // are counted, not walked.
    if (!folded && move.hops >= count) {
      folded = true;
      double seconds = 0.0;
      int64_t sections = 0;
      timeline.loop_of(s, seconds, sections);
      const double start = timeline.sections[static_cast<size_t>(s)].start;
      const double into = u - start;
      if (into >= seconds) {
        const double turns = std::min(std::floor(into / seconds), kMaxTurns);
        u = start + std::fmod(into, seconds);
        move.hops += static_cast<int64_t>(turns) * sections;
      }
    }
  }
  playhead.section = s;
  playhead.time = static_cast<float>(u);
  // A section with a next one holds times before its end only (its end is where the next
  // section begins): a sum rounded up to the end stays just below it, the rest in the carry.
  const MontageTimeline::Section& sec = timeline.sections[static_cast<size_t>(s)];
  if (sec.next >= 0 && playhead.time >= sec.end)
    playhead.time = std::nextafter(sec.end, -std::numeric_limits<float>::infinity());
  playhead.carry = static_cast<float>(u - double(playhead.time));
  return move;
}

}  // namespace anim
