// Caps on repeated fields on a real daemon (request_convert_caps.h): an observe token's
// query_pose naming one joint a million times (a frame under --max-frame-bytes) is refused
// with the field, count and cap named, without the daemon building anything in proportion
// to the list, and the connection and the daemon carry on.
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "integration_support.h"
#include "process_memory.h"

namespace animtest {
namespace request_caps_test {

using anim::v1::Request;

const std::string kControl = "control-secret-caps-0123456789";
const std::string kObserve = "observe-secret-caps-0123456789";

Request pose_query(uint64_t id, uint32_t character) {
  Request r;
  r.set_request_id(id);
  r.set_auth_token(kObserve);
  r.mutable_query_pose()->set_character_id(character);
  return r;
}

TEST(RequestCaps, AMillionRepeatsOfOneJointAreRefusedAndTheDaemonCarriesOn) {
  DaemonProcess daemon({"--control-token", kControl, "--observe-token", kObserve});
  ANIMD_START(daemon);
  auto control = connect_client(daemon, kControl);
  ASSERT_TRUE(control);
  auto sp = control->spawn("builtin", "walk");
  ASSERT_TRUE(sp) << sp.error().to_string();
  const uint32_t id = sp->character_id();

  // An observer on a raw socket; its first answered query (once the character has a pose)
  // also lifts the pre-auth frame limit.
  RawConnection raw(daemon.port());
  ASSERT_TRUE(raw.ok());
  uint64_t next_id = 1;
  bool posed = false;
  const auto deadline = std::chrono::steady_clock::now() + kWait;
  while (!posed && std::chrono::steady_clock::now() < deadline) {
    Request q = pose_query(next_id, id);
    q.mutable_query_pose()->add_joint_names("head");
    ASSERT_TRUE(raw.send_request(q));
    auto m = raw.read_message();
    ASSERT_TRUE(m && m->has_reply()) << daemon.log_tail();
    ASSERT_EQ(m->reply().request_id(), next_id++);
    posed = m->reply().status().code() == anim::v1::STATUS_OK;
    if (!posed) std::this_thread::sleep_for(20ms);
  }
  ASSERT_TRUE(posed) << daemon.log_tail();
  const uint64_t peak_before = peak_rss_kib(daemon.pid());

  // One joint, a million times: about 1 MB packed, under the 1 MiB frame limit.
  Request huge = pose_query(next_id, id);
  huge.mutable_query_pose()->mutable_joint_indices()->Resize(1000000, 0u);
  ASSERT_LT(huge.ByteSizeLong(), size_t{1} << 20);
  ASSERT_TRUE(raw.send_request(huge));
  auto m = raw.read_message();
  ASSERT_TRUE(m && m->has_reply()) << daemon.log_tail();
  EXPECT_EQ(m->reply().request_id(), next_id++);
  EXPECT_EQ(m->reply().status().code(), anim::v1::STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(m->reply().status().message(),
            "query_pose.joint_indices has 1000000 indices, more than 1024 (a skeleton's joint "
            "limit)");
  EXPECT_FALSE(m->reply().has_query_pose());
  // Nothing was built for the million: the daemon's peak memory grew by about the frame and
  // its parse (a million joint answers would be hundreds of MB).
  const uint64_t peak_after = peak_rss_kib(daemon.pid());
  if (peak_before > 0) {
    EXPECT_LT(peak_after - peak_before, 64u * 1024u * kSanitizerMemoryFactor) << "KiB";
  }

  // The same connection goes on: a joint twice is refused naming both, a good query answers.
  Request twice = pose_query(next_id, id);
  twice.mutable_query_pose()->add_joint_names("head");
  twice.mutable_query_pose()->add_joint_names("head");
  ASSERT_TRUE(raw.send_request(twice));
  m = raw.read_message();
  ASSERT_TRUE(m && m->has_reply()) << daemon.log_tail();
  EXPECT_EQ(m->reply().request_id(), next_id++);
  EXPECT_EQ(m->reply().status().code(), anim::v1::STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(m->reply().status().message(),
            "query_pose.joint_names[1]: joint 'head' is already asked for by joint_names[0]");

  Request good = pose_query(next_id, id);
  good.mutable_query_pose()->add_joint_names("head");
  good.mutable_query_pose()->add_joint_indices(0);
  ASSERT_TRUE(raw.send_request(good));
  m = raw.read_message();
  ASSERT_TRUE(m && m->has_reply()) << daemon.log_tail();
  EXPECT_EQ(m->reply().request_id(), next_id++);
  ASSERT_EQ(m->reply().status().code(), anim::v1::STATUS_OK) << m->reply().status().message();
  ASSERT_EQ(m->reply().query_pose().joints_size(), 2);
  EXPECT_EQ(m->reply().query_pose().joints(0).name(), "head");
  EXPECT_EQ(m->reply().query_pose().joints(1).index(), 0u);

  // And so does the daemon, for other clients.
  anim::v1::QueryPoseRequest q;
  q.set_character_id(id);
  q.add_joint_names("hand_l");
  auto pose = control->query_pose(q);
  ASSERT_TRUE(pose) << pose.error().to_string();
  EXPECT_EQ(pose->joints_size(), 1);
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

}  // namespace request_caps_test
}  // namespace animtest
