#include "frames.h"

#include "anim/v1/envelope.pb.h"

namespace animhostile {

namespace {

std::string frame_of(const anim::v1::Request& request) {
  const std::string body = request.SerializeAsString();
  return frame_header(static_cast<uint32_t>(body.size())) + body;
}

}  // namespace

std::string frame_header(uint32_t length) {
  std::string h(4, '\0');
  for (int i = 0; i < 4; ++i) h[i] = static_cast<char>((length >> (8 * i)) & 0xFF);
  return h;
}

std::string stats_frame(uint64_t request_id) {
  anim::v1::Request r;
  r.set_request_id(request_id);
  r.mutable_stats();
  return frame_of(r);
}

std::string list_characters_frame(uint64_t request_id) {
  anim::v1::Request r;
  r.set_request_id(request_id);
  r.mutable_list_characters();
  return frame_of(r);
}

std::string query_pose_frame(uint64_t request_id, uint32_t character_id) {
  anim::v1::Request r;
  r.set_request_id(request_id);
  r.mutable_query_pose()->set_character_id(character_id);
  return frame_of(r);
}

std::string subscribe_all_frame(uint64_t request_id) {
  anim::v1::Request r;
  r.set_request_id(request_id);
  r.mutable_subscribe()->set_all_characters(true);
  return frame_of(r);
}

std::string upload_frame(uint64_t request_id, const std::string& name, uint32_t glb_bytes) {
  anim::v1::Request r;
  r.set_request_id(request_id);
  auto* load = r.mutable_load_asset();
  load->set_name(name);
  std::string glb(glb_bytes, '\0');
  glb.replace(0, 4, "glTF");
  load->set_glb_data(std::move(glb));
  return frame_of(r);
}

}  // namespace animhostile
