// The WebSocket endpoint (/ws on the HTTP port) against the real daemon on 127.0.0.1: the
// protocol over binary messages (one message = one Request / ServerMessage, no length), the
// same tokens and limits as the TCP port, and every kind of bad input closing only its own
// connection with a WebSocket close code and a reason (docs/web-viewer.md).

#include <gtest/gtest.h>
#include <boost/asio/ssl.hpp>
#include <boost/beast/ssl.hpp>

#include "../deploy/ops/test_http.h"
#include "test_certs.h"
#include "ws_support.h"

namespace {

using boost::beast::websocket::close_code;
using wstest::WebDaemon;
using wstest::WsClient;

constexpr char kToken[] = "control-token-0123456789";
constexpr char kObserve[] = "observe-token-0123456789";

anim::v1::Request stats_request(uint64_t id, const std::string& token = {}) {
  anim::v1::Request r;
  r.set_request_id(id);
  r.set_auth_token(token);
  r.mutable_stats();
  return r;
}

// A daemon that still answers on both ports after a bad client was closed.
void expect_serving(WebDaemon& d) {
  WsClient ws(d.http_port());
  ASSERT_TRUE(ws.ok()) << ws.error();
  auto reply = ws.call(stats_request(77, kToken));
  ASSERT_TRUE(reply.has_value());
  EXPECT_EQ(reply->request_id(), 77u);
  EXPECT_EQ(reply->status().code(), anim::v1::STATUS_OK) << reply->status().message();
}

TEST(WebSocket, SpawnSubscribeAndStreamOverOneConnection) {
  WebDaemon d;
  ASSERT_TRUE(d.start()) << d.process().log_tail();
  WsClient ws(d.http_port());
  ASSERT_TRUE(ws.ok()) << ws.error();

  anim::v1::Request spawn;
  spawn.set_request_id(1);
  spawn.mutable_spawn()->set_asset("builtin");
  spawn.mutable_spawn()->set_clip("walk");
  auto spawned = ws.call(spawn);
  ASSERT_TRUE(spawned.has_value());
  ASSERT_EQ(spawned->status().code(), anim::v1::STATUS_OK) << spawned->status().message();
  EXPECT_EQ(spawned->request_id(), 1u);
  const uint32_t id = spawned->spawn().character_id();

  anim::v1::Request data;
  data.set_request_id(2);
  data.mutable_get_asset_data()->set_asset("builtin");
  auto asset = ws.call(data);
  ASSERT_TRUE(asset.has_value());
  ASSERT_EQ(asset->status().code(), anim::v1::STATUS_OK);
  const int joints = asset->get_asset_data().skeleton().parents_size();
  ASSERT_GT(joints, 0);
  EXPECT_GT(asset->get_asset_data().mesh().num_vertices(), 0u);

  anim::v1::Request sub;
  sub.set_request_id(3);
  sub.mutable_subscribe()->add_character_ids(id);
  sub.mutable_subscribe()->set_encoding(anim::v1::ENCODING_FLOAT_3X4);
  auto subscribed = ws.call(sub);
  ASSERT_TRUE(subscribed.has_value());
  ASSERT_EQ(subscribed->status().code(), anim::v1::STATUS_OK);
  const uint32_t sid = subscribed->subscribe().subscription_id();

  // Frames at consecutive ticks, each one whole message carrying the character's palette.
  std::vector<uint64_t> ticks;
  while (ticks.size() < 5) {
    auto m = ws.read();
    ASSERT_TRUE(m.has_value()) << "stream ended: " << ws.read_error().message();
    if (!m->has_frame()) continue;
    ASSERT_EQ(m->frame().subscription_id(), sid);
    ASSERT_EQ(m->frame().characters_size(), 1);
    EXPECT_EQ(m->frame().characters(0).character_id(), id);
    EXPECT_EQ(m->frame().characters(0).palette_size(), 12 * joints);
    ticks.push_back(m->frame().tick());
  }
  for (size_t i = 1; i < ticks.size(); ++i) EXPECT_EQ(ticks[i], ticks[i - 1] + 1);
}

TEST(WebSocket, ServesTheViewerAndRefusesPlainRequestsAtTheEndpoint) {
  WebDaemon d;
  ASSERT_TRUE(d.start()) << d.process().log_tail();
  const auto page = opstest::http_get(d.http_port(), "/view");
  EXPECT_EQ(page.status, 200);
  EXPECT_NE(page.content_type.find("text/html"), std::string::npos);
  EXPECT_NE(page.body.find("<canvas"), std::string::npos);
  const auto js = opstest::http_get(d.http_port(), "/view/compact.js");
  EXPECT_EQ(js.status, 200);
  EXPECT_NE(js.content_type.find("javascript"), std::string::npos);
  const auto proto = opstest::http_get(d.http_port(), "/view/proto/anim/v1/envelope.proto");
  EXPECT_NE(proto.body.find("message ServerMessage"), std::string::npos);
  // A GET without the upgrade: told what the path is for.
  const auto plain = opstest::http_get(d.http_port(), "/ws");
  EXPECT_EQ(plain.status, 426);
  EXPECT_NE(plain.body.find("WebSocket upgrades only"), std::string::npos);
  expect_serving(d);
}

TEST(WebSocket, TextMessageClosesWithUnsupportedDataAndAReason) {
  WebDaemon d;
  ASSERT_TRUE(d.start()) << d.process().log_tail();
  WsClient bad(d.http_port());
  ASSERT_TRUE(bad.ok()) << bad.error();
  WsClient good(d.http_port());
  ASSERT_TRUE(good.ok());
  ASSERT_TRUE(bad.send_text("{\"stats\": {}}"));
  ASSERT_TRUE(bad.wait_closed()) << bad.read_error().message();
  EXPECT_EQ(bad.close_code(), close_code::unknown_data);
  EXPECT_NE(bad.close_reason().find("text message"), std::string::npos) << bad.close_reason();
  // The other connection is untouched.
  auto reply = good.call(stats_request(5));
  ASSERT_TRUE(reply.has_value());
  EXPECT_EQ(reply->status().code(), anim::v1::STATUS_OK);
  EXPECT_NE(d.process().log().find("a WebSocket text message"), std::string::npos);
}

TEST(WebSocket, BinaryGarbageClosesAsUnparsable) {
  WebDaemon d;
  ASSERT_TRUE(d.start()) << d.process().log_tail();
  WsClient bad(d.http_port());
  ASSERT_TRUE(bad.ok());
  ASSERT_TRUE(bad.send_binary(std::string("\xff\xff\xff\xff\x0f garbage", 13)));
  ASSERT_TRUE(bad.wait_closed());
  EXPECT_EQ(bad.close_code(), close_code::bad_payload);
  EXPECT_NE(bad.close_reason().find("unparsable request"), std::string::npos) << bad.close_reason();
  expect_serving(d);
}

TEST(WebSocket, OversizedMessageBeforeTrustClosesWithTooBig) {
  WebDaemon d({"--max-preauth-frame-bytes", "4096"});
  ASSERT_TRUE(d.start()) << d.process().log_tail();
  WsClient bad(d.http_port());
  ASSERT_TRUE(bad.ok());
  bad.send_binary(std::string(100000, '\x08'));  // may fail half-way: the daemon closes
  ASSERT_TRUE(bad.wait_closed()) << bad.read_error().message();
  EXPECT_EQ(bad.close_code(), close_code::too_big);
  EXPECT_NE(bad.close_reason().find("--max-preauth-frame-bytes 4096"), std::string::npos)
      << bad.close_reason();
  expect_serving(d);
}

TEST(WebSocket, OversizedMessageAfterTrustClosesWithTooBig) {
  WebDaemon d({"--max-frame-bytes", "8192", "--max-upload-bytes", "16384"});
  ASSERT_TRUE(d.start()) << d.process().log_tail();
  WsClient bad(d.http_port());
  ASSERT_TRUE(bad.ok());
  auto ok = bad.call(stats_request(1));
  ASSERT_TRUE(ok.has_value());
  // A request that parses but is over --max-frame-bytes (not an upload).
  anim::v1::Request big = stats_request(2);
  big.set_auth_token(std::string(12000, 'x'));
  bad.send(big);
  ASSERT_TRUE(bad.wait_closed());
  EXPECT_EQ(bad.close_code(), close_code::too_big);
  EXPECT_NE(bad.close_reason().find("--max-frame-bytes 8192"), std::string::npos)
      << bad.close_reason();
  // Over the largest frame accepted at all: refused as it arrives.
  WsClient bad2(d.http_port());
  ASSERT_TRUE(bad2.ok());
  ASSERT_TRUE(bad2.call(stats_request(1)).has_value());
  bad2.send_binary(std::string(40000, '\0'));
  ASSERT_TRUE(bad2.wait_closed()) << bad2.read_error().message();
  EXPECT_EQ(bad2.close_code(), close_code::too_big);
  EXPECT_NE(bad2.close_reason().find("exceeds the limit"), std::string::npos)
      << bad2.close_reason();
  expect_serving(d);
}

// Frames no client library would send: the daemon (Beast) fails the connection with a close
// frame carrying 1002 (protocol error), and goes on serving others.
TEST(WebSocket, MalformedFramesCloseWithProtocolError) {
  WebDaemon d;
  ASSERT_TRUE(d.start()) << d.process().log_tail();
  const std::vector<std::string> bad = {
      std::string("\x83\x80\x00\x00\x00\x00", 6),  // reserved opcode 3 (masked, empty)
      std::string("\x82\x03"
                  "abc",
                  5),                                      // a client frame without a mask
      std::string("\xc2\x80\x00\x00\x00\x00", 6),          // RSV1 set, no extension agreed
      std::string("\x89\xfe\x01\x00\x00\x00\x00\x00", 8),  // a ping longer than 125 bytes
  };
  for (const auto& bytes : bad) {
    const std::string back = wstest::raw_after_upgrade(d.http_port(), bytes);
    ASSERT_GE(back.size(), 4u) << "no close frame";
    EXPECT_EQ(uint8_t(back[0]), 0x88) << "not a close frame";
    EXPECT_EQ((uint8_t(back[2]) << 8) | uint8_t(back[3]), 1002);
  }
  expect_serving(d);
}

TEST(WebSocket, OriginsOfOtherHostsAreRefusedUnlessAllowed) {
  WebDaemon d;
  ASSERT_TRUE(d.start()) << d.process().log_tail();
  const std::string self = "http://127.0.0.1:" + std::to_string(d.http_port());
  {
    WsClient same(d.http_port(), self);
    EXPECT_TRUE(same.ok()) << same.error();
  }
  for (const std::string& origin : std::vector<std::string>{
           "http://evil.example", "http://127.0.0.1:1", "null", "file://", self + "/path"}) {
    EXPECT_FALSE(WsClient(d.http_port(), origin).ok()) << origin;
    const auto no = wstest::refused_upgrade(d.http_port(), origin);
    EXPECT_EQ(no.status, 403u) << origin;
    EXPECT_NE(no.body.find("Origin"), std::string::npos) << no.body;
  }
  expect_serving(d);

  WebDaemon listed({"--ws-allowed-origin", "https://viewer.example:8443", "--ws-allowed-origin",
                    "http://tools.example"});
  ASSERT_TRUE(listed.start()) << listed.process().log_tail();
  EXPECT_TRUE(WsClient(listed.http_port(), "https://VIEWER.example:8443").ok());
  EXPECT_TRUE(WsClient(listed.http_port(), "http://tools.example").ok());
  const auto no = wstest::refused_upgrade(listed.http_port(),
                                          "http://127.0.0.1:" + std::to_string(listed.http_port()));
  EXPECT_EQ(no.status, 403u);
  EXPECT_NE(no.body.find("--ws-allowed-origin"), std::string::npos) << no.body;
}

TEST(WebSocket, TokensAreRequiredAsOnTheTcpPort) {
  WebDaemon d({"--control-token", kToken, "--observe-token", kObserve, "--max-failed-auth", "3"});
  ASSERT_TRUE(d.start()) << d.process().log_tail();
  WsClient ws(d.http_port());
  ASSERT_TRUE(ws.ok());
  auto none = ws.call(stats_request(1));
  ASSERT_TRUE(none.has_value());
  EXPECT_EQ(none->status().code(), anim::v1::STATUS_UNAUTHENTICATED);
  EXPECT_NE(none->status().message().find("requires a token"), std::string::npos);
  auto observe = ws.call(stats_request(2, kObserve));
  ASSERT_TRUE(observe.has_value());
  EXPECT_EQ(observe->status().code(), anim::v1::STATUS_OK);
  anim::v1::Request spawn;
  spawn.set_request_id(3);
  spawn.set_auth_token(kObserve);
  spawn.mutable_spawn()->set_asset("builtin");
  auto denied = ws.call(spawn);
  ASSERT_TRUE(denied.has_value());
  EXPECT_EQ(denied->status().code(), anim::v1::STATUS_PERMISSION_DENIED);

  // Wrong tokens, --max-failed-auth times: answered, then the connection is closed with why.
  WsClient wrong(d.http_port());
  ASSERT_TRUE(wrong.ok());
  for (int i = 0; i < 3; ++i) {
    auto r = wrong.call(stats_request(10 + i, "not-the-token-0123456789"));
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->status().code(), anim::v1::STATUS_UNAUTHENTICATED);
  }
  ASSERT_TRUE(wrong.wait_closed()) << wrong.read_error().message();
  EXPECT_EQ(wrong.close_code(), close_code::policy_error);
  EXPECT_NE(wrong.close_reason().find("--max-failed-auth"), std::string::npos)
      << wrong.close_reason();
  expect_serving(d);
}

