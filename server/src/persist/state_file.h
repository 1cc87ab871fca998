#pragma once
// The characters file of --state-dir (`characters.state`): the payload of a durable file
// (base/durable_file.h adds length and CRC-32), little-endian:
//
//   "ANIMDCHR"                      8 bytes, what the file is
//   format          uint32          kStateFileFormat of the daemon that wrote it
//   tick_rate       float64         the writer's --tick-rate
//   tick_epoch      int64           the writer's --tick-epoch (tick T: epoch + T / rate)
//   tick            uint64          the tick the save was made at
//   next_id         uint32          the writer's next character id
//   count           uint32          characters that follow, each:
//     id            uint32
//     owner         uint64          its owner key (0: shared)
//     bytes         uint32          then an anim.v1.CharacterState of that many bytes
//
// A file of a greater format is refused whole (FAILED_PRECONDITION), as is one whose framing
// does not add up (DATA_LOSS). A character whose CharacterState does not convert (a newer
// state version, a value out of form) is refused alone: decode lists it and goes on.

#include <cstdint>
#include <string>
#include <vector>

#include "anim/status.h"
#include "world/persisted_character.h"

namespace animd {

inline constexpr uint32_t kStateFileFormat = 1;
// Characters in one file, at most (--max-characters is at most this).
inline constexpr uint32_t kMaxStateFileCharacters = 1u << 20;

struct StateFile {
  uint32_t format = kStateFileFormat;
  double tick_rate = 60.0;
  int64_t tick_epoch = 0;
  uint64_t tick = 0;
  uint32_t next_id = 1;
  std::vector<PersistedCharacter> characters;
};

std::string encode_state_file(const StateFile& file);

// What decode_state_file read: the file, and one line per character refused.
struct DecodedStateFile {
  StateFile file;
  std::vector<std::string> refused;
};
// `name` names the file in errors ("/var/lib/animd/characters.state").
anim::Expected<DecodedStateFile> decode_state_file(const std::string& payload,
                                                   const std::string& name);

}  // namespace animd
