// animd::Transport and make_server_tls_context without a Session: an echo server on
// 127.0.0.1 accepts on a Transport (TLS or plain) and echoes length-prefixed messages with
// asio::async_read/async_write, so the Transport is exercised exactly as a Session uses it.
// Clients are raw Asio ssl::streams (to force old protocol versions or odd certificates)
// and libanimclient (whose TLS connect stops after the handshake).
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include <gtest/gtest.h>
#include <openssl/ssl.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/write.hpp>

#include "animclient/client.h"
#include "daemon_process.h"  // TempDir
#include "net/tls_context.h"
#include "net/transport.h"
#include "test_certs.h"

namespace tls_transport_test {

namespace asio = boost::asio;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;
using boost::system::error_code;

// What the server saw of one connection's handshake.
struct Handshake {
  error_code error;
  std::string peer_subject;
  bool tls = false;
};

// Accepts connections on 127.0.0.1:0 (TLS when given a context), records every handshake,
// then echoes frames of [1-byte length][body] until the peer leaves.
class EchoServer {
 public:
  explicit EchoServer(std::shared_ptr<ssl::context> tls) : tls_(std::move(tls)) {
    acceptor_.open(tcp::v4());
    acceptor_.set_option(tcp::acceptor::reuse_address(true));
    acceptor_.bind(tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
    acceptor_.listen();
    accept();
    thread_ = std::thread([this] { io_.run(); });
  }
  ~EchoServer() {
    asio::post(io_, [this] {
      error_code ignored;
      acceptor_.close(ignored);
      for (auto& weak : connections_)
        if (auto c = weak.lock()) c->transport.close();
    });
    thread_.join();
  }

  uint16_t port() const { return acceptor_.local_endpoint().port(); }

  // The next recorded handshake, waiting at most 20 s (a bound, not a timing assertion).
  std::optional<Handshake> next_handshake() {
    std::unique_lock lock(mutex_);
    cv_.wait_for(lock, std::chrono::seconds(20), [&] { return !handshakes_.empty(); });
    if (handshakes_.empty()) return std::nullopt;
    Handshake h = handshakes_.front();
    handshakes_.pop_front();
    return h;
  }

 private:
  struct Connection : std::enable_shared_from_this<Connection> {
    // Moved in, as the daemon's accept handler hands its Transport to the Session.
    explicit Connection(animd::Transport t) : transport(std::move(t)) {}
    animd::Transport transport;
    uint8_t length = 0;
    std::vector<uint8_t> body;
  };

  void accept() {
    acceptor_.async_accept([this](const error_code& ec, tcp::socket socket) {
      if (ec) return;
      auto c = std::make_shared<Connection>(tls_ ? animd::Transport(std::move(socket), *tls_)
                                                 : animd::Transport(std::move(socket)));
      connections_.push_back(c);
      c->transport.async_handshake([this, c](const error_code& hec) {
        {
          std::lock_guard lock(mutex_);
          handshakes_.push_back({hec, c->transport.peer_subject(), c->transport.is_tls()});
        }
        cv_.notify_all();
        if (hec) return c->transport.close();
        read(c);
      });
      accept();
    });
  }

  void read(std::shared_ptr<Connection> c) {
    asio::async_read(c->transport, asio::buffer(&c->length, 1), [this, c](error_code ec, size_t) {
      if (ec) return c->transport.close();
      c->body.resize(c->length + 1u);
      c->body[0] = c->length;
      asio::async_read(c->transport, asio::buffer(c->body.data() + 1, c->length),
                       [this, c](error_code rec, size_t) {
                         if (rec) return c->transport.close();
                         asio::async_write(c->transport, asio::buffer(c->body),
                                           [this, c](error_code wec, size_t) {
                                             if (wec) return c->transport.close();
                                             read(c);
                                           });
                       });
    });
  }

  asio::io_context io_;
  tcp::acceptor acceptor_{io_};
  std::shared_ptr<ssl::context> tls_;
  std::vector<std::weak_ptr<Connection>> connections_;
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<Handshake> handshakes_;
};

// The certificates, made once for the whole suite.
class TlsTransport : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new animtest::TempDir("tls-transport");
    certs_ = new animtest::TestCerts(animtest::make_test_certs(dir_->path()));
  }
  static void TearDownTestSuite() {
    delete certs_;
    delete dir_;
    certs_ = nullptr;
    dir_ = nullptr;
  }
  void SetUp() override { ASSERT_TRUE(certs_->ok()) << certs_->error; }