TEST(WebSocket, ConnectionLimitsCountWebSocketsToo) {
  WebDaemon d({"--max-connections-per-address", "2"});
  ASSERT_TRUE(d.start()) << d.process().log_tail();
  WsClient a(d.http_port()), b(d.http_port());
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(b.ok());
  EXPECT_FALSE(WsClient(d.http_port()).ok());
  const auto c = wstest::refused_upgrade(d.http_port(), "");
  EXPECT_EQ(c.status, 503u);
  EXPECT_NE(c.body.find("--max-connections-per-address"), std::string::npos) << c.body;
  EXPECT_TRUE(a.call(stats_request(1)).has_value());
}

// The answer to a WebSocket upgrade at /ws sent with Host `host` and Origin `origin`, as a
// browser on a page of `host` sends it: 101 accepted, else the refusal's status and body.
wstest::Refusal upgrade_answer(uint16_t port, const std::string& host, const std::string& origin) {
  namespace beast = boost::beast;
  namespace http = beast::http;
  wstest::Refusal out;
  boost::asio::io_context io;
  beast::tcp_stream stream(io);
  beast::error_code ec;
  stream.expires_after(std::chrono::seconds(20));
  stream.connect({boost::asio::ip::make_address("127.0.0.1"), port}, ec);
  if (ec) return out;
  http::request<http::empty_body> req{http::verb::get, "/ws", 11};
  req.set(http::field::host, host);
  req.set(http::field::origin, origin);
  req.set(http::field::connection, "Upgrade");
  req.set(http::field::upgrade, "websocket");
  req.set(http::field::sec_websocket_key, "dGhlIHNhbXBsZSBub25jZQ==");
  req.set(http::field::sec_websocket_version, "13");
  http::write(stream, req, ec);
  if (ec) return out;
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> res;
  http::read_header(stream, buffer, res, ec);
  if (ec) return out;
  out.status = res.get().result_int();
  if (out.status != 101) http::read(stream, buffer, res, ec);
  out.body = res.get().body();
  return out;
}

