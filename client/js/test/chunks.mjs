// Reads the C++ test's chunk file: 4-byte little-endian length, then that many bytes, again
// and again. The first chunk is a serialized SkeletonData, the others compact frames.
import { readFileSync } from "node:fs";
import { loadProtocol } from "../src/protocol.js";
import { Skeleton } from "../src/compact.js";

export async function readChunks(path) {
  const bytes = new Uint8Array(readFileSync(path));
  const chunks = [];
  for (let at = 0; at + 4 <= bytes.length;) {
    const n = bytes[at] | (bytes[at + 1] << 8) | (bytes[at + 2] << 16) | (bytes[at + 3] * 2 ** 24);
    chunks.push(bytes.subarray(at + 4, at + 4 + n));
    at += 4 + n;
  }
  const protocol = await loadProtocol();
  const data = protocol.root.lookupType("anim.v1.SkeletonData").decode(chunks[0]);
  return { protocol, data, skeleton: new Skeleton(data), frames: chunks.slice(1) };
}
