#include "persist/state_file.h"

#include <algorithm>
#include <cstring>

#include "anim/v1/state.pb.h"
#include "protocol/character_state_convert.h"

namespace animd {

namespace {

constexpr char kStateMagic[8] = {'A', 'N', 'I', 'M', 'D', 'C', 'H', 'R'};

template <typename T>
void put_le(std::string& out, T v) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &v, sizeof(T));  // the daemon's hosts are little-endian (x86-64, arm64)
  out.append(bytes, sizeof(T));
}

// Reads the payload front to back; a read past its end fails.
class Reader {
 public:
  explicit Reader(const std::string& s) : s_(s) {}
  template <typename T>
  bool get_le(T& v) {
    if (s_.size() - pos_ < sizeof(T)) return false;
    std::memcpy(&v, s_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return true;
  }
  bool bytes(size_t n, const char** p) {
    if (s_.size() - pos_ < n) return false;
    *p = s_.data() + pos_;
    pos_ += n;
    return true;
  }
  bool done() const { return pos_ == s_.size(); }

 private:
  const std::string& s_;
  size_t pos_ = 0;
};

}  // namespace

std::string encode_state_file(const StateFile& file) {
  std::string out(kStateMagic, sizeof(kStateMagic));
  put_le<uint32_t>(out, file.format);
  put_le<double>(out, file.tick_rate);
  put_le<int64_t>(out, file.tick_epoch);
  put_le<uint64_t>(out, file.tick);
  put_le<uint32_t>(out, file.next_id);
  put_le<uint32_t>(out, static_cast<uint32_t>(file.characters.size()));
  anim::v1::CharacterState proto;
  std::string bytes;
  for (const PersistedCharacter& c : file.characters) {
    proto.Clear();
    to_proto(c.saved, &proto);
    bytes.clear();
    proto.SerializeToString(&bytes);
    put_le<uint32_t>(out, c.id);
    put_le<uint64_t>(out, c.owner);
    put_le<uint32_t>(out, static_cast<uint32_t>(bytes.size()));
    out += bytes;
  }
  return out;
}

anim::Expected<DecodedStateFile> decode_state_file(const std::string& payload,
                                                   const std::string& name) {
  const auto damaged = [&](const std::string& why) {
    return anim::Status(anim::StatusCode::kDataLoss, name + ": " + why);
  };
  if (payload.size() < sizeof(kStateMagic) || std::memcmp(payload.data(), kStateMagic, sizeof(kStateMagic)))
    return damaged("not a characters file (no ANIMDCHR header)");
  Reader r(payload);
  const char* skip = nullptr;
  r.bytes(sizeof(kStateMagic), &skip);
  DecodedStateFile out;
  StateFile& f = out.file;
  uint32_t count = 0;
  if (!r.get_le(f.format)) return damaged("cut short in its header");
  if (f.format == 0 || f.format > kStateFileFormat)
    return anim::Status(anim::StatusCode::kFailedPrecondition,
                        name + ": format " + std::to_string(f.format) +
                            " is not one this daemon reads (1.." +
                            std::to_string(kStateFileFormat) + "; written by a newer animd?)");
  if (!r.get_le(f.tick_rate) || !r.get_le(f.tick_epoch) || !r.get_le(f.tick) || !r.get_le(f.next_id) ||
      !r.get_le(count))
    return damaged("cut short in its header");
  if (!(f.tick_rate > 0.0 && f.tick_rate <= 1e6))
    return damaged("tick rate " + std::to_string(f.tick_rate) + " out of range");
  if (count > kMaxStateFileCharacters)
    return damaged(std::to_string(count) + " characters, more than " +
                   std::to_string(kMaxStateFileCharacters));
  // Each character takes at least 16 bytes: a count the payload cannot hold reserves no more.
  f.characters.reserve(std::min<size_t>(count, payload.size() / 16));
  anim::v1::CharacterState proto;
  for (uint32_t i = 0; i < count; ++i) {
    PersistedCharacter c;
    uint32_t size = 0;
    const char* bytes = nullptr;
    if (!r.get_le(c.id) || !r.get_le(c.owner) || !r.get_le(size) || !r.bytes(size, &bytes))
      return damaged("cut short in character " + std::to_string(i) + " of " +
                     std::to_string(count));
    const std::string field = "character " + std::to_string(c.id);
    proto.Clear();
    if (!proto.ParseFromArray(bytes, static_cast<int>(size))) {
      out.refused.push_back(field + ": not a CharacterState message");
      continue;
    }
    if (auto s = check_character_state_caps(proto); !s) {
      out.refused.push_back(field + ": " + s.message());
      continue;
    }
    auto saved = from_proto(proto, field);
    if (!saved) {
      out.refused.push_back(saved.error().message());
      continue;
    }
    c.saved = std::move(*saved);
    f.characters.push_back(std::move(c));
  }
  if (!r.done()) return damaged("bytes after the last character");
  return out;
}

}  // namespace animd
