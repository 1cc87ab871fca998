#pragma once
// The bytes animhostile sends: protocol frames (4-byte little-endian length + a serialized
// anim.v1.Request) for the requests the hostile kinds abuse, and raw headers.

#include <cstdint>
#include <string>

namespace animhostile {

// The 4-byte little-endian length header.
std::string frame_header(uint32_t length);

// Whole frames (header + body). `request_id` is echoed by the server; the hostile side never
// matches replies, so any value works.
std::string stats_frame(uint64_t request_id);
std::string list_characters_frame(uint64_t request_id);
std::string query_pose_frame(uint64_t request_id, uint32_t character_id);
std::string subscribe_all_frame(uint64_t request_id);
// A load_asset upload named `name` whose glb_data is `glb_bytes` bytes: the glTF magic then
// zeros (the daemon buffers and parses it, and answers with a loader error).
std::string upload_frame(uint64_t request_id, const std::string& name, uint32_t glb_bytes);

}  // namespace animhostile
