#pragma once
// Sending a request without waiting for its reply (several in flight on one connection, as
// scheduled commands need), for the integration tests.

#include <future>
#include <memory>

#include <gtest/gtest.h>

#include "integration_support.h"

namespace animtest {

// Sends `r` without waiting; the future holds its reply (empty after a transport error,
// which fails the test).
inline std::future<anim::v1::Reply> send_async(animclient::Client& c, anim::v1::Request r) {
  auto promise = std::make_shared<std::promise<anim::v1::Reply>>();
  auto reply = promise->get_future();
  c.call_async(
      std::move(r),
      [promise](animclient::Result<anim::v1::Reply> got) {
        if (!got) ADD_FAILURE() << "call: " << got.error().to_string();
        promise->set_value(got ? *got : anim::v1::Reply{});
      },
      kWait);
  return reply;
}

}  // namespace animtest
