// A subscription's StreamFrames turned into samples, one per character per frame: the skin
// palette (Float32Array, 12 floats a joint, the top three rows of each skin matrix, row-major),
// the root transform as [translation, rotation (x, y, z, w), scale] and the morph weights
// (Float32Array, empty without targets). Float frames carry these; compact frames are
// decoded against the frames this decoder holds (compact.js), with every check of the other
// decoders: a bad frame throws nothing out of here, it is reported in `errors` and the
// character is left out until its next key frame (the daemon sends one after any loss).

import * as compact from "./compact.js";
import { toNumber } from "./protocol.js";

const vec3 = (v, d) => (v ? [v.x || 0, v.y || 0, v.z || 0] : d.slice());

// A Transform message as [t, r, s] (an all-zero rotation is the identity, as in the .proto).
export function transformParts(t) {
  if (!t) return [[0, 0, 0], [0, 0, 0, 1], [1, 1, 1]];
  const q = t.rotation;
  const r = q && (q.x || q.y || q.z || q.w) ? [q.x || 0, q.y || 0, q.z || 0, q.w || 0] : [0, 0, 0, 1];
  return [vec3(t.translation, [0, 0, 0]), r, vec3(t.scale, [1, 1, 1])];
}

export class StreamDecoder {
  // skeletonFor(asset): the asset's compact.Skeleton, or undefined while it is not held.
  constructor(skeletonFor) {
    this.skeletonFor = skeletonFor;
    this.held = new Map();  // character id -> {asset, skeleton, frames: [newest, older]}
  }

  // The asset a frame needs before it can be decoded (a compact key frame whose asset is not
  // held, or held for another skeleton id), or null; assets in `except` are not asked for.
  missingAsset(frame, except = new Set()) {
    for (const cf of frame.characters || []) {
      if (!cf.compact || cf.compact.length === 0) continue;
      let header;
      try {
        header = compact.readHeader(cf.compact);
      } catch (e) {
        continue;  // decode() reports it
      }
      if (header[0] !== compact.KEY || except.has(cf.asset)) continue;
      const skeleton = this.skeletonFor(cf.asset);
      if (!skeleton || skeleton.id !== header[1] >>> 0) return cf.asset;
    }
    return null;
  }

  // {tick, samples: [{characterId, asset, tick, palette, root, morphWeights}], errors:
  // [{characterId, message}], removed: [character ids]}.
  decode(frame) {
    const tick = toNumber(frame.tick);
    const removed = [...(frame.despawned || []), ...(frame.left || [])];
    for (const id of removed) this.held.delete(id);
    if (frame.dropped_since_last && !frame.part) {
      // A resynchronising frame lists every member: anything else is gone.
      const members = new Set(frame.members || []);
      for (const id of [...this.held.keys()])
        if (!members.has(id)) {
          this.held.delete(id);
          removed.push(id);
        }
    }
    const samples = [], errors = [];
    for (const cf of frame.characters || []) {
      try {
        samples.push(cf.compact && cf.compact.length ? this.decodeCompact(cf, tick) : floatSample(cf, tick));
      } catch (e) {
        if (!(e instanceof compact.CompactError)) throw e;
        this.held.delete(cf.character_id);
        errors.push({ characterId: cf.character_id, message: e.message });
      }
    }
    return { tick, samples, errors, removed };
  }

  decodeCompact(cf, tick) {
    const [kind] = compact.readHeader(cf.compact);
    let pose, root, state = this.held.get(cf.character_id);
    if (kind === compact.KEY) {
      const skeleton = this.skeletonFor(cf.asset);
      if (!skeleton) throw new compact.CompactError(`no skeleton for asset '${cf.asset}'`);
      [pose, root] = compact.decodeFrame(skeleton, cf.compact);
      state = { asset: cf.asset, skeleton, frames: [] };
    } else {
      const need = kind === compact.DELTA1 ? 1 : 2;
      const h = state ? state.frames : [];
      // The ticks the delta refers to (CharacterFrame.baseline_ticks_skipped).
      const newest = tick - 1 - (cf.baseline_ticks_skipped || 0);
      const older = newest - 1 - (cf.baseline2_ticks_skipped || 0);
      if (h.length < need || h[0].tick !== newest || (need === 2 && h[1].tick !== older))
        throw new compact.CompactError("a delta frame against frames not held (a frame was lost)");
      [pose, root] = compact.decodeFrame(state.skeleton, cf.compact, h[0].pose, h[0].root,
        need === 2 ? h[1].pose : null, need === 2 ? h[1].root : null);
    }
    const morphs = compact.decodeMorphs(cf.compact_morphs, kind === compact.KEY ? null : state.frames[0].morphs);
    state.frames = [{ pose, root, tick, morphs }, ...state.frames].slice(0, 2);
    this.held.set(cf.character_id, state);
    return {
      characterId: cf.character_id,
      asset: state.asset,
      tick,
      palette: compact.buildPalette(state.skeleton, pose),
      root: compact.dequantizeRoot(root),
      morphWeights: compact.dequantizeMorphs(morphs),
    };
  }
}

function floatSample(cf, tick) {
  const palette = Float32Array.from(cf.palette || []);
  if (palette.length === 0 || palette.length % 12 !== 0 || !palette.every(Number.isFinite))
    throw new compact.CompactError(`float frame: a palette of ${palette.length} floats`);
  const root = transformParts(cf.root);
  if (!root.flat().every(Number.isFinite)) throw new compact.CompactError("float frame: a root that is not finite");
  const morphWeights = Float32Array.from(cf.morph_weights || []);
  if (!morphWeights.every(Number.isFinite)) throw new compact.CompactError("float frame: a morph weight that is not finite");
  return { characterId: cf.character_id, asset: cf.asset, tick, palette, root, morphWeights };
}
