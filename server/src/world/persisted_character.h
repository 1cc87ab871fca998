#pragma once
// A character as the daemon's saved state (--state-dir) keeps it: its id and owner key
// beside its SavedCharacter, so that a restart gives it back under the same id to the same
// owner. docs/operations.md, "Saved state".

#include <cstdint>
#include <string>
#include <vector>

#include "world/saved_character.h"

namespace animd {

struct PersistedCharacter {
  uint32_t id = 0;     // > 0, its id in the World it was captured from
  uint64_t owner = 0;  // Character::owner where captured (0: shared)
  // SavedCharacter::tick is the tick whose update the state starts from.
  SavedCharacter saved;
};

// What World::restore_characters did.
struct RestoreOutcome {
  size_t restored = 0;
  // One line per character not restored, naming it and why ("character 7: ...").
  std::vector<std::string> refused;
  uint64_t max_caught_up_ticks = 0;  // the most updates one character was stepped through
  size_t behind = 0;                 // characters whose state was older than the catch-up bound
};

}  // namespace animd