  static std::shared_ptr<ssl::context> server_context(bool client_ca, bool require) {
    animd::TlsConfig config;
    config.cert_file = certs_->server_cert;
    config.key_file = certs_->server_key;
    if (client_ca) config.client_ca_file = certs_->ca;
    config.require_client_cert = require;
    auto made = animd::make_server_tls_context(config);
    EXPECT_TRUE(made) << made.error().message();
    return made ? made.value() : nullptr;
  }

  static const animtest::TestCerts& certs() { return *certs_; }

 private:
  static animtest::TempDir* dir_;
  static animtest::TestCerts* certs_;
};
animtest::TempDir* TlsTransport::dir_ = nullptr;
animtest::TestCerts* TlsTransport::certs_ = nullptr;

// A blocking raw TLS client with a receive timeout, so a broken server fails the test
// instead of hanging it.
struct RawTlsClient {
  asio::io_context io;
  ssl::context context{ssl::context::tls_client};
  std::optional<ssl::stream<tcp::socket>> stream;

  explicit RawTlsClient(const std::string& ca) {
    context.load_verify_file(ca);
    context.set_verify_mode(ssl::verify_peer);
  }
  void use_certificate(const std::string& cert, const std::string& key) {
    context.use_certificate_chain_file(cert);
    context.use_private_key_file(key, ssl::context::pem);
  }
  error_code connect_and_handshake(uint16_t port) {
    stream.emplace(io, context);
    error_code ec;
    stream->next_layer().connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port), ec);
    if (ec) return ec;
    timeval tv{10, 0};
    ::setsockopt(stream->next_layer().native_handle(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    stream->handshake(ssl::stream_base::client, ec);
    return ec;
  }
  // Sends one echo frame and reads the echo; the error of the first failing step.
  error_code echo(const std::string& text, std::string& echoed) {
    std::vector<uint8_t> frame{static_cast<uint8_t>(text.size())};
    frame.insert(frame.end(), text.begin(), text.end());
    error_code ec;
    asio::write(*stream, asio::buffer(frame), ec);
    if (ec) return ec;
    std::vector<uint8_t> back(frame.size());
    asio::read(*stream, asio::buffer(back), ec);
    if (ec) return ec;
    echoed.assign(back.begin() + 1, back.end());
    return {};
  }
};

TEST_F(TlsTransport, TlsEchoWorksWithAsyncReadAndWrite) {
  EchoServer server(server_context(false, false));
  RawTlsClient client(certs().ca);
  ASSERT_FALSE(client.connect_and_handshake(server.port()));
  auto handshake = server.next_handshake();
  ASSERT_TRUE(handshake);
  EXPECT_FALSE(handshake->error) << handshake->error.message();
  EXPECT_TRUE(handshake->tls);
  EXPECT_EQ(handshake->peer_subject, "");  // no client certificate requested
  EXPECT_GE(SSL_version(client.stream->native_handle()), TLS1_2_VERSION);
  for (const std::string& text : {std::string("hello"), std::string(), std::string(255, 'x')}) {
    std::string echoed;
    ASSERT_FALSE(client.echo(text, echoed));
    EXPECT_EQ(echoed, text);
  }
}

TEST_F(TlsTransport, PlainTransportEchoesAndPostsItsHandshake) {
  EchoServer server(nullptr);
  asio::io_context io;
  tcp::socket socket(io);
  socket.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), server.port()));
  auto handshake = server.next_handshake();
  ASSERT_TRUE(handshake);
  EXPECT_FALSE(handshake->error);
  EXPECT_FALSE(handshake->tls);
  EXPECT_EQ(handshake->peer_subject, "");
  const uint8_t frame[] = {3, 'a', 'b', 'c'};
  asio::write(socket, asio::buffer(frame));
  uint8_t back[4] = {};
  asio::read(socket, asio::buffer(back));
  EXPECT_EQ(std::memcmp(frame, back, 4), 0);
}

TEST_F(TlsTransport, Tls11ClientIsRefused) {
  EchoServer server(server_context(false, false));
  RawTlsClient client(certs().ca);
  // Let this client offer TLS 1.1 at all (OpenSSL 3's default security level forbids it).
  SSL_CTX_set_security_level(client.context.native_handle(), 0);
  SSL_CTX_set_cipher_list(client.context.native_handle(), "DEFAULT:@SECLEVEL=0");
  SSL_CTX_set_min_proto_version(client.context.native_handle(), TLS1_VERSION);
  SSL_CTX_set_max_proto_version(client.context.native_handle(), TLS1_1_VERSION);
  EXPECT_TRUE(client.connect_and_handshake(server.port()));
  auto handshake = server.next_handshake();
  ASSERT_TRUE(handshake);
  // The server saw a TLS 1.1 hello and refused it (OpenSSL: "unsupported protocol").
  EXPECT_TRUE(handshake->error);
  EXPECT_NE(handshake->error.message().find("unsupported protocol"), std::string::npos)
      << handshake->error.message();
}

