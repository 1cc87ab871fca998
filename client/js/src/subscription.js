// One subscription of an AnimdClient: its StreamFrames decoded in order into characters.
// A compact key frame of an asset not held waits (and the frames after it) until the asset's
// skeleton is fetched (get_asset_data), so that deltas are decoded in order. Each character
// keeps its last two samples; sample(now) draws between them (interpolate.js), one tick behind
// the stream. After a reconnect the subscription is made again (new id), its characters
// forgotten ("removed") and rebuilt from the first key frames.
//
// Options: all (every character, also ones spawned later) | characters: [ids] | region
// ({sphere: {center, radius}} or {box: {min, max}}, optional outer_margin and
// outer_rate_divisor); encoding "compact" (default) or "float"; rateDivisor; events (true, or
// {min_weight}: animation events, emitted as "event"); camera ({eye, forward, vertical_fov,
// aspect}: where the page looks from, for the daemon's significance; setCamera replaces it).
//
// Events: "frame" (the decoded frame: {tick, samples, errors, removed}), "character" (a new
// one), "removed" (id), "event" (an AnimationEvent), "decode-error" ({characterId, message}),
// "ended" (SubscriptionEnded: the daemon dropped it, e.g. a slow reader), "error".

import * as compact from "./compact.js";
import { Emitter } from "./emitter.js";
import { blendSamples } from "./interpolate.js";
import { toNumber } from "./protocol.js";
import { StreamDecoder } from "./stream.js";

export class Character {
  constructor(id, asset) {
    this.id = id;
    this.asset = asset;
    this.tick = 0;
    this.a = null;  // the older of the last two samples
    this.b = null;  // the newest (with .time: when it arrived, seconds)
  }
  // The pose to draw at `now` (seconds, performance.now() / 1000): between the last two
  // samples by the time since the newest arrived over one frame interval; null before one.
  sample(now, frameSeconds) {
    if (!this.b) return null;
    return blendSamples(this.a, this.b, Math.max(0, Math.min(1, (now - this.b.time) / frameSeconds)));
  }
}

const ENCODINGS = { compact: "ENCODING_COMPACT", float: "ENCODING_FLOAT_3X4" };

export class Subscription extends Emitter {
  constructor(client, options) {
    super();
    this.client = client;
    this.options = options;
    const encoding = ENCODINGS[options.encoding || "compact"];
    if (!encoding) throw new TypeError(`animd-client: encoding '${options.encoding}' (compact or float)`);
    this.fields = { encoding, rate_divisor: options.rateDivisor || 0 };
    if (options.characters) this.fields.character_ids = options.characters;
    else if (options.region) this.fields.region = options.region;
    else this.fields.all_characters = options.all !== false;
    if (options.camera) this.fields.camera = options.camera;
    if (options.events) this.fields.events = { enabled: true, ...(options.events === true ? {} : options.events) };
    this.id = 0;
    this.characters = new Map();
    this.skeletons = new Map();  // asset -> compact.Skeleton (this connection's)
    this.decoder = new StreamDecoder((asset) => this.skeletons.get(asset));
    this.waiting = [];
    this.fetching = null;
    this.fetchedFor = null;
  }

  // Seconds between two frames of this subscription.
  get frameSeconds() {
    return this.client.tickSeconds * Math.max(1, this.fields.rate_divisor);
  }

  async start() {
    const reply = await this.client.request({ subscribe: this.fields });
    this.id = reply.subscribe.subscription_id;
    return this;
  }

  // The connection went away: what was held belongs to it.
  reset() {
    this.id = 0;
    this.waiting = [];
    this.fetching = null;
    this.skeletons.clear();
    this.decoder = new StreamDecoder((asset) => this.skeletons.get(asset));
    for (const id of [...this.characters.keys()]) this.remove(id);
  }

  // Moves a region subscription (update_subscription).
  async setRegion(region) {
    this.fields.region = region;
    await this.client.request({ update_subscription: { subscription_id: this.id, region } });
  }

  // Replaces the subscription's camera (update_subscription; the region is kept); null
  // removes it.
  async setCamera(camera) {
    if (camera) this.fields.camera = camera;
    else delete this.fields.camera;
    const change = camera ? { camera } : { clear_camera: true };
    await this.client.request({ update_subscription: { subscription_id: this.id, ...change } });
  }

  async unsubscribe() {
    this.client.subscriptions.delete(this);
    if (this.id && this.client.connected) await this.client.request({ unsubscribe: { subscription_id: this.id } });
    this.id = 0;
  }

  end(ended) {
    this.client.subscriptions.delete(this);
    this.id = 0;
    this.emit("ended", ended);
  }

  push(frame) {
    this.waiting.push(frame);
    this.drain();
  }

  // Decodes the waiting frames in order; the first one naming an asset not held waits for
  // it. Each asset is fetched once per frame: a fetch that fails (or brings another skeleton)
  // leaves the decoder to report that character's key frame.
  drain() {
    while (this.waiting.length > 0 && this.fetching === null) {
      const head = this.waiting[0];
      if (this.fetchedFor?.frame !== head) this.fetchedFor = { frame: head, assets: new Set() };
      const asset = this.decoder.missingAsset(head, this.fetchedFor.assets);
      if (asset !== null) {
        this.fetchedFor.assets.add(asset);
        this.fetch(asset);
        return;
      }
      this.onFrame(this.waiting.shift());
    }
  }

  fetch(asset) {
    const decoder = this.decoder;
    this.fetching = asset;
    this.client
      .assetData(asset, this.skeletons.has(asset))
      .then((data) => new compact.Skeleton(data.skeleton))
      .then(
        (skeleton) => decoder === this.decoder && this.skeletons.set(asset, skeleton),
        (e) => {
          this.skeletons.delete(asset);
          this.emit("error", new Error(`asset '${asset}': ${e.message}`));
        },
      )
      .then(() => {
        if (decoder !== this.decoder) return;  // the connection changed meanwhile
        this.fetching = null;
        this.drain();
      });
  }

  onFrame(frame) {
    const decoded = this.decoder.decode(frame);
    const now = performance.now() / 1000;
    for (const id of decoded.removed) this.remove(id);
    // A character whose frame failed keeps its last good samples until its next key frame.
    for (const e of decoded.errors) this.emit("decode-error", e);
    for (const s of decoded.samples) {
      let c = this.characters.get(s.characterId);
      const isNew = !c;
      if (isNew) {
        c = new Character(s.characterId, s.asset);
        this.characters.set(c.id, c);
      }
      c.asset = s.asset;
      c.tick = s.tick;
      s.time = now;
      c.a = c.b && c.b.palette.length === s.palette.length ? c.b : s;
      c.b = s;
      if (isNew) this.emit("character", c);
    }
    for (const e of frame.events || []) this.emit("event", { ...e, tick: toNumber(e.tick) });
    this.emit("frame", decoded);
  }

  remove(id) {
    if (!this.characters.delete(id)) return;
    this.emit("removed", id);
  }
}
