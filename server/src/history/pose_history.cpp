#include "history/pose_history.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <utility>

#include "base/tick_vector.h"
#include "history/history_record.h"

namespace animd {

const HistoryEntry* HistoryFrame::find(uint32_t character) const {
  auto it = std::lower_bound(entries.begin(), entries.end(), character,
                             [](const HistoryEntry& e, uint32_t id) { return e.character < id; });
  return it != entries.end() && it->character == character && it->size > 0 ? &*it : nullptr;
}

size_t HistoryFrame::bytes() const {
  return sizeof(HistoryFrame) + entries.capacity() * sizeof(HistoryEntry) +
         words.capacity() * sizeof(uint32_t) + placements.capacity() * sizeof(HitPlacement) +
         assets.capacity() * sizeof(std::shared_ptr<const anim::Asset>) +
         setups.capacity() * sizeof(std::shared_ptr<const anim::PoseSetup>);
}

FrameRef& FrameRef::operator=(FrameRef&& o) noexcept {
  if (this != &o) {
    release();
    frame_ = std::exchange(o.frame_, nullptr);
  }
  return *this;
}

void FrameRef::release() {
  // Release: this reader's reads of the frame happen before the tick thread reuses it (it
  // checks the count with acquire).
  if (frame_) frame_->readers.fetch_sub(1, std::memory_order_release);
  frame_ = nullptr;
}

PoseHistory::PoseHistory(int capacity_ticks, int lookback_ticks)
    : capacity_(std::max(1, capacity_ticks)),
      ring_(static_cast<size_t>(capacity_) + static_cast<size_t>(std::max(0, lookback_ticks)),
            nullptr) {
  // The lists never hold more than every frame; reserved so that ticks do not grow them.
  frames_.reserve(ring_.size() + 8);
  retired_.reserve(ring_.size() + 8);
}

HistoryFrame& PoseHistory::begin_tick(uint64_t tick, double server_time) {
  bool fresh = false;
  std::array<size_t, 4> room{};  // a new frame's capacities: entries, words, placements, setups
  {
    std::lock_guard lock(mutex_);
    // A frame out of the window that nobody reads any more, else a new one.
    auto free = std::find_if(retired_.begin(), retired_.end(), [](const HistoryFrame* f) {
      return f->readers.load(std::memory_order_acquire) == 0;
    });
    if (free != retired_.end()) {
      filling_ = *free;
      retired_.erase(free);
    } else {
      frames_.push_back(std::make_unique<HistoryFrame>());
      filling_ = frames_.back().get();
      fresh = true;
      if (const HistoryFrame* newest = published_ > 0 ? ring_[newest_ % ring_.size()] : nullptr)
        room = {newest->entries.capacity(), newest->words.capacity(), newest->placements.capacity(),
                newest->setups.capacity()};
    }
  }
  HistoryFrame& f = *filling_;
  // A new frame starts with the room the newest one has: it does not grow from nothing,
  // copying and touching its vectors again on the tick thread. (Reserved outside the lock:
  // readers take it; nobody reads this frame before publish().)
  if (fresh) {
    f.entries.reserve(room[0]);
    f.words.reserve(room[1]);
    f.placements.reserve(room[2]);
    f.setups.reserve(room[3]);
  }
  f.tick = tick;
  f.server_time = server_time;
  f.entries.clear();
  f.words.clear();
  f.placements.clear();
  f.assets.clear();  // drops what the frame kept alive 1 window ago
  f.setups.clear();
  return f;
}

void PoseHistory::publish() {
  std::lock_guard lock(mutex_);
  const uint64_t cap = ring_.size();
  HistoryFrame*& slot = ring_[filling_->tick % cap];
  if (slot) retired_.push_back(slot);
  slot = filling_;
  const uint64_t previous = newest_;
  newest_ = filling_->tick;
  if (published_ == 0) first_ = newest_;
  ++published_;
  // After skipped ticks, the slots of the skipped numbers hold frames that left the window:
  // retired now, as their slots are not overwritten.
  if (newest_ > previous + 1) {
    const uint64_t oldest = oldest_kept_locked();
    const uint64_t from = std::max(previous + 1, newest_ > cap ? newest_ - cap : 0);
    for (uint64_t t = from; t < newest_; ++t) {
      HistoryFrame*& stale = ring_[t % cap];
      if (stale && stale->tick < oldest) {
        retired_.push_back(stale);
        stale = nullptr;
      }
    }
  }
  filling_ = nullptr;
  // Frames beyond one per ring slot and a few spares (made while readers held the retired
  // ones) are freed once idle. Frames retired by a skip stay: the ring's emptied slots take
  // them again, with the capacity their vectors grew to.
  while (frames_.size() > ring_.size() + kSpareFrames) {
    auto idle = std::find_if(retired_.begin(), retired_.end(), [](const HistoryFrame* f) {
      return f->readers.load(std::memory_order_acquire) == 0;
    });
    if (idle == retired_.end()) break;
    HistoryFrame* gone = *idle;
    retired_.erase(idle);
    std::erase_if(frames_, [gone](const auto& p) { return p.get() == gone; });
  }
}

FrameRef PoseHistory::newest() const {
  std::lock_guard lock(mutex_);
  if (published_ == 0) return {};
  const HistoryFrame* f = ring_[newest_ % ring_.size()];
  f->readers.fetch_add(1, std::memory_order_relaxed);  // under the mutex: not yet retired
  return FrameRef(f);
}

FrameRef PoseHistory::at(uint64_t tick) const {
  std::lock_guard lock(mutex_);
  if (published_ == 0 || tick > newest_ || tick < oldest_locked()) return {};
  const HistoryFrame* f = ring_[tick % ring_.size()];
  if (!f || f->tick != tick) return {};
  f->readers.fetch_add(1, std::memory_order_relaxed);
  return FrameRef(f);
}

FrameRef PoseHistory::at_kept(uint64_t tick) const {
  std::lock_guard lock(mutex_);
  if (published_ == 0 || tick > newest_ || tick < oldest_kept_locked()) return {};
  const HistoryFrame* f = ring_[tick % ring_.size()];
  if (!f || f->tick != tick) return {};
  f->readers.fetch_add(1, std::memory_order_relaxed);
  return FrameRef(f);
}

std::pair<uint64_t, uint64_t> PoseHistory::window() const {
  std::lock_guard lock(mutex_);
  if (published_ == 0) return {1, 0};
  return {oldest_locked(), newest_};
}

uint64_t PoseHistory::oldest_locked() const {
  const uint64_t cap = static_cast<uint64_t>(capacity_);
  return std::max(first_, newest_ >= cap ? newest_ + 1 - cap : 1);
}

uint64_t PoseHistory::oldest_kept_locked() const {
  const uint64_t cap = ring_.size();
  return std::max(first_, newest_ >= cap ? newest_ + 1 - cap : 1);
}

bool PoseHistory::skipped(uint64_t tick) const {
  std::lock_guard lock(mutex_);
  if (published_ == 0 || tick < oldest_locked() || tick > newest_) return false;
  const HistoryFrame* f = ring_[tick % ring_.size()];
  return !f || f->tick != tick;
}

uint64_t PoseHistory::first_tick_of(uint32_t character) const {
  std::lock_guard lock(mutex_);
  if (published_ == 0) return 0;
  for (uint64_t t = oldest_locked(); t <= newest_; ++t) {
    const HistoryFrame* f = ring_[t % ring_.size()];
    if (f && f->tick == t && f->find(character)) return t;
  }
  return 0;
}

size_t PoseHistory::bytes() const {
  std::lock_guard lock(mutex_);
  size_t n = sizeof(PoseHistory) + ring_.capacity() * sizeof(HistoryFrame*) +
             retired_.capacity() * sizeof(HistoryFrame*) +
             frames_.capacity() * sizeof(std::unique_ptr<HistoryFrame>);
  for (const auto& f : frames_) n += f->bytes();
  return n;
}

uint32_t entry_room(const anim::Animator& a, bool may_interpolate, uint32_t record_words) {
  if (record_words != 0) return record_words;
  return record_bound(a) + (may_interpolate ? record_format::kShownWords : 0);
}

void add_entry(HistoryFrame& f, uint32_t character, const anim::Asset* asset,
               const std::shared_ptr<const anim::Asset>& owner, uint32_t room,
               const anim::Animator* setups_of) {
  HistoryEntry e;
  e.character = character;
  e.offset = static_cast<uint32_t>(f.words.size());
  // Assets are few: the last one used is almost always the one.
  auto it = std::find_if(f.assets.rbegin(), f.assets.rend(),
                         [asset](const auto& held) { return held.get() == asset; });
  if (it == f.assets.rend()) {
    f.assets.push_back(owner);
    e.asset = static_cast<uint32_t>(f.assets.size() - 1);
  } else {
    e.asset = static_cast<uint32_t>(f.assets.rend() - it - 1);
  }
  // The update evaluates the current setup, a skipped one leaves the last evaluated: both
  // stay alive with the frame.
  if (setups_of) {
    if (setups_of->setup()) f.setups.push_back(setups_of->setup());
    if (setups_of->evaluated_setup() && setups_of->evaluated_setup() != setups_of->setup())
      f.setups.push_back(setups_of->evaluated_setup());
  }
  reserve_for_tick(f.words, f.words.size() + room);
  reserve_for_tick(f.entries, f.entries.size() + 1);
  reserve_for_tick(f.placements, f.placements.size() + 1);
  f.words.resize(f.words.size() + room);
  f.entries.push_back(e);
  f.placements.emplace_back();
}

void record_entry(HistoryFrame& f, size_t index, const anim::Animator& a,
                  std::span<const glm::mat4> model) {
  record_entry(f, index, a, anim::pose_bound(model), nullptr);
}

void record_entry(HistoryFrame& f, size_t index, const anim::Animator& a,
                  const anim::PoseBound& bound, const ShownFrom* shown, uint32_t repeats_back) {
  HistoryEntry& e = f.entries[index];
  e.setup = a.evaluated_setup().get();
  // Its room: up to the next entry's record (offsets are not written during the update).
  const size_t end = index + 1 < f.entries.size() ? f.entries[index + 1].offset : f.words.size();
  const auto room = std::span(f.words).subspan(e.offset, end - e.offset);
  e.size = repeats_back != 0 ? record_reference(a, repeats_back, a.root_transform(), room, shown)
                             : record_animator(a, a.root_transform(), room, shown);
  // The pose's bound, placed by the root. Capsules reach beyond joints by their extents,
  // which assume the asset's scale bounds: void with additive layers on an asset that
  // animates scale (its fitted volumes say so; set_hit_volumes keeps that).
  const anim::Transform& root = a.root_transform();
  const float scale =
      std::max({std::abs(root.scale.x), std::abs(root.scale.y), std::abs(root.scale.z)});
  bool scales_bounded = f.assets[e.asset]->hit_volumes.scales.unit;
  if (!scales_bounded) {
    scales_bounded = true;
    if (const anim::PoseSetup* setup = e.setup)
      for (const auto& layer : setup->layers)
        scales_bounded = scales_bounded && layer->blend != anim::LayerBlend::kAdditive;
  }
  HitPlacement& p = f.placements[index];
  p.center = anim::transform_point(root, bound.center);
  p.radius = bound.radius * scale;
  p.stretch = scales_bounded ? scale : std::numeric_limits<float>::infinity();
}

}  // namespace animd
