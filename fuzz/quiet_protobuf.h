#pragma once
// Fuzz targets that parse Requests: protobuf logs every string field with invalid UTF-8 to
// stderr, which mutated inputs produce hundreds of times a second. The daemon routes those
// lines through its rate-limited log (server.cpp); here they are expected and only slow the
// run down, so they are dropped.
#include <google/protobuf/stubs/logging.h>

inline void quiet_protobuf_logs() {
  google::protobuf::SetLogHandler(
      [](google::protobuf::LogLevel, const char*, int, const std::string&) {});
}