// DNS rebinding: a page from rebind.attacker.example, whose name now resolves to the daemon,
// is same-origin with it for the browser (its Origin names the Host it sends), so the Origin
// check alone would let it drive the daemon. The Host check refuses it first.
TEST(WebSocket, RebindingHostIsRefusedUnlessListed) {
  WebDaemon d;
  ASSERT_TRUE(d.start()) << d.process().log_tail();
  const std::string port = std::to_string(d.http_port());
  const std::string evil = "rebind.attacker.example:" + port;
  const auto no = upgrade_answer(d.http_port(), evil, "http://" + evil);
  EXPECT_EQ(no.status, 403u);
  EXPECT_NE(no.body.find("--http-allowed-host"), std::string::npos) << no.body;
  EXPECT_EQ(upgrade_answer(d.http_port(), "127.0.0.1:" + port, "http://127.0.0.1:" + port).status,
            101u);
  EXPECT_EQ(upgrade_answer(d.http_port(), "localhost:" + port, "http://localhost:" + port).status,
            101u);
  // The page itself is refused too: the attacker's script never loads from the daemon.
  EXPECT_EQ(opstest::http_get_host(d.http_port(), "/view", evil).status, 403);
  EXPECT_NE(d.process().log().find("Host 'rebind.attacker.example:" + port + "' is not allowed"),
            std::string::npos)
      << d.process().log_tail();
  expect_serving(d);

  WebDaemon listed({"--http-allowed-host", "animd.example"});
  ASSERT_TRUE(listed.start()) << listed.process().log_tail();
  const std::string lport = std::to_string(listed.http_port());
  EXPECT_EQ(
      upgrade_answer(listed.http_port(), "animd.example:" + lport, "http://animd.example:" + lport)
          .status,
      101u);
  EXPECT_EQ(upgrade_answer(listed.http_port(), "rebind.attacker.example:" + lport,
                           "http://rebind.attacker.example:" + lport)
                .status,
            403u);
  // A listed Host does not widen the Origin check: other pages stay refused.
  const auto other = upgrade_answer(listed.http_port(), "animd.example:" + lport,
                                    "http://rebind.attacker.example:" + lport);
  EXPECT_EQ(other.status, 403u);
  EXPECT_NE(other.body.find("Origin"), std::string::npos) << other.body;
}

