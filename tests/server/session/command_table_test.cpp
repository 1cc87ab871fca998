// The command table (session/command_table.h): every field of the Request oneof, found by
// protobuf reflection, has exactly one entry under its own name; the entries keep the routing
// rules (a tick command has a converter, a session or loader one has none); every converter
// handles its own command; roles are what clients were promised; and docs/protocol.md's
// "Commands" table shows the same roles and routes.
#include "session/command_table.h"

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <utility>

#include <gtest/gtest.h>

namespace animd {
namespace command_table_test {

using anim::v1::Request;

const google::protobuf::OneofDescriptor* command_oneof() {
  return Request::descriptor()->FindOneofByName("command");
}

// A request with `field` set to its empty message.
Request with_command(const google::protobuf::FieldDescriptor* field) {
  Request r;
  r.GetReflection()->MutableMessage(&r, field);
  return r;
}

TEST(CommandTable, EveryRequestCommandHasExactlyOneEntry) {
  const auto* oneof = command_oneof();
  ASSERT_NE(oneof, nullptr);
  std::set<int> numbers;
  for (int i = 0; i < oneof->field_count(); ++i) {
    const auto* field = oneof->field(i);
    SCOPED_TRACE(field->name());
    int entries = 0;
    for (const CommandSpec& spec : command_table())
      if (static_cast<int>(spec.command) == field->number()) {
        ++entries;
        EXPECT_EQ(spec.field, field->name());
      }
    EXPECT_EQ(entries, 1) << "add the command to session/command_table.cpp";
    const CommandSpec* found = find_command(with_command(field).command_case());
    ASSERT_NE(found, nullptr);
    EXPECT_EQ(static_cast<int>(found->command), field->number());
    numbers.insert(field->number());
  }
  // No entry for a command the .proto does not have.
  EXPECT_EQ(command_table().size(), static_cast<size_t>(oneof->field_count()));
  for (const CommandSpec& spec : command_table())
    EXPECT_TRUE(numbers.count(static_cast<int>(spec.command))) << spec.field;
  EXPECT_EQ(find_command(Request::COMMAND_NOT_SET), nullptr);
}

TEST(CommandTable, EntriesKeepTheRoutingRules) {
  for (const CommandSpec& spec : command_table()) {
    SCOPED_TRACE(std::string(spec.field));
    EXPECT_NE(spec.handle, nullptr);
    EXPECT_TRUE(spec.role == Role::kObserve || spec.role == Role::kControl);
    switch (spec.route) {
      case Route::kTick:
        EXPECT_NE(spec.convert, nullptr) << "the World only takes converted requests";
        break;
      case Route::kSession:
      case Route::kLoader:
        EXPECT_EQ(spec.convert, nullptr) << "the World never sees it";
        break;
      case Route::kHistory:
        break;
    }
  }
}

// Each converter handles its own command: an empty request of it is converted or refused for
// its values, never UNIMPLEMENTED (which would mean it reached the wrong converter).
TEST(CommandTable, EveryConverterTakesItsOwnCommand) {
  for (const CommandSpec& spec : command_table()) {
    SCOPED_TRACE(std::string(spec.field));
    const Request r = with_command(Request::descriptor()->FindFieldByNumber(spec.command));
    const auto converted = to_world_request(r);
    if (!spec.convert) {
      ASSERT_FALSE(converted);
      EXPECT_EQ(converted.error().code(), anim::StatusCode::kUnimplemented);
      continue;
    }
    if (!converted) {
      EXPECT_NE(converted.error().code(), anim::StatusCode::kUnimplemented);
    }
  }
  Request empty;
  EXPECT_EQ(to_world_request(empty).error().code(), anim::StatusCode::kUnimplemented);
}

TEST(CommandTable, RolesAreThePromisedOnes) {
  // What may be done with an observe token: read the world, stream it, query it.
  const std::set<std::string> observe = {
      "list_assets",     "get_asset_data", "list_characters",     "stats",   "query_pose",
      "subscribe",       "unsubscribe",    "update_subscription", "raycast", "overlap_sphere",
      "get_hit_volumes", "get_state",      "export_characters"};
  for (const CommandSpec& spec : command_table()) {
    SCOPED_TRACE(std::string(spec.field));
    const Role want = observe.count(std::string(spec.field)) ? Role::kObserve : Role::kControl;
    EXPECT_EQ(spec.role, want);
    const Request r = with_command(Request::descriptor()->FindFieldByNumber(spec.command));
    EXPECT_EQ(required_role(r), want);
  }
  EXPECT_EQ(required_role(Request()), Role::kControl);
  EXPECT_STREQ(route_name(Route::kHistory), "history");
}

// docs/protocol.md, "Commands": one row per command with its role and route, as in the table.
TEST(CommandTable, TheProtocolReferenceShowsTheSameRolesAndRoutes) {
  const std::string path = std::string(ANIMD_SOURCE_DIR) + "/docs/protocol.md";
  std::ifstream in(path);
  ASSERT_TRUE(in) << path;
  const std::regex row(R"(^\| `(\w+)` \| (\w+) \| (\w+) \|)");
  std::map<std::string, std::pair<std::string, std::string>> documented;
  bool in_commands = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("## ", 0) == 0) in_commands = line == "## Commands";
    std::smatch m;
    if (in_commands && std::regex_search(line, m, row)) {
      EXPECT_TRUE(documented.emplace(m[1], std::make_pair(m[2], m[3])).second)
          << m[1] << " has two rows";
    }
  }
  for (const CommandSpec& spec : command_table()) {
    const std::string field(spec.field);
    SCOPED_TRACE(field);
    auto it = documented.find(field);
    ASSERT_NE(it, documented.end()) << "no row in docs/protocol.md \"Commands\"";
    EXPECT_EQ(it->second.first, role_name(spec.role));
    EXPECT_EQ(it->second.second, route_name(spec.route));
    documented.erase(it);
  }
  for (const auto& [field, unused] : documented) ADD_FAILURE() << field << ": a row for no command";
}

}  // namespace command_table_test
}  // namespace animd
