#pragma once
// Files that survive a crash at any instant: a write lands whole or not at all, and a file
// that was cut short or damaged is recognised on reading, never taken for a good one.
//
// A durable file is a header (magic "ANIMDUR1", the payload's length as 8 bytes and its CRC-32
// as 4 bytes, little-endian) followed by the payload. write_durable writes it beside the target
// (`<path>.tmp`), fsyncs it, renames it over the target and fsyncs the directory, so that after
// a crash or power cut the target holds either the previous content or the new one.

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "anim/status.h"

namespace animd {

// Writes `payload` to `path` durably (see above). On error (naming the path and the system
// call) the previous content of `path` is untouched and the temporary file is removed.
anim::Status write_durable(const std::filesystem::path& path, std::string_view payload);

// Reads the payload of a durable file. NOT_FOUND when there is no file; DATA_LOSS (the file is
// not one, was cut short or its checksum differs) or RESOURCE_EXHAUSTED (payload larger than
// `max_bytes`) with a message naming the path and what is wrong.
anim::Expected<std::string> read_durable(const std::filesystem::path& path, uint64_t max_bytes);

// Moves a file that could not be used out of the way, to `<path>.bad-<unix seconds>` (a number
// appended when that exists), and returns the new path; empty when the rename failed.
std::filesystem::path set_aside(const std::filesystem::path& path);

}  // namespace animd
