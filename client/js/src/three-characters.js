// Every character of a subscription as a three.js object under `parent`: the object comes
// from options.load(character, assetData) (the page's own glTF of that asset, e.g.
// SkeletonUtils.clone(gltf.scene); may return a promise) or, when it returns nothing, from
// buildSkinnedMesh (get_asset_data). An object joins `parent` (and "added" is emitted) once it
// holds the daemon's pose, never in its rest pose; update() poses each between its last two
// frames; a character that leaves the subscription is removed from `parent`. Assets without a mesh
// (BVH captures) get no object. Problems (an object with no matching bone, a mesh that
// cannot be built) are kept in `errors` (by character id) and emitted as "error".

import { Emitter } from "./emitter.js";
import { SkinnedCharacter } from "./three-bind.js";
import { buildSkinnedMesh } from "./three-mesh.js";

export class ThreeCharacters extends Emitter {
  constructor(subscription, parent, options = {}) {
    super();
    this.subscription = subscription;
    this.parent = parent;
    this.options = options;
    this.entries = new Map();  // character id -> {character, binding, object, shown}
    this.errors = new Map();
    this.frozen = false;
    subscription.on("character", (c) => this.add(c));
    subscription.on("removed", (id) => this.remove(id));
    for (const c of subscription.characters.values()) this.add(c);
  }

  async add(character) {
    const entry = { character, binding: null, object: null, shown: false };
    this.entries.set(character.id, entry);
    try {
      const data = await this.subscription.client.assetData(character.asset);
      const loaded = this.options.load ? await this.options.load(character, data) : null;
      if (this.entries.get(character.id) !== entry) return;  // gone meanwhile
      if (!loaded && !(data.mesh && data.mesh.num_vertices > 0)) return;
      const object = loaded || buildSkinnedMesh(data, this.options);
      entry.binding = new SkinnedCharacter(object, data, this.options);
      entry.object = object;
      this.pose(entry, character.b);
    } catch (e) {
      this.errors.set(character.id, e.message);
      this.emit("error", e);
    }
  }

  // Applies `sample` to the entry's object; the first one that fits puts the object in the
  // scene first (the pose is computed from where the object stands under `parent`).
  pose(entry, sample) {
    if (entry.shown) return entry.binding.apply(sample);
    if (!entry.binding.fits(sample)) return false;
    entry.shown = true;
    this.parent.add(entry.object);
    entry.binding.apply(sample);
    this.emit("added", entry.character, entry.object);
    return true;
  }

  remove(id) {
    const entry = this.entries.get(id);
    if (!entry) return;
    this.entries.delete(id);
    if (entry.shown) {
      this.parent.remove(entry.object);
      this.emit("removed", id, entry.object);
    }
  }

  // Poses every character for `now` (seconds, default performance.now() / 1000), between
  // its last two frames. Nothing moves while frozen.
  update(now = performance.now() / 1000) {
    if (this.frozen) return;
    for (const entry of this.entries.values())
      if (entry.binding) this.pose(entry, entry.character.sample(now, this.subscription.frameSeconds));
  }

  // Stops update() and poses each character on its newest frame as received (no
  // interpolation): what the daemon's query_pose answers for that tick. Returns
  // {character id: tick}. thaw() lets update() go on.
  freeze() {
    this.frozen = true;
    const ticks = {};
    for (const [id, entry] of this.entries)
      if (entry.binding && this.pose(entry, entry.character.b)) ticks[id] = entry.character.b.tick;
    return ticks;
  }

  thaw() {
    this.frozen = false;
  }

  // The object drawing character `id` (undefined until its asset arrived; in the scene once
  // posed).
  object(id) {
    return this.entries.get(id)?.object;
  }
}
