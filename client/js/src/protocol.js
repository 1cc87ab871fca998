// The protocol's messages through protobuf.js: its reflection types built from the JSON
// descriptor that scripts/gen-descriptor.mjs makes of proto/anim/v1 (src/descriptor.js), so
// no .proto file is read and no parser runs here. Field names are the .proto ones
// (snake_case), enums may be given by name ("ENCODING_COMPACT").
//
// protobuf.js: the module passed in, else a page's global `protobuf` (its UMD build loaded
// with a <script> tag: a page without a bundler cannot import the CommonJS package), else the
// `protobufjs` dependency imported (Node, bundlers). Its light build is enough.

import descriptor from "./descriptor.js";

export class Protocol {
  constructor(root) {
    this.root = root;
    this.Request = root.lookupType("anim.v1.Request");
    this.ServerMessage = root.lookupType("anim.v1.ServerMessage");
    this.statusNames = root.lookupEnum("anim.v1.StatusCode").valuesById;
  }

  // A Request (plain object, checked by protobuf.js) as the bytes of one message.
  encodeRequest(fields) {
    const message = this.Request.fromObject(fields);
    const problem = this.Request.verify(message);
    if (problem) throw new TypeError(`animd request: ${problem}`);
    return this.Request.encode(message).finish();
  }

  // One ServerMessage; throws on bytes that are not one.
  decodeServerMessage(bytes) {
    return this.ServerMessage.decode(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes));
  }

  // "STATUS_NOT_FOUND" for 2 (the number as text for codes this build does not know).
  statusName(code) {
    return this.statusNames[code] || String(code);
  }
}

export async function loadProtocol(protobuf) {
  const pb = protobuf || globalThis.protobuf || (await import("protobufjs/light.js")).default;
  return new Protocol(pb.Root.fromJSON(descriptor));
}

// A uint64/int64 field as a number: protobuf.js gives a Long where long.js is installed (Node)
// and a number where it is not (its browser build). Exact up to 2^53.
export function toNumber(v) {
  if (v === null || v === undefined) return 0;
  if (typeof v === "object" && typeof v.toNumber === "function") return v.toNumber();
  return Number(v);
}
