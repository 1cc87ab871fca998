#pragma once
// A character's saved state (state.proto, CharacterState) <-> the World's SavedCharacter, and
// the converters of export_characters and import_characters.
//
// To the wire every value goes as it is (floats bit for bit, indices as numbers, the
// definitions a state names by name and fingerprint). From the wire only the form is checked
// here: the version (0: INVALID_ARGUMENT; newer than this daemon's: FAILED_PRECONDITION), every
// enum value known, every index and count fitting its type, a held pose of 10 floats per
// joint, blend weights of at most 3 samples; what the values mean (ranges, finiteness, indices
// against the asset) is restore_state's to check, in the World, with the asset at hand.
// Repeated fields are within their caps before any of this runs (request_convert_caps.h:
// check_character_state_caps).

#include <string>

#include "anim/status.h"
#include "anim/v1/state.pb.h"
#include "world/world_requests.h"

namespace animd {

void to_proto(const SavedCharacter& saved, anim::v1::CharacterState* out);
// `field` names the state in errors ("import_characters.states[2]").
anim::Expected<SavedCharacter> from_proto(const anim::v1::CharacterState& state,
                                          const std::string& field);

// Every repeated field of `state` within its cap (request_convert_caps.h); the first one over
// refused as check_cap does.
anim::Status check_character_state_caps(const anim::v1::CharacterState& state);

// The converters (command_table.cpp): ids distinct; every state converted.
anim::Expected<WorldRequest> export_characters_request(const anim::v1::ExportCharactersRequest& r);
anim::Expected<WorldRequest> import_characters_request(const anim::v1::ImportCharactersRequest& r);

}  // namespace animd
