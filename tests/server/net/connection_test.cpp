// Connection (net/connection.h) over a loopback TCP socket: frames reach the owner whole and in
// order, within the limit that trust() lifts; replies leave in request order whatever order
// they were produced in; a backlogged owner holds reading back; a flush-then-close sends what
// is queued before the socket closes; and every close tells the owner once, with its reason.
#include "net/connection.h"

#include <gtest/gtest.h>

#include <functional>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>

namespace animd {
namespace connection_test {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

std::string framed(const std::string& body) {
  std::string out(4, '\0');
  const uint32_t n = static_cast<uint32_t>(body.size());
  for (int i = 0; i < 4; ++i) out[i] = static_cast<char>((n >> (8 * i)) & 0xff);
  return out + body;
}

// The owner a Session would be: records what the connection tells it.
struct Owner : ConnectionEvents {
  Owner(Transport transport, const Config& config, Metrics& metrics, ByteBudget& in,
        ByteBudget& out)
      : connection(std::move(transport), config, metrics, in, out, *this) {}

  void on_frame(std::string_view body) override {
    frames.emplace_back(body);
    if (on_each_frame) on_each_frame(body);
  }
  bool backlogged() const override { return hold_back; }
  void on_written(uint32_t) override { ++writes; }
  void on_second(Clock::time_point) override { ++seconds; }
  void on_closing(const std::string& reason) override { closing.push_back(reason); }
  void on_closed() override { ++closed; }

  Connection connection;
  std::vector<std::string> frames;
  std::function<void(std::string_view)> on_each_frame;
  std::vector<std::string> closing;
  bool hold_back = false;
  int writes = 0, seconds = 0, closed = 0;
};

class ConnectionTest : public ::testing::Test {
 protected:
  ConnectionTest() : acceptor_(io_, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0)) {
    config_.max_preauth_frame_bytes = 16;
  }

  // Connects a client and starts a Connection on the accepted socket.
  void open() {
    client_.connect(acceptor_.local_endpoint());
    tcp::socket accepted(io_);
    acceptor_.accept(accepted);
    owner_ = std::make_shared<Owner>(Transport(std::move(accepted)), config_, metrics_, inbound_,
                                     outbound_);
    owner_->connection.start(owner_);
  }

  // Runs the io_context until `done` or 5 s passed; returns `done()`.
  bool run_until(const std::function<bool()>& done) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (!done() && std::chrono::steady_clock::now() < deadline) {
      io_.restart();
      io_.run_for(std::chrono::milliseconds(10));
    }
    return done();
  }

  void send(const std::string& bytes) { asio::write(client_, asio::buffer(bytes)); }

  // Reads frames from the client socket until `count` arrived or the server closed.
  std::vector<std::string> receive(size_t count, bool* eof = nullptr) {
    std::vector<std::string> got;
    std::string buffer;
    std::array<char, 4096> chunk{};
    bool ended = false;
    std::function<void()> read_more;
    read_more = [&] {
      client_.async_read_some(asio::buffer(chunk), [&](boost::system::error_code ec, size_t n) {
        if (ec) {
          ended = true;
          return;
        }
        buffer.append(chunk.data(), n);
        while (buffer.size() >= 4) {
          uint32_t len = 0;
          for (int i = 0; i < 4; ++i) len |= uint32_t(uint8_t(buffer[i])) << (8 * i);
          if (buffer.size() < 4 + len) break;
          got.push_back(buffer.substr(4, len));
          buffer.erase(0, 4 + len);
        }
        if (got.size() < count) read_more();
      });
    };
    read_more();
    run_until([&] { return ended || got.size() >= count; });
    if (eof) {
      if (!ended && got.size() >= count) {
        // Wait for the close that should follow.
        read_more();
        run_until([&] { return ended; });
      }
      *eof = ended;
    }
    return got;
  }

  asio::io_context io_;
  tcp::acceptor acceptor_;
  tcp::socket client_{io_};
  Config config_;
  Metrics metrics_;
  ByteBudget inbound_{1u << 20};
  ByteBudget outbound_{1u << 20};
  std::shared_ptr<Owner> owner_;
};

TEST_F(ConnectionTest, FramesArriveWholeAndInOrderAcrossReads) {
  open();
  const std::string a = framed("alpha"), b = framed("beta"), c = framed("");
  send(a.substr(0, 3));
  ASSERT_TRUE(run_until([&] { return metrics_.bytes_in.load() >= 3; }));
  EXPECT_TRUE(owner_->frames.empty());
  send(a.substr(3) + b + c);
  ASSERT_TRUE(run_until([&] { return owner_->frames.size() == 3; }));
  EXPECT_EQ(owner_->frames, (std::vector<std::string>{"alpha", "beta", ""}));
  EXPECT_TRUE(owner_->closing.empty());
}

