// glTF: animation events from the animations' extras (gltf_internal.h, docs/loader-gltf.md).
#include <cmath>
#include <string>

#include "gltf_internal.h"

namespace anim::gltf {

void load_clip_events(const Context& ctx, std::vector<Clip>* clips) {
  const tinygltf::Model& m = ctx.model;
  for (size_t a = 0; a < m.animations.size() && a < clips->size(); ++a) {
    const tinygltf::Value& extras = m.animations[a].extras;
    if (!extras.IsObject() || !extras.Has("events")) continue;
    Clip& clip = (*clips)[a];
    const std::string label =
        "animation " + std::to_string(a) + " '" + clip.name + "': extras.events";
    const tinygltf::Value& list = extras.Get("events");
    if (!list.IsArray()) {
      ctx.warn(label + " is not an array; ignored");
      continue;
    }
    for (size_t i = 0; i < list.ArrayLen(); ++i) {
      const std::string what = label + "[" + std::to_string(i) + "]";
      if (clip.events.size() == static_cast<size_t>(kMaxEventsPerClip)) {
        ctx.warn(label + ": more than " + std::to_string(kMaxEventsPerClip) +
                 " events; the rest ignored");
        break;
      }
      const tinygltf::Value& e = list.Get(static_cast<int>(i));
      if (!e.IsObject()) {
        ctx.warn(what + " is not an object; ignored");
        continue;
      }
      const tinygltf::Value& name = e.Get("name");
      const tinygltf::Value& time = e.Get("time");
      const tinygltf::Value& payload = e.Get("payload");
      if (!name.IsString() || !time.IsNumber() || (e.Has("payload") && !payload.IsString())) {
        ctx.warn(what +
                 ": needs \"name\" (string), \"time\" (number) and an optional "
                 "\"payload\" (string); ignored");
        continue;
      }
      ClipEvent event;
      event.name = name.Get<std::string>();
      const double t = time.GetNumberAsDouble();
      event.time = std::isfinite(t) ? static_cast<float>(t) : std::nanf("");
      if (payload.IsString()) event.payload = payload.Get<std::string>();
      if (Status s = check_event(event, clip, what); !s) {
        ctx.warn(s.message() + "; ignored");
        continue;
      }
      clip.events.push_back(std::move(event));
    }
    sort_events(clip.events);
  }
}

}  // namespace anim::gltf