// With --tls-cert the HTTP port speaks TLS to clients that start with a TLS hello: the
// protocol is served over wss:// only (as the TCP port takes TLS only), while plain HTTP keeps
// the probes (and the page, which then says where to go).
TEST(WebSocket, TlsDaemonServesTheProtocolOverWssOnly) {
  animtest::TempDir dir("web-tls");
  const auto certs = animtest::make_test_certs(dir.path());
  if (!certs.ok()) GTEST_SKIP() << "no test certificates (openssl CLI): " << certs.error;
  WebDaemon d({"--tls-cert", certs.server_cert, "--tls-key", certs.server_key});
  ASSERT_TRUE(d.start()) << d.process().log_tail();

  EXPECT_FALSE(WsClient(d.http_port()).ok());
  const auto no = wstest::refused_upgrade(d.http_port(), "");
  EXPECT_EQ(no.status, 403u);
  EXPECT_NE(no.body.find("TLS only"), std::string::npos) << no.body;
  EXPECT_NE(no.body.find("wss://"), std::string::npos) << no.body;
  EXPECT_EQ(opstest::http_get(d.http_port(), "/healthz").status, 200);

  namespace ssl = boost::asio::ssl;
  namespace beast = boost::beast;
  ssl::context ctx(ssl::context::tls_client);
  ctx.load_verify_file(certs.ca);
  ctx.set_verify_mode(ssl::verify_peer);
  boost::asio::io_context io;
  beast::websocket::stream<beast::ssl_stream<beast::tcp_stream>> wss(io, ctx);
  beast::get_lowest_layer(wss).expires_after(std::chrono::seconds(20));
  beast::error_code ec;
  beast::get_lowest_layer(wss).connect({boost::asio::ip::make_address("127.0.0.1"), d.http_port()},
                                       ec);
  ASSERT_FALSE(ec) << ec.message();
  wss.next_layer().handshake(ssl::stream_base::client, ec);
  ASSERT_FALSE(ec) << "TLS handshake: " << ec.message();
  wss.handshake("127.0.0.1:" + std::to_string(d.http_port()), "/ws", ec);
  ASSERT_FALSE(ec) << "WebSocket handshake: " << ec.message();
  wss.binary(true);
  const std::string request = stats_request(9).SerializeAsString();
  wss.write(boost::asio::buffer(request), ec);
  ASSERT_FALSE(ec) << ec.message();
  beast::flat_buffer buf;
  wss.read(buf, ec);
  ASSERT_FALSE(ec) << ec.message();
  anim::v1::ServerMessage m;
  ASSERT_TRUE(m.ParseFromString(beast::buffers_to_string(buf.data())));
  EXPECT_EQ(m.reply().request_id(), 9u);
  EXPECT_EQ(m.reply().status().code(), anim::v1::STATUS_OK);
  EXPECT_GT(m.reply().stats().sessions(), 0u);
}

}  // namespace

