// The animd protocol over WebSocket (the daemon's /ws on its HTTP port, docs/web-viewer.md):
// one binary message is one serialized Request or ServerMessage. Requests get promises of
// their replies (a non-OK status rejects with an AnimdError), subscriptions decode their
// stream (subscription.js), and a dropped connection is opened again after 1, 2, 4 ... s
// (up to maxDelayMs), its subscriptions made again.
//
//   const client = await connect("ws://127.0.0.1:7451/ws", { token });
//   const { spawn } = await client.request({ spawn: { asset: "builtin", clip: "walk" } });
//   const sub = await client.subscribe({ all: true });   // compact encoding by default

import { Emitter } from "./emitter.js";
import { loadProtocol, toNumber } from "./protocol.js";
import { Subscription } from "./subscription.js";

// A request the daemon answered with a non-OK status, or one that never got an answer
// (code -1, codeName "DISCONNECTED" or "TIMEOUT").
export class AnimdError extends Error {
  constructor(code, codeName, message, requestId) {
    super(`${codeName}: ${message}`);
    this.name = "AnimdError";
    this.code = code;
    this.codeName = codeName;
    this.requestId = requestId;
  }
}

// The page's own daemon: wss:// when the page came over https://.
export function defaultEndpoint(location = globalThis.location) {
  return `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`;
}

export async function connect(url, options = {}) {
  const client = new AnimdClient(url, options);
  await client.opened();
  return client;
}

export class AnimdClient extends Emitter {
  constructor(url, options = {}) {
    super();
    this.url = url;
    this.token = options.token || "";
    this.WebSocket = options.WebSocket || globalThis.WebSocket;
    if (!this.WebSocket) throw new TypeError("animd-client: no WebSocket (pass options.WebSocket in Node < 22)");
    this.reconnect = options.reconnect !== false;
    this.minDelayMs = options.minDelayMs || 1000;
    this.maxDelayMs = options.maxDelayMs || 10000;
    this.requestTimeoutMs = options.requestTimeoutMs || 30000;
    this.connected = false;
    this.closed = false;
    this.tickSeconds = 1 / 60;
    this.subscriptions = new Set();
    this.pending = new Map();  // request id -> {resolve, reject, timer}
    this.nextId = 1;
    this.delayMs = this.minDelayMs;
    this.ws = null;
    this.protocolReady = loadProtocol(options.protobuf).then((p) => (this.protocol = p));
    this.firstOpen = new Promise((resolve, reject) => {
      this.resolveFirstOpen = resolve;
      this.rejectFirstOpen = reject;
    });
    this.open();
  }

  // Resolves once connected the first time; rejects when the first attempt fails and
  // reconnecting is off.
  opened() {
    return this.firstOpen;
  }

  async open() {
    try {
      await this.protocolReady;
    } catch (e) {
      this.rejectFirstOpen(e);
      return;
    }
    if (this.closed) return;
    const ws = new this.WebSocket(this.url);
    this.ws = ws;
    ws.binaryType = "arraybuffer";
    ws.onopen = () => this.onOpen();
    ws.onmessage = (event) => this.onMessage(event.data);
    ws.onclose = (event) => this.onClose(event.code, event.reason || "");
    ws.onerror = () => {};  // a close follows
  }

  onOpen() {
    this.connected = true;
    this.delayMs = this.minDelayMs;
    this.request({ stats: {} })
      .then((r) => {
        if (r.stats && r.stats.tick_rate_hz > 0) this.tickSeconds = 1 / r.stats.tick_rate_hz;
      })
      .catch(() => {});
    for (const s of this.subscriptions) s.start();
    this.emit("open");
    this.resolveFirstOpen(this);
  }

  onClose(code, reason) {
    const wasConnected = this.connected;
    this.connected = false;
    this.ws = null;
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(new AnimdError(-1, "DISCONNECTED", `connection closed (${code} ${reason})`.trim(), id));
    }
    this.pending.clear();
    this.assetCache = new Map();  // a daemon that comes back may hold other assets
    for (const s of this.subscriptions) s.reset();
    const retry = this.reconnect && !this.closed;
    this.emit("close", { code, reason, retryInMs: retry ? this.delayMs : null });
    if (!retry) {
      if (!wasConnected) this.rejectFirstOpen(new Error(`animd-client: cannot connect to ${this.url} (${code})`));
      return;
    }
    setTimeout(() => this.open(), this.delayMs);
    this.delayMs = Math.min(this.delayMs * 2, this.maxDelayMs);
  }

  onMessage(data) {
    let message;
    try {
      message = this.protocol.decodeServerMessage(new Uint8Array(data));
    } catch (e) {
      this.emit("error", new Error(`undecodable message: ${e.message}`));
      return;
    }
    if (message.reply) {
      const id = toNumber(message.reply.request_id);
      const p = this.pending.get(id);
      if (!p) return;
      this.pending.delete(id);
      clearTimeout(p.timer);
      const status = message.reply.status;
      if (status && status.code) p.reject(new AnimdError(status.code, this.protocol.statusName(status.code), status.message, id));
      else p.resolve(message.reply);
    } else if (message.frame) {
      for (const s of this.subscriptions) if (s.id === message.frame.subscription_id) s.push(message.frame);
    } else if (message.subscription_ended) {
      const ended = message.subscription_ended;
      for (const s of this.subscriptions) if (s.id === ended.subscription_id) s.end(ended);
    } else if (message.characters_moved) {
      this.emit("characters-moved", message.characters_moved);
    }
  }

  // Sends one request (`fields`: the Request's command and options, snake_case as in the
  // .proto, e.g. {play: {character_id: 3, clip: "run"}}); resolves with the Reply (its
  // result field named as the command) or rejects with an AnimdError.
  request(fields) {
    if (!this.connected || !this.ws) return Promise.reject(new AnimdError(-1, "DISCONNECTED", "not connected", 0));
    const id = this.nextId++;
    const bytes = this.protocol.encodeRequest({ ...fields, request_id: id, auth_token: this.token });
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new AnimdError(-1, "TIMEOUT", `no reply in ${this.requestTimeoutMs} ms`, id));
      }, this.requestTimeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      this.ws.send(bytes);
    });
  }

  // A subscription (options: subscription.js); resolves once the daemon accepted it.
  async subscribe(options = {}) {
    const s = new Subscription(this, options);
    this.subscriptions.add(s);
    await s.start();
    return s;
  }

  // get_asset_data of `asset` (skeleton and mesh); one request per asset and connection
  // unless `refresh`.
  assetData(asset, refresh = false) {
    if (!this.assetCache) this.assetCache = new Map();
    if (refresh || !this.assetCache.has(asset)) {
      const p = this.request({ get_asset_data: { asset } }).then((r) => r.get_asset_data);
      p.catch(() => this.assetCache.delete(asset));
      this.assetCache.set(asset, p);
    }
    return this.assetCache.get(asset);
  }

  close() {
    this.closed = true;
    if (this.ws) this.ws.close(1000, "client closed");
  }
}
