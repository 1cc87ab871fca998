#pragma once
// Every request kind the daemon answers, declared once (command_table.cpp): the role it needs,
// where it is answered, its converter to the World's request and the session's handler for
// it. Admission (required_role), routing (Session::handle) and the protocol reference
// (docs/protocol.md "Commands", checked by a test) all come from this table, and a test walks
// the Request oneof by reflection: a command without an entry fails it.
//
// Adding a command: the .proto field, one entry here, its converter (protocol/), its World
// handler (world/) and its tests.

#include <cstdint>
#include <span>
#include <string_view>

#include "anim/status.h"
#include "anim/v1/envelope.pb.h"
#include "session/auth.h"
#include "world/world_requests.h"

namespace animd {

class Session;

// Where a command is answered.
enum class Route : uint8_t {
  kSession,  // by the session, from what the daemon publishes (the asset catalog)
  kLoader,   // on the loader threads; a loaded asset reaches the World at the next tick
  kHistory,  // by the session, off-tick, from the published pose history
  kTick,     // by the World at the next tick, converted and checked before it is queued
};
const char* route_name(Route route);

struct CommandSpec {
  anim::v1::Request::CommandCase command;
  std::string_view field;  // the Request oneof field ("spawn"), as in the .proto
  Role role;               // the least role allowed to send it
  Route route;
  // The request as the World's (its own values checked: request_convert.h); null when the
  // World never sees it (kSession, kLoader, and history queries without a tick fallback).
  // Every kTick command has one.
  anim::Expected<WorldRequest> (*convert)(const anim::v1::Request&);
  // What the session does with it once admitted (session_dispatch.cpp).
  void (Session::*handle)(anim::v1::Request& request, uint64_t seq);
};

// Every entry, in .proto field order.
std::span<const CommandSpec> command_table();
// The entry for `command`, or null (COMMAND_NOT_SET, or a field this daemon does not know).
const CommandSpec* find_command(anim::v1::Request::CommandCase command);

// The role `request` needs; kControl for a command without an entry (admission refuses such
// a request before asking).
Role required_role(const anim::v1::Request& request);

// The World's request for `request`, or the error to answer it with (nothing changed): every
// repeated field within its cap (request_convert_caps.h), then the entry's converter.
// UNIMPLEMENTED for a command the World does not handle. Subscribe comes back with
// subscription_id 0: the session assigns it.
anim::Expected<WorldRequest> to_world_request(const anim::v1::Request& request);

}  // namespace animd
