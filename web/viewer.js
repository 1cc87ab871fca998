// The web viewer's page logic: the WebSocket connection to animd (/ws on the HTTP port; one
// binary message = one serialized Request or ServerMessage, docs/web-viewer.md), protobuf
// through protobuf.js (parsing the daemon's own .proto files, served beside the page), the
// compact stream decoded here (compact.js), drawing with renderer.js.
//
// Flow, per daemon: connect -> stats (tick rate) -> subscribe to every character,
// ENCODING_COMPACT -> per key frame naming an asset not held: get_asset_data (skeleton + mesh),
// frames held back meanwhile so that deltas are decoded in order -> each frame: palettes ->
// drawn between the last two frames. list_characters once a second for the clip names. On a drop: reconnect
// with a growing delay, starting over.
//
// URL parameters: token=... (sent as auth_token in every request when the daemon has
// tokens), ws=ws://host:port/ws (another endpoint; default: this page's host). Several
// daemons (shards of one world) are drawn together: ws= repeated or comma-separated, one
// connection per daemon, characters keyed by (daemon, id) and assets fetched per daemon.
// Each daemon other than the page's own must allow the page's origin (--ws-allowed-origin).
//
// window.animdViewer.status() reports what the page is doing (the browser test reads it).

import * as compact from "./compact.js";
import { OrbitCamera, Renderer } from "./renderer.js";

