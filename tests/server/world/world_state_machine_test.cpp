// The World's state machines (world_state_machine.cpp): each asset's table only grows, names
// are unique, a start-up file's machines go in all or none with errors naming
// state_machines[i], the table carries over to a new version of the asset (attach_to) and
// goes with the asset when it is unloaded.
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "anim/loaders/builtin_character.h"
#include "protocol/reply_sink.h"
#include "world/world.h"

namespace animd {
namespace world_state_machine_test {

class Sink : public ReplySink {
 public:
  void deliver(uint64_t, anim::v1::Reply reply, size_t) override {
    replies.push_back(std::move(reply));
  }
  std::vector<anim::v1::Reply> replies;
};

anim::StateMachineDesc machine(const std::string& name, const std::string& motion = "walk") {
  anim::StateMachineDesc d;
  d.name = name;
  d.states.resize(2);
  d.states[0].name = "idle";
  d.states[0].motion = "idle";
  d.states[1].name = "move";
  d.states[1].motion = motion;
  anim::TransitionDesc t;
  t.from = "idle";
  t.to = "move";
  t.conditions.push_back(anim::ConditionDesc{"speed", anim::ConditionOp::kGreater, 0.5f});
  d.transitions.push_back(t);
  return d;
}

class WorldStateMachines : public ::testing::Test {
 protected:
  WorldStateMachines() {
    world_ = std::make_unique<World>(config_, metrics_, catalog_, pool_);
    EXPECT_TRUE(world_->add_asset(builtin("builtin")));
  }
  static std::shared_ptr<anim::Asset> builtin(const std::string& name) {
    auto a = std::make_shared<anim::Asset>(anim::make_builtin_character());
    a->name = name;
    return a;
  }
  anim::Expected<WorldResult> run(const WorldRequest& r) {
    return world_->execute(r, Caller{1, 0}, ++tick_, 0.0);
  }
  uint32_t spawn(const std::string& asset) {
    auto s = run(SpawnCharacter{asset, "walk", {}, false});
    EXPECT_TRUE(s) << s.error().message();
    return s ? std::get<Spawned>(*s).character_id : 0;
  }
  anim::Status start(uint32_t id, const std::string& name) {
    auto r = run(StartStateMachine{id, name, ""});
    return r ? anim::Status() : r.error();
  }
  std::string running(uint32_t id) {
    auto r = run(GetMachineState{id});
    EXPECT_TRUE(r) << r.error().message();
    if (!r) return "?";
    const auto& a = std::get<MachineStateAnswer>(*r);
    return a.machine ? a.machine->name : "";
  }

  Config config_;
  Metrics metrics_;
  AssetCatalog catalog_;
  WorkerPool pool_{1};
  std::unique_ptr<World> world_;
  uint64_t tick_ = 0;
};

TEST_F(WorldStateMachines, NamesAreUniqueAndARefusalDefinesNothing) {
  ASSERT_TRUE(run(DefineStateMachine{"builtin", machine("loco")}));
  const auto again = run(DefineStateMachine{"builtin", machine("loco", "run")});
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code(), anim::StatusCode::kFailedPrecondition);
  EXPECT_EQ(again.error().message(),
            "define_state_machine.machine.name: asset 'builtin' already has a state machine "
            "named 'loco' (definitions are immutable: choose another name)");
  const auto bad = run(DefineStateMachine{"builtin", machine("other", "moonwalk")});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code(), anim::StatusCode::kNotFound);
  EXPECT_EQ(bad.error().message(),
            "define_state_machine.machine.states[1].motion: the asset has no clip or blend "
            "space named 'moonwalk'");
  const uint32_t id = spawn("builtin");
  EXPECT_EQ(start(id, "other").code(), anim::StatusCode::kNotFound);
  EXPECT_EQ(running(id), "");
  EXPECT_TRUE(start(id, "loco"));
  EXPECT_EQ(running(id), "loco");
}

TEST_F(WorldStateMachines, AnAssetHoldsAtMostItsLimit) {
  for (int i = 0; i < anim::kMaxStateMachinesPerAsset; ++i)
    ASSERT_TRUE(run(DefineStateMachine{"builtin", machine("m" + std::to_string(i))}));
  const auto over = run(DefineStateMachine{"builtin", machine("one_more")});
  ASSERT_FALSE(over);
  EXPECT_EQ(over.error().code(), anim::StatusCode::kResourceExhausted);
  EXPECT_EQ(over.error().message(),
            "define_state_machine.machine: asset 'builtin' has 64 state machines, the most it "
            "may have");
}

TEST_F(WorldStateMachines, AFilesMachinesGoInAllOrNone) {
  const auto s = world_->add_state_machines("builtin", {machine("a"), machine("b", "fly")});
  ASSERT_FALSE(s);
  EXPECT_EQ(s.message(),
            "state_machines[1].states[1].motion: the asset has no clip or blend space named "
            "'fly'");
  const auto twice = world_->add_state_machines("builtin", {machine("a"), machine("a")});
  ASSERT_FALSE(twice);
  EXPECT_EQ(twice.message(), "state_machines[1].name: state_machines[0] is named 'a' too");
  const uint32_t id = spawn("builtin");
  EXPECT_EQ(start(id, "a").code(), anim::StatusCode::kNotFound);
  ASSERT_TRUE(world_->add_state_machines("builtin", {machine("a"), machine("b")}));
  EXPECT_TRUE(start(id, "b"));
  EXPECT_EQ(world_->add_state_machines("nobody", {machine("a")}).code(),
            anim::StatusCode::kNotFound);
}

TEST_F(WorldStateMachines, MachinesCarryOverToANewVersionAndGoWithTheAsset) {
  ASSERT_TRUE(run(DefineStateMachine{"builtin", machine("loco")}));
  // A new version (attach_to's last step): the machines are still the asset's.
  const AssetPtr old = catalog_.get()->at("builtin");
  auto next = std::make_shared<anim::Asset>(*old);
  next->clips.push_back(old->clips[0]);
  next->clips.back().name = "mocap";
  auto sink = std::make_shared<Sink>();
  std::vector<Command> batch(1);
  batch[0].kind = Command::Kind::kReplaceAsset;
  batch[0].sink = sink;
  batch[0].asset = next;
  batch[0].replaces = old;
  world_->apply(batch, ++tick_, 0.0);
  ASSERT_EQ(sink->replies.size(), 1u);
  ASSERT_EQ(sink->replies[0].status().code(), anim::v1::STATUS_OK);
  EXPECT_EQ(run(DefineStateMachine{"builtin", machine("loco")}).error().code(),
            anim::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(start(spawn("builtin"), "loco"));

  // Unloaded and loaded again: none.
  ASSERT_TRUE(world_->add_asset(builtin("spare")));
  ASSERT_TRUE(run(DefineStateMachine{"spare", machine("loco")}));
  ASSERT_TRUE(run(UnloadAsset{"spare"}));
  ASSERT_TRUE(world_->add_asset(builtin("spare")));
  EXPECT_EQ(start(spawn("spare"), "loco").code(), anim::StatusCode::kNotFound);
}

}  // namespace world_state_machine_test
}  // namespace animd
