#pragma once
// Waiting for a condition that another thread or process makes true: polled every 10 ms up
// to a bound on how long a broken program can make a test wait, not a timing assertion.
#include <chrono>
#include <thread>

namespace animtest {

template <class Pred>
bool eventually(Pred pred, std::chrono::milliseconds limit = std::chrono::seconds(20)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!pred()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

}  // namespace animtest
