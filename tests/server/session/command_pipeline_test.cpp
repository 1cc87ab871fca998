// CommandPipeline (session/command_pipeline.h): requests reach the tick's queue addressed to
// their sender, within the connection's and the daemon's limits (refusals name the limit and
// queue nothing); each owner key is told to the World once; a load runs on a loader thread
// and reaches the tick as the loaded asset, or its sender as the reason it failed, with the
// upload's budget given back either way.
#include "session/command_pipeline.h"

#include <gtest/gtest.h>

#include <fstream>
#include <future>
#include <mutex>

#include "daemon_process.h"
#include "fake_session_host.h"
#include "md5_chain_files.h"

namespace animd {
namespace command_pipeline_test {

struct RecordingSink : ResultSink {
  void deliver_result(const ResultHeader& header,
                      const anim::Expected<WorldResult>& result) override {
    std::lock_guard lock(mutex);
    headers.push_back(header);
    statuses.push_back(result ? anim::Status::ok() : result.error());
  }
  std::mutex mutex;
  std::vector<ResultHeader> headers;
  std::vector<anim::Status> statuses;
};

class CommandPipelineTest : public ::testing::Test {
 protected:
  test::FakeSessionHost host_;
  std::shared_ptr<RecordingSink> sink_ = std::make_shared<RecordingSink>();
};

TEST_F(CommandPipelineTest, ARequestReachesTheTickAddressedToItsSender) {
  CommandPipeline pipeline(host_, 7);
  ASSERT_TRUE(pipeline.to_tick(GetStats{}, {3, 42, 99}, sink_));
  EXPECT_EQ(pipeline.pending(), 1u);
  auto commands = host_.take_commands();
  ASSERT_EQ(commands.size(), 1u);
  const Command& c = commands[0];
  EXPECT_EQ(c.kind, Command::Kind::kRequest);
  EXPECT_EQ(c.session_id, 7u);
  EXPECT_EQ(c.seq, 3u);
  EXPECT_EQ(c.request_id, 42u);
  EXPECT_EQ(c.owner, 99u);
  EXPECT_EQ(c.sink.get(), sink_.get());
  EXPECT_TRUE(std::holds_alternative<GetStats>(c.request));
  pipeline.answered();
  EXPECT_EQ(pipeline.pending(), 0u);
  pipeline.answered();  // never below zero
  EXPECT_EQ(pipeline.pending(), 0u);
}

TEST_F(CommandPipelineTest, TheConnectionsShareIsRefusedNamingTheLimit) {
  host_.config_.max_pending_commands_per_connection = 2;
  CommandPipeline pipeline(host_, 1);
  ASSERT_TRUE(pipeline.to_tick(GetStats{}, {0, 1, 0}, sink_));
  EXPECT_FALSE(pipeline.full());
  ASSERT_TRUE(pipeline.to_tick(GetStats{}, {1, 2, 0}, sink_));
  EXPECT_TRUE(pipeline.full());
  const anim::Status refused = pipeline.to_tick(GetStats{}, {2, 3, 0}, sink_);
  EXPECT_EQ(refused.code(), anim::StatusCode::kResourceExhausted);
  EXPECT_NE(refused.message().find("--max-pending-commands-per-connection (2)"), std::string::npos);
  EXPECT_EQ(pipeline.room().code(), anim::StatusCode::kResourceExhausted);
  EXPECT_EQ(host_.take_commands().size(), 2u);
  pipeline.answered();
  EXPECT_TRUE(pipeline.room());
}

TEST_F(CommandPipelineTest, AFullDaemonQueueIsRefusedAndNothingCounts) {
  host_.config_.max_queued_commands = 1;
  CommandPipeline first(host_, 1), second(host_, 2);
  ASSERT_TRUE(first.to_tick(GetStats{}, {0, 1, 0}, sink_));
  const anim::Status refused = second.to_tick(GetStats{}, {0, 1, 0}, sink_);
  EXPECT_EQ(refused.code(), anim::StatusCode::kResourceExhausted);
  EXPECT_NE(refused.message().find("--max-queued-commands 1"), std::string::npos);
  EXPECT_EQ(second.pending(), 0u);
}

TEST_F(CommandPipelineTest, EachOwnerKeyIsToldToTheWorldOnce) {
  CommandPipeline pipeline(host_, 5);
  pipeline.note_owner(11);
  pipeline.note_owner(11);
  ASSERT_TRUE(pipeline.to_tick(GetStats{}, {0, 1, 12}, sink_));
  pipeline.note_owner(12);  // the request told it already
  auto commands = host_.take_commands();
  ASSERT_EQ(commands.size(), 2u);
  EXPECT_EQ(commands[0].owner, 11u);
  EXPECT_EQ(commands[0].session_id, 5u);
  EXPECT_EQ(commands[0].sink, nullptr);  // no reply wanted
  EXPECT_EQ(commands[1].owner, 12u);
  EXPECT_EQ(pipeline.pending(), 1u);  // the notes are not requests in flight
}

TEST_F(CommandPipelineTest, ALoadReachesTheTickAsTheLoadedAsset) {
  animtest::TempDir dir("animd-pipeline");
  std::ofstream(dir.path() / "chain.md5mesh") << animtest::kChainMesh;
  std::ofstream(dir.path() / "walk.md5anim") << animtest::kChainAnim;
  host_.asset_root_ = dir.path();
  CommandPipeline pipeline(host_, 3);
  CommandPipeline::Load load;
  load.request.source = LoadRequest::Source::kPath;
  load.request.path = "chain.md5mesh";
  load.request.shared = true;
  load.origin = {4, 40, 77};
  load.turn_key = 77;
  std::promise<void> finished;
  pipeline.to_loader(std::move(load), sink_, [&] { finished.set_value(); });
  EXPECT_EQ(pipeline.pending(), 1u);
  ASSERT_EQ(finished.get_future().wait_for(std::chrono::seconds(30)), std::future_status::ready);
  auto commands = host_.take_commands();
  ASSERT_EQ(commands.size(), 1u);
  const Command& c = commands[0];
  EXPECT_EQ(c.kind, Command::Kind::kInsertAsset);
  EXPECT_EQ(c.session_id, 3u);
  EXPECT_EQ(c.seq, 4u);
  EXPECT_EQ(c.request_id, 40u);
  EXPECT_EQ(c.owner, 77u);
  EXPECT_TRUE(c.asset_shared);
  ASSERT_NE(c.asset, nullptr);
  EXPECT_EQ(c.asset->name, "chain");
  EXPECT_TRUE(sink_->headers.empty());  // the tick answers it
}

TEST_F(CommandPipelineTest, AFailedLoadIsAnsweredWithItsReasonAndGivesTheUploadBack) {
  host_.config_.max_upload_bytes = 1024;
  CommandPipeline pipeline(host_, 3);
  ByteBudget& inbound = host_.inbound_budget();
  ASSERT_TRUE(inbound.try_acquire(9));
  CommandPipeline::Load load;
  load.request.source = LoadRequest::Source::kBvhData;
  load.request.data = "not a bvh";
  load.request.name = "broken";
  load.origin = {6, 60, 0};
  load.turn_key = 1;
  load.upload_draw = BudgetHold(inbound, 9);
  std::promise<void> finished;
  pipeline.to_loader(std::move(load), sink_, [&] { finished.set_value(); });
  ASSERT_EQ(finished.get_future().wait_for(std::chrono::seconds(30)), std::future_status::ready);
  EXPECT_EQ(inbound.used(), 0u);
  EXPECT_TRUE(host_.take_commands().empty());
  ASSERT_EQ(sink_->headers.size(), 1u);
  EXPECT_EQ(sink_->headers[0].seq, 6u);
  EXPECT_EQ(sink_->headers[0].request_id, 60u);
  EXPECT_FALSE(sink_->statuses[0]);
  ASSERT_EQ(host_.logged.size(), 1u);
  EXPECT_NE(host_.logged[0].find("session 3: load_asset failed"), std::string::npos);
}

}  // namespace command_pipeline_test
}  // namespace animd
