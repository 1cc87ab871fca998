#include "snapshot.h"

#include <algorithm>

namespace animd {

const SnapshotCharacter* Snapshot::find(uint32_t id) const {
  auto it = std::lower_bound(characters.begin(), characters.end(), id,
                             [](const SnapshotCharacter& c, uint32_t v) { return c.id < v; });
  return it != characters.end() && it->id == id ? &*it : nullptr;
}

}  // namespace animd