TEST_F(TlsTransport, VerifiedClientCertificateSubjectIsReported) {
  EchoServer server(server_context(true, true));
  RawTlsClient client(certs().ca);
  client.use_certificate(certs().client_cert, certs().client_key);
  ASSERT_FALSE(client.connect_and_handshake(server.port()));
  std::string echoed;
  ASSERT_FALSE(client.echo("ok", echoed));
  EXPECT_EQ(echoed, "ok");
  auto handshake = server.next_handshake();
  ASSERT_TRUE(handshake);
  EXPECT_FALSE(handshake->error) << handshake->error.message();
  EXPECT_EQ(handshake->peer_subject, animtest::kTestClientSubject);
}

// In TLS 1.3 the client's handshake may finish before the server has checked the client's
// certificate: the refusal then shows on the client's first read. Either way nothing is
// echoed and the server's handshake failed.
void expect_client_refused(EchoServer& server, RawTlsClient& client, const char* server_reason) {
  const error_code handshake_error = client.connect_and_handshake(server.port());
  if (!handshake_error) {
    std::string echoed;
    const error_code ec = client.echo("no", echoed);
    EXPECT_TRUE(ec);
    EXPECT_NE(ec, asio::error::would_block) << "the client hung instead of being refused";
  }
  auto handshake = server.next_handshake();
  ASSERT_TRUE(handshake);
  EXPECT_TRUE(handshake->error);
  EXPECT_NE(handshake->error.message().find(server_reason), std::string::npos)
      << handshake->error.message();
  EXPECT_EQ(handshake->peer_subject, "");
}

TEST_F(TlsTransport, UntrustedClientCertificateIsRefusedWhenRequired) {
  EchoServer server(server_context(true, true));
  RawTlsClient client(certs().ca);
  client.use_certificate(certs().untrusted_client_cert, certs().untrusted_client_key);
  expect_client_refused(server, client, "certificate verify failed");
}

TEST_F(TlsTransport, MissingClientCertificateIsRefusedWhenRequired) {
  EchoServer server(server_context(true, true));
  RawTlsClient client(certs().ca);
  expect_client_refused(server, client, "peer did not return a certificate");
}

TEST_F(TlsTransport, ClientCertificateIsOptionalWithoutRequire) {
  EchoServer server(server_context(true, false));
  RawTlsClient client(certs().ca);
  ASSERT_FALSE(client.connect_and_handshake(server.port()));
  std::string echoed;
  ASSERT_FALSE(client.echo("anon", echoed));
  EXPECT_EQ(echoed, "anon");
  auto handshake = server.next_handshake();
  ASSERT_TRUE(handshake);
  EXPECT_FALSE(handshake->error);
  EXPECT_EQ(handshake->peer_subject, "");
}

TEST_F(TlsTransport, PlainTcpClientGetsAHandshakeFailureNotAHang) {
  EchoServer server(server_context(false, false));
  asio::io_context io;
  tcp::socket socket(io);
  socket.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), server.port()));
  timeval tv{10, 0};
  ::setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  // An animd frame header and body, as a plain client would send.
  const uint8_t frame[] = {8, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8};
  asio::write(socket, asio::buffer(frame));
  auto handshake = server.next_handshake();
  ASSERT_TRUE(handshake);
  EXPECT_TRUE(handshake->error);
  // The server closed: the client reads an alert or end of file, never waits forever.
  std::vector<uint8_t> sink(4096);
  error_code ec;
  for (int i = 0; i < 16 && !ec; ++i) socket.read_some(asio::buffer(sink), ec);
  EXPECT_TRUE(ec == asio::error::eof || ec == asio::error::connection_reset) << ec.message();
}

TEST_F(TlsTransport, ContextErrorsNameTheFileAndTheReason) {
  animd::TlsConfig config;
  config.cert_file = "/nonexistent/animd-cert.pem";
  config.key_file = certs().server_key;
  auto made = animd::make_server_tls_context(config);
  ASSERT_FALSE(made);
  EXPECT_NE(made.error().message().find("/nonexistent/animd-cert.pem"), std::string::npos)
      << made.error().message();
  EXPECT_NE(made.error().message().find("--tls-cert"), std::string::npos);
  EXPECT_NE(made.error().message().find("No such file or directory"), std::string::npos)
      << made.error().message();

  config.cert_file = certs().server_cert;
  config.key_file = certs().client_key;  // a valid key, of another certificate
  made = animd::make_server_tls_context(config);
  ASSERT_FALSE(made);
  // OpenSSL notices while loading the key: "key values mismatch".
  EXPECT_NE(made.error().message().find("mismatch"), std::string::npos) << made.error().message();
  EXPECT_NE(made.error().message().find(certs().client_key), std::string::npos);

  config.key_file = certs().server_key;
  config.client_ca_file = certs().server_key;  // not a certificate
  made = animd::make_server_tls_context(config);
  ASSERT_FALSE(made);
  EXPECT_NE(made.error().message().find("--tls-client-ca"), std::string::npos)
      << made.error().message();

  config.client_ca_file.clear();
  config.require_client_cert = true;
  made = animd::make_server_tls_context(config);
  ASSERT_FALSE(made);
  EXPECT_EQ(made.error().code(), anim::StatusCode::kInvalidArgument);
  EXPECT_NE(made.error().message().find("--tls-client-ca"), std::string::npos);

  config.require_client_cert = false;
  EXPECT_TRUE(animd::make_server_tls_context(config));
}

