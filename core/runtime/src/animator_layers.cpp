// Animator: additive layers (commands and the per-update application).
#include <algorithm>
#include <cmath>
#include <string>

#include "anim/animator.h"

#include "anim/blend.h"
#include "anim/clip_time.h"
#include "anim/sampling_job.h"

namespace anim {

namespace {

std::string num(float v) {
  return std::to_string(v);
}

bool in_unit_range(float v) {
  return std::isfinite(v) && v >= 0.0f && v <= 1.0f;
}

Status check_update(const std::string& who, const AdditiveLayerUpdate& u) {
  if (!in_unit_range(u.weight))
    return invalid_argument(who + ": weight " + num(u.weight) + " is outside [0, 1]");
  if (!std::isfinite(u.speed))
    return invalid_argument(who + ": speed " + num(u.speed) + " is not finite");
  if (!in_unit_range(u.parameter))
    return invalid_argument(who + ": parameter " + num(u.parameter) + " is outside [0, 1]");
  return Status::ok();
}

}  // namespace

Status Animator::check_mask(const std::string& who, const JointMask& mask) const {
  if (mask.empty()) return Status::ok();
  const int n = skeleton_->num_joints();
  if (static_cast<int>(mask.weights.size()) != n)
    return invalid_argument(who + ": mask has " + std::to_string(mask.weights.size()) +
                            " weights, the skeleton has " + std::to_string(n) + " joints");
  for (int j = 0; j < n; ++j)
    if (!in_unit_range(mask.weights[j]))
      return invalid_argument(who + ": mask weight " + num(mask.weights[j]) + " of joint '" +
                              skeleton_->names[j] + "' is outside [0, 1]");
  return Status::ok();
}

Expected<int> Animator::add_slot(const AdditiveLayerDesc& desc) {
  const std::string who = "add_layer (montage slot)";
  if (desc.time_source != LayerTimeSource::kOwnClock)
    return invalid_argument(who +
                            ": a slot takes its time from its montages; its time source "
                            "must be the own clock");
  if (Status s = check_update(who, {desc.weight, desc.speed, desc.parameter}); !s) return s;
  if (Status s = check_mask(who, desc.mask); !s) return s;
  if (static_cast<int>(layers_.size()) >= kMaxLayers)
    return Status(StatusCode::kResourceExhausted,
                  who + ": the character already has " + std::to_string(kMaxLayers) + " layers");
  Layer layer;
  layer.weight = desc.weight;
  layer.speed = desc.speed;
  layer.loop = false;
  layer.slot = true;
  auto made = std::make_shared<LayerSetup>();
  made->blend = LayerBlend::kOverride;
  made->mask = desc.mask;
  if (Status s = morph_layer_setup(who, desc.morph_targets, -1, 0.0f, *made); !s) return s;
  made->morph_targets = desc.morph_targets;
  return append_layer(std::move(layer), std::move(made));
}

int Animator::append_layer(Layer layer, std::shared_ptr<const LayerSetup> setup) {
  layer.id = next_layer_id_++;
  PoseSetup next = copy_setup();
  next.layers.push_back(std::move(setup));
  // Room for every layer from the first on: the inputs of an update point at the layers'
  // sampling cursors, which must not move when a layer is added.
  if (layers_.capacity() < static_cast<size_t>(kMaxLayers)) layers_.reserve(kMaxLayers);
  layer_inputs_.make();
  if (layer.slot) fired_.make();  // its montages report their lifecycle
  layers_.push_back(std::move(layer));
  replace_setup(std::move(next));
  return layers_.back().id;
}

std::vector<Animator::Layer>::iterator Animator::find_layer(int layer_id) {
  return std::find_if(layers_.begin(), layers_.end(),
                      [&](const Layer& l) { return l.id == layer_id; });
}

Expected<int> Animator::add_layer(const AdditiveLayerDesc& desc) {
  if (desc.clip == -1 && desc.blend == LayerBlend::kOverride) return add_slot(desc);
  if (Status s = check_clip(desc.clip, "add_layer:"); !s) return s;
  const Clip& clip = clips_[desc.clip];
  const std::string who = "add_layer '" + clip.name + "'";
  const int ref_index = desc.reference_clip < 0 ? desc.clip : desc.reference_clip;
  if (desc.reference_clip < -1)
    return not_found(who + ": reference clip index " + std::to_string(desc.reference_clip) +
                     " does not exist");
  if (Status s = check_clip(ref_index, "add_layer: reference"); !s) return s;
  const Clip& ref = clips_[ref_index];
  if (!std::isfinite(desc.reference_time) || desc.reference_time < 0.0f ||
      desc.reference_time > ref.duration)
    return invalid_argument(who + ": reference_time " + num(desc.reference_time) +
                            " is outside [0, " + num(ref.duration) + "] of clip '" + ref.name +
                            "'");
  if (Status s = check_update(who, {desc.weight, desc.speed, desc.parameter}); !s) return s;
  if (!std::isfinite(desc.start_time) || desc.start_time < 0.0f || desc.start_time > clip.duration)
    return invalid_argument(who + ": start_time " + num(desc.start_time) + " is outside [0, " +
                            num(clip.duration) + "]");
  const int n = skeleton_->num_joints();
  if (Status s = check_mask(who, desc.mask); !s) return s;
  if (desc.blend != LayerBlend::kAdditive && desc.blend != LayerBlend::kOverride)
    return invalid_argument(who + ": unknown layer blend " +
                            std::to_string(static_cast<int>(desc.blend)));
  if (static_cast<int>(layers_.size()) >= kMaxLayers)
    return Status(StatusCode::kResourceExhausted,
                  who + ": the character already has " + std::to_string(kMaxLayers) + " layers");

  Layer layer;
  layer.clip = desc.clip;
  layer.time_source = desc.time_source;
  layer.weight = desc.weight;
  layer.speed = desc.speed;
  layer.parameter = desc.parameter;
  switch (desc.time_source) {
    case LayerTimeSource::kOwnClock:
      layer.time = wrap_clip_time(desc.start_time, clip.duration, WrapMode::kLoop);
      break;
    case LayerTimeSource::kBaseNormalized: {
      const Player& p = latest();
      layer.time =
          normalized_time(p.time, p.clip >= 0 ? clips_[p.clip].duration : 0.0f) * clip.duration;
      break;
    }
    case LayerTimeSource::kParameter:
      layer.time = desc.parameter * clip.duration;
      layer.loop = false;
      break;
    default:
      return invalid_argument(who + ": unknown time source " +
                              std::to_string(static_cast<int>(desc.time_source)));
  }
  auto made = std::make_shared<LayerSetup>();
  made->clip = desc.clip;
  made->blend = desc.blend;
  made->mask = desc.mask;
  if (desc.blend == LayerBlend::kAdditive) {  // an override layer needs no reference
    made->reference.resize(n);
    ref.sample(desc.reference_time, skeleton_->rest_pose, made->reference);
  }
  const int morph_ref = desc.blend == LayerBlend::kAdditive ? ref_index : -1;
  if (Status s = morph_layer_setup(who, desc.morph_targets, morph_ref, desc.reference_time, *made);
      !s)
    return s;
  made->reference_clip = morph_ref;
  made->reference_time = morph_ref >= 0 ? desc.reference_time : 0.0f;
  made->morph_targets = desc.morph_targets;
  return append_layer(std::move(layer), std::move(made));
}

Expected<int> Animator::add_machine_layer(const MachineLayerDesc& desc) {
  const std::string who =
      "add_layer (machine '" + (desc.machine ? desc.machine->name : std::string()) + "')";
  if (!desc.machine) return invalid_argument("add_layer: no state machine given");
  if (desc.blend != LayerBlend::kAdditive && desc.blend != LayerBlend::kOverride)
    return invalid_argument(who + ": unknown layer blend " +
                            std::to_string(static_cast<int>(desc.blend)));
  if (Status s = check_update(who, {desc.weight, desc.speed, 0.0f}); !s) return s;
  if (Status s = check_mask(who, desc.mask); !s) return s;
  if (static_cast<int>(layers_.size()) >= kMaxLayers)
    return Status(StatusCode::kResourceExhausted,
                  who + ": the character already has " + std::to_string(kMaxLayers) + " layers");
  int machines = 0;
  for (const Layer& l : layers_) machines += l.machine ? 1 : 0;
  if (machines >= kMaxMachineLayers)
    return Status(StatusCode::kResourceExhausted, who + ": the character already has " +
                                                      std::to_string(kMaxMachineLayers) +
                                                      " machine layers");
  const StateMachine& m = *desc.machine;
  const int start = desc.state.empty() ? m.entry : m.find_state(desc.state);
  if (start < 0) return not_found(who + ": the machine has no state named '" + desc.state + "'");
  // The additive reference: a clip at a time (default: the start state's clip).
  std::vector<Transform> reference;
  auto made = std::make_shared<LayerSetup>();
  if (desc.blend == LayerBlend::kAdditive) {
    int ref_index = desc.reference_clip;
    if (ref_index == -1) {
      const MachineState& s = m.states[static_cast<size_t>(start)];
      ref_index = s.clip;
      if (s.space >= 0 && spaces_ && s.space < static_cast<int>(spaces_->spaces.size()))
        ref_index = spaces_->spaces[static_cast<size_t>(s.space)]->samples.front().clip;
    }
    if (Status s = check_clip(ref_index, (who + ": reference").c_str()); !s) return s;
    const Clip& ref = clips_[static_cast<size_t>(ref_index)];
    if (!std::isfinite(desc.reference_time) || desc.reference_time < 0.0f ||
        desc.reference_time > ref.duration)
      return invalid_argument(who + ": reference_time " + num(desc.reference_time) +
                              " is outside [0, " + num(ref.duration) + "] of clip '" + ref.name +
                              "'");
    reference.resize(static_cast<size_t>(skeleton_->num_joints()));
    ref.sample(desc.reference_time, skeleton_->rest_pose, reference);
    if (Status s =
            morph_layer_setup(who, desc.morph_targets, ref_index, desc.reference_time, *made);
        !s)
      return s;
    made->reference_clip = ref_index;
    made->reference_time = desc.reference_time;
  } else if (Status s = morph_layer_setup(who, desc.morph_targets, -1, 0.0f, *made); !s) {
    return s;
  }
  Boxed<MachineLayer> machine(std::make_unique<MachineLayer>());
  if (Status s =
          start_machine(machine->driver, machine->track, desc.machine, desc.state, "add_layer");
      !s)
    return s;

  Layer layer;
  layer.weight = desc.weight;
  layer.speed = desc.speed;
  layer.machine = std::move(machine);
  machine_layer_inputs_.make();
  made->blend = desc.blend;
  made->mask = desc.mask;
  made->reference = std::move(reference);
  made->machine = true;
  made->morph_targets = desc.morph_targets;
  return append_layer(std::move(layer), std::move(made));
}

Expected<MachineStatus> Animator::machine_layer_status(int layer_id) const {
  auto it = find_layer(layer_id);
  if (it == layers_.end())
    return not_found("machine_layer_status: no layer with id " + std::to_string(layer_id));
  if (!it->machine)
    return invalid_argument("machine_layer_status: layer " + std::to_string(layer_id) +
                            " runs no state machine");
  return status_of(it->machine->driver, it->machine->track);
}

std::shared_ptr<const StateMachine> Animator::machine_layer_machine(int layer_id) const {
  auto it = find_layer(layer_id);
  if (it == layers_.end() || !it->machine) return nullptr;
  return it->machine->driver.machine;
}

std::vector<int> Animator::machine_layer_ids() const {
  std::vector<int> ids;
  for (const Layer& l : layers_)
    if (l.machine) ids.push_back(l.id);
  return ids;
}

Status Animator::update_layer(int layer_id, const AdditiveLayerUpdate& update) {
  auto it = find_layer(layer_id);
  if (it == layers_.end())
    return not_found("update_layer: no layer with id " + std::to_string(layer_id));
  if (Status s = check_update("update_layer " + std::to_string(layer_id), update); !s) return s;
  it->weight = update.weight;
  it->speed = update.speed;
  it->parameter = update.parameter;
  return Status::ok();
}

Status Animator::remove_layer(int layer_id) {
  auto it = find_layer(layer_id);
  if (it == layers_.end())
    return not_found("remove_layer: no layer with id " + std::to_string(layer_id));
  PoseSetup next = copy_setup();
  next.layers.erase(next.layers.begin() + (it - layers_.begin()));
  replace_setup(std::move(next));
  layers_.erase(it);
  return Status::ok();
}

}  // namespace anim
