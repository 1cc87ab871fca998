// PeerConnection (server/src/fleet/peer_call.h): a daemon's own connection to another animd,
// against the real daemon: requests carry the peer's token, replies are matched by id, TLS
// verifies the peer against the given CA, and every step keeps its deadline (a peer that
// accepts and never answers, one that is not there).
#include "fleet/peer_call.h"

#include <thread>

#include <gtest/gtest.h>
#include <boost/asio.hpp>

#include "integration_support.h"
#include "test_certs.h"

namespace animtest {
namespace peer_call_test {

using Clock = std::chrono::steady_clock;
using animd::PeerAddress;
using animd::PeerConnection;

anim::v1::Request stats_request() {
  anim::v1::Request r;
  r.mutable_stats();
  return r;
}

TEST(PeerCall, SendsTheTokenAndMatchesTheReply) {
  DaemonProcess daemon({"--control-token", "peer-control-token-0123456789"});
  ANIMD_START(daemon);
  PeerAddress peer;
  peer.host = "127.0.0.1";
  peer.port = daemon.port();
  peer.token = "peer-control-token-0123456789";
  auto c = PeerConnection::open(peer, Clock::now() + std::chrono::seconds(10));
  ASSERT_TRUE(c) << c.error().message();
  for (int k = 0; k < 3; ++k) {
    auto reply = (*c)->call(stats_request(), Clock::now() + std::chrono::seconds(10));
    ASSERT_TRUE(reply) << reply.error().message();
    EXPECT_EQ(reply->status().code(), anim::v1::STATUS_OK) << reply->status().message();
    EXPECT_TRUE(reply->has_stats());
  }
  // A wrong token: the peer's refusal is the reply's status, not a failed call.
  PeerAddress wrong = peer;
  wrong.token = "guess";
  auto w = PeerConnection::open(wrong, Clock::now() + std::chrono::seconds(10));
  ASSERT_TRUE(w);
  auto refused = (*w)->call(stats_request(), Clock::now() + std::chrono::seconds(10));
  if (refused) {
    EXPECT_NE(refused->status().code(), anim::v1::STATUS_OK);
  }
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

TEST(PeerCall, TlsVerifiesThePeerAgainstTheGivenCa) {
  TempDir dir("peer-tls");
  const TestCerts certs = make_test_certs(dir.path());
  ASSERT_TRUE(certs.ok()) << certs.error;
  DaemonProcess daemon({"--tls-cert", certs.server_cert, "--tls-key", certs.server_key});
  ANIMD_START(daemon);
  PeerAddress peer;
  peer.host = "127.0.0.1";
  peer.port = daemon.port();
  peer.tls = true;
  peer.ca_file = certs.ca;
  auto c = PeerConnection::open(peer, Clock::now() + std::chrono::seconds(10));
  ASSERT_TRUE(c) << c.error().message();
  auto reply = (*c)->call(stats_request(), Clock::now() + std::chrono::seconds(10));
  ASSERT_TRUE(reply) << reply.error().message();
  EXPECT_EQ(reply->status().code(), anim::v1::STATUS_OK);
  // A CA that did not sign the peer's certificate: refused at the handshake.
  PeerAddress untrusted = peer;
  untrusted.ca_file = certs.untrusted_ca;
  auto u = PeerConnection::open(untrusted, Clock::now() + std::chrono::seconds(10));
  ASSERT_FALSE(u);
  EXPECT_EQ(u.error().code(), anim::StatusCode::kUnavailable);
  EXPECT_NE(u.error().message().find("TLS handshake"), std::string::npos) << u.error().message();
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

TEST(PeerCall, KeepsItsDeadlineWithASilentOrAbsentPeer) {
  boost::asio::io_context io;
  boost::asio::ip::tcp::acceptor silent(io, {boost::asio::ip::make_address("127.0.0.1"), 0});
  const uint16_t port = silent.local_endpoint().port();
  // Accepts (the kernel's backlog does) and never reads or answers.
  PeerAddress peer;
  peer.host = "127.0.0.1";
  peer.port = port;
  auto c = PeerConnection::open(peer, Clock::now() + std::chrono::seconds(5));
  ASSERT_TRUE(c) << c.error().message();
  const auto start = Clock::now();
  auto reply = (*c)->call(stats_request(), Clock::now() + std::chrono::milliseconds(300));
  ASSERT_FALSE(reply);
  EXPECT_EQ(reply.error().code(), anim::StatusCode::kUnavailable);
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(30));  // bounded, not a timing check
  silent.close();
  auto absent = PeerConnection::open(peer, Clock::now() + std::chrono::seconds(5));
  ASSERT_FALSE(absent);
  EXPECT_NE(absent.error().message().find("connect"), std::string::npos)
      << absent.error().message();
}

}  // namespace peer_call_test
}  // namespace animtest