TEST_F(ConnectionTest, APreauthFrameAboveTheLimitClosesNamingIt) {
  open();
  send(framed(std::string(17, 'x')));
  ASSERT_TRUE(run_until([&] { return owner_->closed == 1; }));
  ASSERT_EQ(owner_->closing.size(), 1u);
  EXPECT_NE(owner_->closing[0].find("frame of 17 bytes exceeds the limit"), std::string::npos);
  EXPECT_NE(owner_->closing[0].find("--max-preauth-frame-bytes 16"), std::string::npos);
  EXPECT_TRUE(owner_->frames.empty());
  EXPECT_EQ(inbound_.used(), 0u);
}

TEST_F(ConnectionTest, TrustLiftsTheLimitForLaterFrames) {
  open();
  owner_->on_each_frame = [&](std::string_view) { owner_->connection.trust(); };
  send(framed("hello") + framed(std::string(1000, 'y')));
  ASSERT_TRUE(run_until([&] { return owner_->frames.size() == 2; }));
  EXPECT_TRUE(owner_->connection.trusted());
  EXPECT_EQ(owner_->frames[1].size(), 1000u);
  EXPECT_TRUE(owner_->closing.empty());
}

TEST_F(ConnectionTest, RepliesLeaveInRequestOrder) {
  open();
  owner_->connection.send_reply(2, std::make_unique<std::string>(framed("two")), 0);
  owner_->connection.send_reply(1, std::make_unique<std::string>(framed("one")), 0);
  owner_->connection.send_now(std::make_unique<std::string>(framed("now")));
  owner_->connection.send_reply(0, std::make_unique<std::string>(framed("zero")), 0);
  const auto got = receive(4);
  EXPECT_EQ(got, (std::vector<std::string>{"now", "zero", "one", "two"}));
  EXPECT_GE(owner_->writes, 1);
}

TEST_F(ConnectionTest, ABackloggedOwnerIsNotGivenFramesUntilItDrains) {
  open();
  owner_->hold_back = true;
  send(framed("first") + framed("second"));
  ASSERT_TRUE(run_until([&] { return metrics_.bytes_in.load() > 0; }));
  for (int i = 0; i < 5; ++i) io_.poll();
  EXPECT_TRUE(owner_->frames.empty());
  owner_->hold_back = false;
  owner_->connection.resume_if_drained();
  ASSERT_TRUE(run_until([&] { return owner_->frames.size() == 2; }));
}

TEST_F(ConnectionTest, PausedReadingResumesWhereItStopped) {
  open();
  owner_->on_each_frame = [&](std::string_view body) {
    if (body == "load") owner_->connection.pause_reading();
  };
  send(framed("load") + framed("after"));
  ASSERT_TRUE(run_until([&] { return owner_->frames.size() == 1; }));
  for (int i = 0; i < 5; ++i) io_.poll();
  EXPECT_EQ(owner_->frames.size(), 1u);
  owner_->connection.resume_reading();
  ASSERT_TRUE(run_until([&] { return owner_->frames.size() == 2; }));
  EXPECT_EQ(owner_->frames[1], "after");
}

TEST_F(ConnectionTest, CloseAfterFlushSendsWhatIsQueuedThenCloses) {
  open();
  owner_->connection.send_now(std::make_unique<std::string>(framed("why")));
  owner_->connection.close_after_flush("told you",
                                       std::chrono::steady_clock::now() + std::chrono::seconds(5));
  bool eof = false;
  const auto got = receive(1, &eof);
  EXPECT_EQ(got, (std::vector<std::string>{"why"}));
  EXPECT_TRUE(eof);
  ASSERT_TRUE(run_until([&] { return owner_->closed == 1; }));
  EXPECT_EQ(owner_->closing, (std::vector<std::string>{"told you"}));
  // Closing again does nothing.
  owner_->connection.close("again");
  EXPECT_EQ(owner_->closed, 1);
}

TEST_F(ConnectionTest, ThePeerClosingIsANormalClose) {
  open();
  client_.close();
  ASSERT_TRUE(run_until([&] { return owner_->closed == 1; }));
  EXPECT_EQ(owner_->closing, (std::vector<std::string>{"client closed the connection"}));
}

TEST_F(ConnectionTest, NoValidRequestWithinTheAuthTimeoutCloses) {
  config_.auth_timeout_s = 0.05;
  open();
  ASSERT_TRUE(run_until([&] { return owner_->closed == 1; }));
  ASSERT_EQ(owner_->closing.size(), 1u);
  EXPECT_NE(owner_->closing[0].find("--auth-timeout"), std::string::npos);
}

TEST_F(ConnectionTest, ATrustedConnectionOutlivesTheAuthTimeout) {
  config_.auth_timeout_s = 0.05;
  open();
  owner_->connection.trust();
  ASSERT_TRUE(run_until([&] { return owner_->seconds >= 2; }));
  EXPECT_EQ(owner_->closed, 0);
}

TEST_F(ConnectionTest, RepliesToAClosedConnectionGiveTheirDrawBack) {
  open();
  owner_->connection.close("gone");
  ASSERT_TRUE(outbound_.try_acquire(100));
  owner_->connection.send_reply(0, std::make_unique<std::string>(framed("late")), 100);
  EXPECT_EQ(outbound_.used(), 0u);
  EXPECT_EQ(owner_->closed, 1);
}

}  // namespace connection_test
}  // namespace animd
