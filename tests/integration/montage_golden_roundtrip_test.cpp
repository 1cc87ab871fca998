// Montages driven through the real daemon against three.js (../shared/golden/Fox.montage.json):
// each scenario's base play, play_montage and stop_montage are scheduled (Request.at_tick) for
// the ticks at which the golden's times fall, and the palette query_pose answers for each
// sample's tick must match the golden within 1e-4.
#include <cmath>
#include <fstream>
#include <future>
#include <map>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "integration_support.h"
#include "send_async.h"
#include "shared_assets.h"

namespace animtest {
namespace montage_golden_roundtrip_test {

using anim::v1::Request;

// Ticks from seconds at 60 Hz (the golden's times are whole ticks).
uint64_t ticks(double seconds) {
  return static_cast<uint64_t>(std::llround(seconds * 60.0));
}

// Largest difference between a wire palette (12 floats a joint, the top three rows of each
// matrix, row-major, in the asset's joint order) and a golden one (16 floats a joint,
// column-major, in the golden's joint order; `order` maps the latter to the former).
float palette_error(const anim::v1::QueryPoseReply& pose, const nlohmann::json& golden,
                    const std::vector<int>& order) {
  float worst = 0.0f;
  for (size_t g = 0; g < golden.size(); ++g) {
    const int j = order[g];
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 4; ++c) {
        const float ours = pose.palette(j * 12 + r * 4 + c);
        const float want = golden[g][c * 4 + r].get<float>();
        worst = std::max(worst, std::abs(ours - want));
      }
  }
  return worst;
}

TEST(MontageGolden, FoxMontagesDrivenThroughTheDaemonMatchThreeJs) {
  ANIMD_REQUIRE_SHARED();
  std::ifstream in(shared_path("golden/Fox.montage.json"));
  ASSERT_TRUE(in) << "cannot open Fox.montage.json";
  const nlohmann::json doc = nlohmann::json::parse(in);
  DaemonProcess daemon({"--assets", shared_path("assets/Fox/glTF-Binary"), "--history-seconds",
                        "10", "--max-schedule-ahead-ticks", "600"});
  ANIMD_START(daemon);
  auto client = connect_client(daemon);
  ASSERT_TRUE(client);
  auto data = client->get_asset_data("Fox", true);
  ASSERT_TRUE(data) << data.error().to_string();
  std::map<std::string, int> index;
  for (int j = 0; j < data->skeleton().joint_names_size(); ++j)
    index[data->skeleton().joint_names(j)] = j;

  for (const auto& sc : doc["scenarios"]) {
    const std::string name = sc["name"];
    std::vector<int> order;
    for (const auto& joint : sc["joints"]) {
      ASSERT_TRUE(index.contains(joint.get<std::string>())) << name << ": " << joint;
      order.push_back(index[joint.get<std::string>()]);
    }
    Request spawn;
    spawn.mutable_spawn()->set_asset("Fox");
    const uint32_t id = call_ok(*client, spawn).spawn().character_id();
    Request slot_req;
    auto* slot = slot_req.mutable_add_layer();
    slot->set_character_id(id);
    slot->set_blend(anim::v1::LAYER_BLEND_OVERRIDE);
    slot->mutable_mask()->set_blend_root(sc["mask_root"].get<std::string>());
    const uint32_t slot_id = call_ok(*client, slot_req).add_layer().layer_id();

    // The base starts at tick `base` (time dt after that tick's update); a command at tick T
    // sees the base at (T - base) / 60 s, and a sample at t s is the pose of tick base - 1 +
    // 60 t.
    const uint64_t base = current_tick(*client) + 90;
    Request play;
    play.set_at_tick(base);
    play.mutable_play()->set_character_id(id);
    play.mutable_play()->set_clip(sc["base"].get<std::string>());
    Request montage;
    montage.set_at_tick(base + ticks(sc["at"].get<double>()));
    auto* m = montage.mutable_play_montage();
    m->set_character_id(id);
    m->set_slot(slot_id);
    m->set_clip(sc["montage"].get<std::string>());
    m->set_rate(sc["rate"].get<float>());
    m->set_blend_in(sc["blend_in"].get<float>());
    m->set_blend_out(sc["blend_out"].get<float>());
    std::vector<std::pair<uint64_t, std::future<anim::v1::Reply>>> sent;
    sent.emplace_back(play.at_tick(), send_async(*client, play));
    sent.emplace_back(montage.at_tick(), send_async(*client, montage));
    if (sc.contains("stop_at")) {
      Request stop;
      stop.set_at_tick(base + ticks(sc["stop_at"].get<double>()));
      stop.mutable_stop_montage()->set_character_id(id);
      stop.mutable_stop_montage()->set_slot(slot_id);
      stop.mutable_stop_montage()->set_blend_out(sc["stop_blend_out"].get<float>());
      sent.emplace_back(stop.at_tick(), send_async(*client, stop));
    }
    for (auto& [tick, reply] : sent) {
      const auto r = reply.get();
      EXPECT_EQ(r.status().code(), anim::v1::STATUS_OK) << name << ": " << r.status().message();
      EXPECT_EQ(r.tick(), tick) << name;
    }
    const uint64_t last = base - 1 + ticks(sc["samples"].back()["t"].get<double>());
    while (current_tick(*client) <= last)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    float worst = 0.0f;
    for (const auto& sample : sc["samples"]) {
      const double t = sample["t"].get<double>();
      Request q;
      q.mutable_query_pose()->set_character_id(id);
      q.mutable_query_pose()->set_tick(base - 1 + ticks(t));
      const auto pose = call_ok(*client, q).query_pose();
      ASSERT_EQ(pose.palette_size(), 12 * data->skeleton().joint_names_size()) << name;
      const float err = palette_error(pose, sample["palette"], order);
      EXPECT_LT(err, 1e-4f) << name << " at t = " << t;
      worst = std::max(worst, err);
    }
    std::printf("[ golden   ] %-62s max palette error %.3g\n", name.c_str(), worst);
  }
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

}  // namespace montage_golden_roundtrip_test
}  // namespace animtest