// libanimclient's TLS connect ends with the handshake, so the echo server is peer enough.
animclient::ClientOptions tls_options(uint16_t port, const std::string& ca) {
  animclient::ClientOptions o;
  o.port = port;
  o.tls = true;
  o.ca_file = ca;
  return o;
}

TEST_F(TlsTransport, ClientLibraryVerifiesTheServer) {
  EchoServer server(server_context(false, false));
  {
    auto client = animclient::Client::connect(tls_options(server.port(), certs().ca));
    ASSERT_TRUE(client) << client.error().to_string();
    EXPECT_TRUE(client.value()->connected());
  }
  {
    // By DNS name (SNI + hostname check) to the same loopback address.
    auto o = tls_options(server.port(), certs().ca);
    o.server_name = "localhost";
    auto client = animclient::Client::connect(o);
    ASSERT_TRUE(client) << client.error().to_string();
  }
  const std::string where = "127.0.0.1:" + std::to_string(server.port());
  {
    auto client = animclient::Client::connect(tls_options(server.port(), certs().untrusted_ca));
    ASSERT_FALSE(client);
    EXPECT_EQ(client.error().kind, animclient::Error::Kind::kConnect);
    EXPECT_EQ(client.error().message.rfind(
                  "TLS handshake with " + where + " failed: certificate verify failed", 0),
              0u)
        << client.error().message;
  }
  {
    auto o = tls_options(server.port(), certs().ca);
    o.server_name = "animd.example.com";  // not in the certificate
    auto client = animclient::Client::connect(o);
    ASSERT_FALSE(client);
    EXPECT_NE(client.error().message.find("hostname mismatch"), std::string::npos)
        << client.error().message;
  }
  {
    auto o = tls_options(server.port(), "/nonexistent/ca.pem");
    auto client = animclient::Client::connect(o);
    ASSERT_FALSE(client);
    EXPECT_EQ(client.error().kind, animclient::Error::Kind::kConnect);
    EXPECT_NE(client.error().message.find("/nonexistent/ca.pem"), std::string::npos)
        << client.error().message;
  }
  // Each handshake the server saw: 2 good; the refused ones failed on the server too.
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(server.next_handshake());
}

TEST_F(TlsTransport, ClientLibraryHandshakeIsBoundedByTheConnectTimeout) {
  // A peer that accepts the TCP connection and never answers the TLS hello.
  asio::io_context io;
  tcp::acceptor silent(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  auto o = tls_options(silent.local_endpoint().port(), certs().ca);
  o.connect_timeout = std::chrono::milliseconds(300);
  auto client = animclient::Client::connect(o);
  ASSERT_FALSE(client);
  EXPECT_EQ(client.error().kind, animclient::Error::Kind::kConnect);
  EXPECT_EQ(client.error().message,
            "TLS handshake with 127.0.0.1:" + std::to_string(silent.local_endpoint().port()) +
                ": timed out after 300 ms");
}

TEST_F(TlsTransport, ClientLibraryPresentsItsCertificate) {
  EchoServer server(server_context(true, true));
  auto o = tls_options(server.port(), certs().ca);
  o.cert_file = certs().client_cert;
  o.key_file = certs().client_key;
  auto client = animclient::Client::connect(o);
  ASSERT_TRUE(client) << client.error().to_string();
  auto handshake = server.next_handshake();
  ASSERT_TRUE(handshake);
  EXPECT_FALSE(handshake->error) << handshake->error.message();
  EXPECT_EQ(handshake->peer_subject, animtest::kTestClientSubject);

  o.key_file.clear();
  auto half = animclient::Client::connect(o);
  ASSERT_FALSE(half);
  EXPECT_NE(half.error().message.find("both a certificate file and a key file"), std::string::npos)
      << half.error().message;
}

}  // namespace tls_transport_test