// A WebSocket subscriber that stops reading is treated as on the TCP port: its frames are
// dropped once its queue is full, then its subscription ends with the reason, and the
// connection still answers requests (the write queue and stall rules are the session's).
TEST(WebSocket, StalledSubscriberGetsSubscriptionEnded) {
  WebDaemon d(
      {"--spawn-builtin", "50", "--max-queued-bytes", "65536", "--stream-stall-seconds", "1"});
  ASSERT_TRUE(d.start()) << d.process().log_tail();
  WsClient ws(d.http_port(), {}, "/ws", 4096);
  ASSERT_TRUE(ws.ok()) << ws.error();
  anim::v1::Request sub;
  sub.set_request_id(1);
  sub.mutable_subscribe()->set_all_characters(true);
  sub.mutable_subscribe()->set_encoding(anim::v1::ENCODING_FLOAT_3X4);
  ASSERT_TRUE(ws.send(sub));
  // Do not read until the daemon says it ended the subscription (bounded wait).
  bool logged = false;
  for (int i = 0; i < 600 && !logged; ++i) {
    logged = d.process().log().find("subscription(s) ended") != std::string::npos;
    if (!logged) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_TRUE(logged) << d.process().log_tail();
  std::optional<anim::v1::SubscriptionEnded> ended;
  bool replied = false;
  for (int i = 0; i < 100000 && !ended; ++i) {
    auto m = ws.read();
    ASSERT_TRUE(m.has_value()) << "closed: " << ws.read_error().message();
    if (m->has_reply()) {
      EXPECT_EQ(m->reply().status().code(), anim::v1::STATUS_OK);
      replied = true;
    }
    if (m->has_subscription_ended()) ended = m->subscription_ended();
  }
  EXPECT_TRUE(replied);
  ASSERT_TRUE(ended) << d.process().log_tail();
  EXPECT_EQ(ended->subscription_id(), 1u);
  EXPECT_EQ(ended->code(), anim::v1::STATUS_RESOURCE_EXHAUSTED);
  EXPECT_NE(ended->reason().find("--stream-stall-seconds"), std::string::npos) << ended->reason();
  EXPECT_GT(ended->frames_dropped(), 0u);
  // Frames already queued, then the reply: no frame of the ended subscription follows it.
  ASSERT_TRUE(ws.send(stats_request(2)));
  for (int i = 0;; ++i) {
    ASSERT_LT(i, 100000) << "no reply among the frames";
    auto m = ws.read();
    ASSERT_TRUE(m.has_value()) << "closed: " << ws.read_error().message();
    if (m->has_reply()) {
      EXPECT_EQ(m->reply().request_id(), 2u);
      break;
    }
    ASSERT_TRUE(m->has_frame()) << "unexpected message";
  }
  expect_serving(d);
}
