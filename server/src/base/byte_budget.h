#pragma once
// ByteBudget: one daemon-wide allowance of bytes that many connections draw from (buffered
// request bodies, queued stream frames). Lock-free; any thread. A connection that cannot draw
// what it needs is refused (its frame dropped or the connection closed) instead of letting the
// daemon grow: the sum of what every holder has drawn never exceeds limit().
//
// Fair share (for holders that register, like the write queues): while the budget is at most
// half used, spares aside (below), anyone may draw; beyond that a holder may hold at most
// fair_share() = limit / (holders + 1), so readers that never read cannot take the whole budget
// from the ones that do. The "+ 1" keeps room for a holder that has not drawn yet: a newcomer
// always finds at least limit / (holders + 1) it may draw, and the hogs above the new share lose
// their oldest frames as they queue new ones (WriteQueue::push_stream).

#include <algorithm>
#include <atomic>
#include <cstddef>

namespace animd {

class ByteBudget {
 public:
  explicit ByteBudget(size_t limit) : limit_(limit) {}
  ByteBudget(const ByteBudget&) = delete;
  ByteBudget& operator=(const ByteBudget&) = delete;

  // Draws n bytes; false (and nothing drawn) when that would exceed the limit.
  bool try_acquire(size_t n) {
    size_t used = used_.load(std::memory_order_relaxed);
    do {
      if (n > limit_ || used > limit_ - n) return false;
    } while (!used_.compare_exchange_weak(used, used + n, std::memory_order_relaxed));
    return true;
  }
  // Draws n bytes for a registered holder that holds `held` bytes now; false (and nothing
  // drawn) when that would exceed the limit, or when the budget is contended (more than half
  // used after the draw, spares aside) and held + n exceeds fair_share().
  bool try_acquire_fair(size_t n, size_t held) {
    size_t used = used_.load(std::memory_order_relaxed);
    do {
      if (n > limit_ || used > limit_ - n) return false;
      if (frames(used) + n > limit_ / 2 && held + n > fair_share()) return false;
    } while (!used_.compare_exchange_weak(used, used + n, std::memory_order_relaxed));
    return true;
  }
  // Spares: bytes kept only to save work (a connection's emptied frame buffers, kept for its
  // next frames). They count against the limit like any draw, but all spares together hold at
  // most limit / kSpareDivisor, and they are left out of "contended" (the half-used test of
  // try_acquire_fair and holder_bound): they never push a holder into its fair share.
  static constexpr size_t kSpareDivisor = 8;
  // Draws n bytes as a spare; false (and nothing drawn) beyond the spares' bound or the limit.
  bool try_acquire_spare(size_t n) {
    size_t spares = spares_.load(std::memory_order_relaxed);
    do {
      if (n > limit_ / kSpareDivisor || spares > limit_ / kSpareDivisor - n) return false;
    } while (!spares_.compare_exchange_weak(spares, spares + n, std::memory_order_relaxed));
    if (try_acquire(n)) return true;
    spares_.fetch_sub(n, std::memory_order_relaxed);
    return false;
  }
  // Gives back n bytes drawn by try_acquire_spare.
  void release_spare(size_t n) {
    used_.fetch_sub(n, std::memory_order_relaxed);
    spares_.fetch_sub(n, std::memory_order_relaxed);
  }
  // Gives back n bytes drawn earlier (n <= what this holder drew).
  void release(size_t n) { used_.fetch_sub(n, std::memory_order_relaxed); }

  // What one registered holder may hold when the budget is contended.
  size_t fair_share() const { return limit_ / (holders_.load(std::memory_order_relaxed) + 1); }
  // The most a holder may hold after drawing n more: limit() while the budget stays at most
  // half used after the draw, else fair_share(). A hint (other threads draw meanwhile).
  size_t holder_bound(size_t n) const {
    return frames(used_.load(std::memory_order_relaxed)) + n <= limit_ / 2 ? limit_ : fair_share();
  }
  // A holder registers while it holds bytes (from its first draw until it holds none again).
  void add_holder() { holders_.fetch_add(1, std::memory_order_relaxed); }
  void remove_holder() { holders_.fetch_sub(1, std::memory_order_relaxed); }
  size_t holders() const { return holders_.load(std::memory_order_relaxed); }

  // Everything drawn, spares included.
  size_t used() const { return used_.load(std::memory_order_relaxed); }
  size_t spares() const { return spares_.load(std::memory_order_relaxed); }
  size_t limit() const { return limit_; }

 private:
  // `used` less the spares (read apart, so a hint while others draw): what contention counts.
  size_t frames(size_t used) const {
    return used - std::min(used, spares_.load(std::memory_order_relaxed));
  }

  const size_t limit_;
  std::atomic<size_t> used_{0};
  std::atomic<size_t> spares_{0};  // the part of used_ drawn by try_acquire_spare
  std::atomic<size_t> holders_{0};
};

// Bytes drawn from a ByteBudget, given back when the hold is destroyed (or reset). Move-only.
class BudgetHold {
 public:
  BudgetHold() = default;
  // `spare`: the bytes were drawn by try_acquire_spare.
  BudgetHold(ByteBudget& budget, size_t bytes, bool spare = false)
      : budget_(&budget), bytes_(bytes), spare_(spare) {}
  BudgetHold(BudgetHold&& o) noexcept : budget_(o.budget_), bytes_(o.bytes_), spare_(o.spare_) {
    o.bytes_ = 0;
  }
  BudgetHold& operator=(BudgetHold&& o) noexcept {
    if (this != &o) {
      reset();
      budget_ = o.budget_;
      bytes_ = o.bytes_;
      spare_ = o.spare_;
      o.bytes_ = 0;
    }
    return *this;
  }
  BudgetHold(const BudgetHold&) = delete;
  BudgetHold& operator=(const BudgetHold&) = delete;
  ~BudgetHold() { reset(); }

  void reset() {
    if (budget_ && bytes_ > 0) spare_ ? budget_->release_spare(bytes_) : budget_->release(bytes_);
    bytes_ = 0;
  }
  size_t bytes() const { return bytes_; }

 private:
  ByteBudget* budget_ = nullptr;
  size_t bytes_ = 0;
  bool spare_ = false;
};

}  // namespace animd