const params = new URLSearchParams(location.search);
const token = params.get("token") || "";
const endpoints = params.getAll("ws").flatMap((v) => v.split(",")).map((v) => v.trim()).filter((v) => v);
if (endpoints.length === 0) endpoints.push(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`);
const statusLine = document.getElementById("status");
const listBody = document.getElementById("characters");

// Totals over every daemon (status() adds connected, characters, assets and per daemon).
const state = {
  frames: 0,
  drawn: 0,
  decodeErrors: 0,
  lastError: "",
  closes: 0,
};
window.animdViewer = {
  status: () => ({
    ...state,
    connected: daemons.length > 0 && daemons.every((d) => d.connected),
    characters: daemons.reduce((n, d) => n + d.characters.size, 0),
    assets: [...new Set(daemons.flatMap((d) => [...d.assets.keys()]))],
    daemons: daemons.map((d) => ({ endpoint: d.endpoint, connected: d.connected, characters: d.characters.size })),
  }),
};

function setStatus(text) {
  statusLine.textContent = text;
}

// ---- protobuf ----

let Request, ServerMessage;
async function loadProtocol() {
  if (window.animdMissingProtobufJs) throw new Error(window.animdMissingProtobufJs);
  const root = new protobuf.Root();
  // envelope.proto and, transitively, every file it imports (so a new .proto of the
  // protocol needs no change here).
  const pending = ["anim/v1/envelope.proto"];
  const seen = new Set(pending);
  while (pending.length > 0) {
    const path = pending.shift();
    const res = await fetch(`/view/proto/${path}`);
    if (!res.ok) throw new Error(`fetching ${path}: HTTP ${res.status}`);
    const parsed = protobuf.parse(await res.text(), root, { keepCase: true });
    for (const imported of parsed.imports || []) {
      if (seen.has(imported)) continue;
      seen.add(imported);
      pending.push(imported);
    }
  }
  root.resolveAll();
  window.animdViewer.protocol = root;  // the parsed .proto types (tests decode with them)
  Request = root.lookupType("anim.v1.Request");
  ServerMessage = root.lookupType("anim.v1.ServerMessage");
}

// ---- the world as the stream tells it ----

// One per daemon (see Daemon below), each with its own
//   assets: asset name -> {skeleton (compact.Skeleton) | error, mesh (GPU) | null, size (metres)}
//   characters: character id -> {asset, clip, tick, held: decoded frames [newest, older] with
//     ticks and quantized morph weights, a, b: the last two {palette, root (t, r, s),
//     morphWeights (Float32Array, null without targets), time}, colorIndex}
const daemons = [];
let tickSeconds = 1 / 60;
let renderer, camera;

function rootParts(q) {
  return compact.dequantizeRoot(q);
}

function rootMatrix(t, r, s) {
  return Float32Array.from(compact.trsMatrix(t, r, s));
}

// Linear blend of two frames at `alpha` (palette entries and morph weights component-wise,
// root translation and scale linearly, root rotation normalized-linearly along the shorter
// way).
function blend(a, b, alpha) {
  const palette = new Float32Array(b.palette.length);
  for (let i = 0; i < palette.length; ++i) palette[i] = a.palette[i] + (b.palette[i] - a.palette[i]) * alpha;
  const lerp = (x, y) => x.map((v, i) => v + (y[i] - v) * alpha);
  const dot = a.root[1].reduce((s, v, i) => s + v * b.root[1][i], 0);
  const rb = dot < 0 ? b.root[1].map((v) => -v) : b.root[1];
  let r = lerp(a.root[1], rb);
  const n = Math.hypot(...r) || 1;
  r = r.map((v) => v / n);
  let morphWeights = b.morphWeights;
  if (a.morphWeights && b.morphWeights && a.morphWeights.length === b.morphWeights.length)
    morphWeights = b.morphWeights.map((w, i) => a.morphWeights[i] + (w - a.morphWeights[i]) * alpha);
  return { palette, root: rootMatrix(lerp(a.root[0], b.root[0]), r, lerp(a.root[2], b.root[2])), morphWeights };
}

// ---- connection (one Daemon per endpoint) ----

class Daemon {
  constructor(endpoint, index) {
    this.endpoint = endpoint;
    this.index = index;
    this.connected = false;
    this.ws = null;
    this.nextRequestId = 1;
    this.pending = new Map();  // request id -> callback(reply)
    this.waiting = [];         // stream frames held back while an asset is fetched
    this.fetching = null;      // the asset being fetched
    this.subscription = 0;
    this.retryDelay = 1000;
    this.listTimer = 0;
    this.assets = new Map();
    this.characters = new Map();
  }

  // "d1:5" when several daemons are drawn, else the id alone.
  label(id) {
    return daemons.length > 1 ? `d${this.index}:${id}` : String(id);
  }

  send(fields, callback) {
    const id = this.nextRequestId++;
    const message = Request.fromObject({ request_id: id, auth_token: token, ...fields });
    if (callback) this.pending.set(id, callback);
    this.ws.send(Request.encode(message).finish());
  }

  connect() {
    updateStatus(`connecting to ${this.endpoint} ...`);
    const ws = new WebSocket(this.endpoint);
    this.ws = ws;
    ws.binaryType = "arraybuffer";
    ws.onopen = () => {
      this.connected = true;
      this.retryDelay = 1000;
      updateStatus();
      this.send({ stats: {} }, (reply) => {
        if (reply.stats && reply.stats.tick_rate_hz > 0) tickSeconds = 1 / reply.stats.tick_rate_hz;
      });
      this.send({ subscribe: { all_characters: true, encoding: "ENCODING_COMPACT" } }, (reply) => {
        if (reply.status && reply.status.code) return report(`${this.endpoint}: subscribe: ${reply.status.message}`);
        this.subscription = reply.subscribe.subscription_id;
      });
      this.listCharacters();
    };
    ws.onmessage = (event) => {
      let message;
      try {
        message = ServerMessage.decode(new Uint8Array(event.data));
      } catch (e) {
        return report(`undecodable message from ${this.endpoint}: ${e.message}`);
      }
      if (message.reply) {
        const cb = this.pending.get(Number(message.reply.request_id));
        this.pending.delete(Number(message.reply.request_id));
        if (message.reply.status && message.reply.status.code && !cb)
          report(`${this.endpoint}: request failed: ${message.reply.status.message}`);
        if (cb) cb(message.reply);
      } else if (message.frame) {
        this.waiting.push(message.frame);
        this.drain();
      } else if (message.subscription_ended) {
        report(`${this.endpoint}: subscription ended: ${message.subscription_ended.reason}`);
        ws.close();
      }
    };
    ws.onclose = (event) => {
      this.connected = false;
      state.closes++;
      clearTimeout(this.listTimer);
      const why = event.reason ? `${event.code} ${event.reason}` : `code ${event.code}`;
      updateStatus(`${this.endpoint} disconnected (${why}); reconnecting in ${this.retryDelay / 1000} s`);
      // Start over on reconnect: baselines and subscriptions belong to the old connection.
      this.pending.clear();
      this.waiting = [];
      this.fetching = null;
      this.characters.clear();
      renderList();
      setTimeout(() => this.connect(), this.retryDelay);
      this.retryDelay = Math.min(this.retryDelay * 2, 10000);
    };
  }

  listCharacters() {
    if (!this.connected) return;
    this.send({ list_characters: {} }, (reply) => {
      if (reply.list_characters)
        for (const info of reply.list_characters.characters) {
          const c = this.characters.get(info.character_id);
          if (c) c.clip = info.clip;
        }
      renderList();
    });
    this.listTimer = setTimeout(() => this.listCharacters(), 1000);
  }

  // The asset a frame needs fetched before it can be decoded (a key frame naming an asset not
  // held, or held for another skeleton id), or null.
  missingAsset(frame) {
    for (const cf of frame.characters) {
      if (!cf.compact || cf.compact.length === 0) continue;
      let header;
      try {
        header = compact.readHeader(cf.compact);
      } catch (e) {
        continue;
      }
      if (header[0] !== compact.KEY) continue;
      const held = this.assets.get(cf.asset);
      if (!held || (held.skeleton && held.skeleton.id !== header[1] >>> 0)) return cf.asset;
    }
    return null;
  }

  drain() {
    while (this.waiting.length > 0 && this.fetching === null) {
      const asset = this.missingAsset(this.waiting[0]);
      if (asset !== null) {
        this.fetching = asset;
        this.send({ get_asset_data: { asset } }, (reply) => {
          this.assets.set(asset, makeAsset(asset, reply));
          this.fetching = null;
          this.drain();
        });
        return;
      }
      this.onFrame(this.waiting.shift());
    }
  }

  onFrame(frame) {
    state.frames++;
    const characters = this.characters;
    for (const id of [...frame.despawned, ...frame.left]) characters.delete(id);
    if (frame.dropped_since_last && !frame.part) {
      const members = new Set(frame.members);
      for (const id of characters.keys()) if (!members.has(id)) characters.delete(id);
    }
    const tick = Number(frame.tick);
    for (const cf of frame.characters) {
      let c = characters.get(cf.character_id);
      if (!c) {
        // Colours differ between daemons for the same id.
        c = { asset: "", clip: "", tick: 0, held: [], a: null, b: null, colorIndex: cf.character_id + 7 * this.index };
        characters.set(cf.character_id, c);
      }
      try {
        decodeCharacter(this.assets, c, cf, tick);
      } catch (e) {
        if (!(e instanceof compact.CompactError)) throw e;
        // Left out until its next key frame (the daemon sends one after any drop).
        state.decodeErrors++;
        report(`${this.endpoint}: character ${cf.character_id} at tick ${tick}: ${e.message}`);
        c.held = [];
        continue;
      }
      c.tick = tick;
    }
    renderList();
  }
}

// The status line: `text`, or which daemons are connected.
function updateStatus(text) {
  if (text) return setStatus(text);
  const up = daemons.filter((d) => d.connected).map((d) => d.endpoint);
  setStatus(daemons.length === 1 ? `connected to ${up[0] || "-"}` :
    `connected to ${up.length} of ${daemons.length} daemons: ${up.join(", ")}`);
}

function report(message) {
  state.lastError = message;
  console.warn("animd viewer:", message);
}

// ---- stream ----

function makeAsset(name, reply) {
  if (reply.status && reply.status.code) return { error: `get_asset_data ${name}: ${reply.status.message}` };
  const data = reply.get_asset_data;
  const out = { mesh: null, size: 1.8 };
  try {
    out.skeleton = new compact.Skeleton(data.skeleton);
  } catch (e) {
    out.error = e.message;
    return out;
  }
  if (data.mesh && data.mesh.num_vertices > 0) {
    out.mesh = renderer.uploadMesh(data.mesh);
    if (out.mesh && out.mesh.morphError) report(`asset ${name}: drawn without morph targets: ${out.mesh.morphError}`);
    const p = new Float32Array(data.mesh.positions.slice().buffer);
    let lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
    for (let i = 0; i < p.length; i += 3)
      for (let k = 0; k < 3; ++k) {
        lo[k] = Math.min(lo[k], p[i + k]);
        hi[k] = Math.max(hi[k], p[i + k]);
      }
    const root = data.skeleton.root_transform;
    const scale = Math.hypot(root[0], root[1], root[2]) || 1;  // the scene's unit scale
    out.size = Math.max(...hi.map((v, k) => v - lo[k])) * scale || 1.8;
  }
  return out;
}

function decodeCharacter(assets, c, cf, tick) {
  const [kind] = compact.readHeader(cf.compact);
  let pose, root, skeleton;
  if (kind === compact.KEY) {
    const held = assets.get(cf.asset);
    if (!held || !held.skeleton) throw new compact.CompactError(`no skeleton for asset '${cf.asset}'` +
      (held && held.error ? `: ${held.error}` : ""));
    skeleton = held.skeleton;
    c.asset = cf.asset;
    [pose, root] = compact.decodeFrame(skeleton, cf.compact);
    c.held = [];
  } else {
    const need = kind === compact.DELTA1 ? 1 : 2;
    const h = c.held;
    // The ticks of the frames the delta refers to (CharacterFrame.baseline_ticks_skipped).
    const newest = tick - 1 - (cf.baseline_ticks_skipped || 0);
    const older = newest - 1 - (cf.baseline2_ticks_skipped || 0);
    if (h.length < need || h[0].tick !== newest || (need === 2 && h[1].tick !== older))
      throw new compact.CompactError("a delta frame against frames this page does not hold (a frame was lost)");
    skeleton = assets.get(c.asset).skeleton;
    [pose, root] = compact.decodeFrame(skeleton, cf.compact, h[0].pose, h[0].root,
      need === 2 ? h[1].pose : null, need === 2 ? h[1].root : null);
  }
  // Morph weights: a delta refers to the newest frame held (empty: the asset has none).
  const morphs = compact.decodeMorphs(cf.compact_morphs,
    kind === compact.KEY ? null : c.held[0].morphs);
  cf.morph_weights = compact.dequantizeMorphs(morphs);
  cf.compact_morphs = new Uint8Array(0);
  c.held = [{ pose, root, tick, morphs }, ...c.held].slice(0, 2);
  const sample = { palette: compact.buildPalette(skeleton, pose), root: rootParts(root),
    time: performance.now() / 1000 };
  // CharacterFrame.morph_weights, one per morph target (filled in from compact_morphs for
  // ENCODING_COMPACT); none: the renderer draws the mesh's default weights.
  sample.morphWeights = cf.morph_weights && cf.morph_weights.length ? Float32Array.from(cf.morph_weights) : null;
  c.a = c.b || sample;
  c.b = sample;
}

// ---- list and drawing ----

function renderList() {
  const rows = daemons.flatMap((d) => [...d.characters.entries()].sort((x, y) => x[0] - y[0]).map(([id, c]) => {
    const asset = d.assets.get(c.asset);
    const note = asset && !asset.mesh ? " (no mesh)" : "";
    return `<tr><td>${d.label(id)}</td><td>${escape(c.asset)}${note}</td><td>${escape(c.clip || "-")}</td><td>${c.tick}</td></tr>`;
  }));
  if (rows.length === 0 && daemons.some((d) => d.connected))
    rows.push(`<tr><td colspan="4">no characters yet: <code>animctl spawn builtin --clip walk</code></td></tr>`);
  listBody.innerHTML = rows.join("");
}

function escape(s) {
  return String(s).replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

// Frames lag one tick: between the two newest, by the time since the newest arrived.
function frameItems(now) {
  const items = [];
  for (const d of daemons)
    for (const [id, c] of d.characters) {
      if (!c.b) continue;
      const asset = d.assets.get(c.asset);
      if (!asset || !asset.mesh) continue;
      const alpha = Math.max(0, Math.min(1, (now - c.b.time) / tickSeconds));
      const f = blend(c.a, c.b, alpha);
      items.push({ id: d.label(id), mesh: asset.mesh, palette: f.palette, root: f.root, colorIndex: c.colorIndex,
        position: [f.root[12], f.root[13], f.root[14]], size: asset.size, morphWeights: f.morphWeights });
    }
  return items;
}

// Until the user moves the camera: look at the characters' centre from far enough to see
// them all.
function frameCamera(items) {
  if (camera.userMoved || items.length === 0) return;
  const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
  let size = 0;
  for (const it of items) {
    size = Math.max(size, it.size);
    for (let k = 0; k < 3; ++k) {
      lo[k] = Math.min(lo[k], it.position[k]);
      hi[k] = Math.max(hi[k], it.position[k]);
    }
  }
  const centre = lo.map((v, k) => (v + hi[k]) / 2);
  const spread = Math.hypot(hi[0] - lo[0], hi[2] - lo[2]);
  camera.target = [centre[0], centre[1] + size * 0.5, centre[2]];
  camera.distance = Math.max(size * 2.2, spread * 1.2 + size * 1.5);
}

function loop() {
  const now = performance.now() / 1000;
  const items = frameItems(now);
  frameCamera(items);
  state.drawn = renderer.draw(items, camera);
  requestAnimationFrame(loop);
}

async function main() {
  try {
    renderer = new Renderer(document.getElementById("view"));
    camera = new OrbitCamera();
    camera.attach(document.getElementById("view"));
    await loadProtocol();
  } catch (e) {
    state.lastError = e.message;
    setStatus(`cannot start: ${e.message}`);
    return;
  }
  requestAnimationFrame(loop);
  endpoints.forEach((endpoint, i) => daemons.push(new Daemon(endpoint, i)));
  for (const d of daemons) d.connect();
}

main();
