// A minimal game-server loop on animd: spawns characters, drives them (walks them along +Z,
// crossfades half of them to "run") and queries poses, a few server steps long; then despawns
// them. Links libanimclient (the connection) and libanimloaders (the built-in skeleton, so that
// joints are named from the same definition the daemon uses).
//
//   game_server [--host 127.0.0.1] [--port 7450] [--characters 4] [--steps 5]
// Exit 0 when every request succeeded; 1 with the failing request on stderr otherwise.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "anim/loaders/builtin_character.h"
#include "animclient/client.h"

namespace {

struct Options {
  std::string host = "127.0.0.1";
  uint16_t port = 7450;
  int characters = 4;
  int steps = 5;
};

bool parse(int argc, char** argv, Options& o) {
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string_view flag = argv[i];
    const char* value = argv[i + 1];
    if (flag == "--host") {
      o.host = value;
    } else if (flag == "--port") {
      const int port = std::atoi(value);
      if (port < 1 || port > 65535) return false;
      o.port = static_cast<uint16_t>(port);
    } else if (flag == "--characters") {
      o.characters = std::atoi(value);
    } else if (flag == "--steps") {
      o.steps = std::atoi(value);
    } else {
      return false;
    }
  }
  return argc % 2 == 1 && o.characters > 0 && o.steps > 0;
}

template <typename T>
bool ok(const animclient::Result<T>& r, const char* what) {
  if (!r) std::fprintf(stderr, "%s failed: %s\n", what, r.error().to_string().c_str());
  return r.ok();
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!parse(argc, argv, o)) {
    std::fprintf(stderr, "usage: game_server [--host H] [--port P] [--characters N] [--steps S]\n");
    return 2;
  }
  // The daemon's built-in character is this skeleton: ask for joints by its names.
  const anim::Asset builtin = anim::make_builtin_character();
  const std::string head = builtin.skeleton.names.at(5);  // "head"
  std::printf("local skeleton: %d joints, querying '%s'\n", builtin.skeleton.num_joints(),
              head.c_str());

  animclient::ClientOptions options;
  options.host = o.host;
  options.port = o.port;
  auto connected = animclient::Client::connect(options);
  if (!ok(connected, "connect")) return 1;
  animclient::Client& client = **connected;

  std::vector<uint32_t> ids;
  for (int i = 0; i < o.characters; ++i) {
    anim::v1::SpawnRequest spawn;
    spawn.set_asset("builtin");
    spawn.set_clip("walk");
    spawn.mutable_root()->mutable_translation()->set_x(2.0f * static_cast<float>(i));
    auto r = client.spawn(spawn);
    if (!ok(r, "spawn")) return 1;
    ids.push_back(r->character_id());
  }
  std::printf("spawned %zu characters\n", ids.size());
  for (size_t i = 1; i < ids.size(); i += 2) {
    if (!ok(client.crossfade(ids[i], "run", 0.25f), "crossfade")) return 1;
  }

  for (int step = 0; step < o.steps; ++step) {
    // A game server's own tick: move every character forward, then read back where the
    // daemon has its head (world space, so the root placement is included).
    for (size_t i = 0; i < ids.size(); ++i) {
      anim::v1::SetRootTransformRequest root;
      root.set_character_id(ids[i]);
      root.mutable_root()->mutable_translation()->set_x(2.0f * static_cast<float>(i));
      root.mutable_root()->mutable_translation()->set_z(0.5f * static_cast<float>(step + 1));
      if (!ok(client.set_root(root), "set_root")) return 1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    for (uint32_t id : ids) {
      anim::v1::QueryPoseRequest query;
      query.set_character_id(id);
      query.add_joint_names(head);
      query.set_space(anim::v1::SPACE_WORLD);
      auto pose = client.query_pose(query);
      if (!ok(pose, "query_pose")) return 1;
      if (pose->joints_size() != 1 || pose->joints(0).name() != head) {
        std::fprintf(stderr, "query_pose: expected joint '%s' only\n", head.c_str());
        return 1;
      }
      const auto& p = pose->joints(0).position();
      std::printf("step %d character %u tick %llu %s at (%.2f, %.2f, %.2f)\n", step, id,
                  static_cast<unsigned long long>(pose->tick()), head.c_str(), p.x(), p.y(), p.z());
    }
  }

  auto listed = client.list_characters();
  if (!ok(listed, "list_characters")) return 1;
  std::printf("daemon lists %d characters\n", listed->characters_size());
  for (uint32_t id : ids) {
    if (!ok(client.despawn(id), "despawn")) return 1;
  }
  std::printf("despawned %zu characters\n", ids.size());
  return 0;
}
