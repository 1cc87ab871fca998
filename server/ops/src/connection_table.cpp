#include "animops/connection_table.h"

namespace animops {

uint64_t ConnectionTable::oldest_waiting(bool reserve, const std::string* address) const {
  uint64_t best = 0, best_since = 0;
  for (const auto& [id, e] : entries_) {
    if (!e.waiting || e.reserve != reserve || (address && e.address != *address)) continue;
    if (best == 0 || e.since < best_since) {
      best = id;
      best_since = e.since;
    }
  }
  return best;
}

void ConnectionTable::erase_locked(uint64_t id) {
  const auto it = entries_.find(id);
  if (it == entries_.end()) return;
  if (it->second.reserve) {
    --reserved_;
  } else {
    --normal_;
    if (auto a = per_address_.find(it->second.address); a != per_address_.end() && --a->second == 0)
      per_address_.erase(a);
  }
  entries_.erase(it);
}

ConnectionTable::Admission ConnectionTable::admit(const std::string& address) {
  std::lock_guard lock(mu_);
  Admission out;
  const auto a = per_address_.find(address);
  const bool address_full = a != per_address_.end() && a->second >= limits_.per_address;
  const bool total_full = normal_ >= limits_.total;
  bool reserve = false;
  if (address_full || total_full) {
    // Rule 2: of this address when it is at its limit (which also frees a total slot).
    out.evicted = oldest_waiting(false, address_full ? &address : nullptr);
    if (out.evicted == 0) {
      // Rule 3: the reserve.
      reserve = true;
      if (reserved_ >= limits_.reserve) {
        out.evicted = limits_.reserve > 0 ? oldest_waiting(true, nullptr) : 0;
        if (out.evicted == 0) {
          out.verdict = address_full ? Verdict::kRefusedAddress : Verdict::kRefusedTotal;
          return out;
        }
      }
    }
  }
  if (out.evicted != 0) {
    out.evicted_address = entries_.at(out.evicted).address;
    erase_locked(out.evicted);
  }
  out.id = next_id_++;
  entries_.emplace(out.id, Entry{address, reserve, true, next_since_++});
  if (reserve) {
    ++reserved_;
  } else {
    ++normal_;
    ++per_address_[address];
  }
  out.verdict = reserve ? Verdict::kReserve : Verdict::kAdmitted;
  return out;
}

bool ConnectionTable::begin_request(uint64_t id) {
  std::lock_guard lock(mu_);
  const auto it = entries_.find(id);
  if (it == entries_.end()) return false;
  it->second.waiting = false;
  return true;
}

void ConnectionTable::end_request(uint64_t id) {
  std::lock_guard lock(mu_);
  const auto it = entries_.find(id);
  if (it == entries_.end()) return;
  it->second.waiting = true;
  it->second.since = next_since_++;
}

void ConnectionTable::remove(uint64_t id) {
  std::lock_guard lock(mu_);
  erase_locked(id);
}

size_t ConnectionTable::size() const {
  std::lock_guard lock(mu_);
  return normal_;
}

size_t ConnectionTable::reserve_size() const {
  std::lock_guard lock(mu_);
  return reserved_;
}

size_t ConnectionTable::count(const std::string& address) const {
  std::lock_guard lock(mu_);
  const auto it = per_address_.find(address);
  return it == per_address_.end() ? 0 : it->second;
}

size_t ConnectionTable::busy() const {
  std::lock_guard lock(mu_);
  size_t n = 0;
  for (const auto& [id, e] : entries_) n += e.waiting ? 0 : 1;
  return n;
}

}  // namespace animops
