// Random bytes into the package's decoders for a bounded time: compact frames (random, and
// valid frames of the C++ codec with bits flipped, cut or extended) decoded alone and as
// deltas against valid frames held, compact morph weights, the stream decoder, and the
// protocol's ServerMessage. A decoder may refuse (CompactError, or protobuf.js's error for a
// message) but never throw anything else, hang, or accept a frame into a pose that is not
// finite. Deterministic per seed: a failure prints the seed and the input.
//
//   node fuzz.mjs chunks.bin SECONDS [SEED]
import * as compact from "../src/compact.js";
import { StreamDecoder } from "../src/stream.js";
import { readChunks } from "./chunks.mjs";

const { protocol, skeleton, frames } = await readChunks(process.argv[2]);
const seconds = Number(process.argv[3] || 5);
let seed = Number(process.argv[4] || Date.now() % 2 ** 31) >>> 0;
const firstSeed = seed;
function rand() {  // xorshift32
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) / 2 ** 32;
}
const int = (n) => Math.floor(rand() * n);
const randomBytes = (n) => Uint8Array.from({ length: n }, () => int(256));

// Valid (pose, root) pairs to decode deltas against.
const held = [];
for (let f = 0; f < frames.length; ++f) {
  const [kind] = compact.readHeader(frames[f]);
  const h = held.length ? held[held.length - 1] : null, g = held.length > 1 ? held[held.length - 2] : null;
  const [pose, root] = kind === compact.KEY ? compact.decodeFrame(skeleton, frames[f])
    : compact.decodeFrame(skeleton, frames[f], h.pose, h.root, g && g.pose, g && g.root);
  held.push({ pose, root });
}

function mutate(bytes) {
  const b = Uint8Array.from(bytes);
  switch (int(4)) {
    case 0:
      for (let k = 1 + int(4); k > 0 && b.length; --k) b[int(b.length)] ^= 1 << int(8);
      return b;
    case 1:
      return b.subarray(0, int(b.length + 1));
    case 2:
      return Uint8Array.from([...b, ...randomBytes(1 + int(8))]);
    default:
      return randomBytes(int(2 * b.length + 8));
  }
}

function check(what, input, fn) {
  try {
    fn();
  } catch (e) {
    if (e instanceof compact.CompactError) return false;
    console.error(`fuzz: ${what} threw ${e && e.stack}\nseed ${firstSeed}, input ${Buffer.from(input).toString("hex")}`);
    process.exit(1);
  }
  return true;
}

const counts = { frames: 0, accepted: 0, morphs: 0, stream: 0, messages: 0 };
const stream = new StreamDecoder(() => skeleton);
const deadline = Date.now() + 1000 * seconds;
let tick = 1000;
while (Date.now() < deadline) {
  for (let i = 0; i < 200; ++i) {
    const base = int(frames.length);
    const bytes = rand() < 0.2 ? randomBytes(int(64)) : mutate(frames[base]);
    const at = Math.max(2, base);
    ++counts.frames;
    check("decodeFrame", bytes, () => {
      const [pose, root] = compact.decodeFrame(skeleton, bytes, held[at - 1].pose, held[at - 1].root, held[at - 2].pose, held[at - 2].root);
      const palette = compact.buildPalette(skeleton, pose);
      if (!palette.every(Number.isFinite) || !compact.dequantizeRoot(root).flat().every(Number.isFinite))
        throw new Error("accepted a frame into a pose that is not finite");
      ++counts.accepted;
    });
    const morphBytes = rand() < 0.5 ? randomBytes(int(24)) : compact.encodeMorphKey(Uint16Array.from({ length: 1 + int(9) }, () => int(4096)));
    const mutatedMorphs = rand() < 0.5 ? mutate(morphBytes) : morphBytes;
    ++counts.morphs;
    check("decodeMorphs", mutatedMorphs, () => {
      const q = compact.decodeMorphs(mutatedMorphs, rand() < 0.5 ? null : Uint16Array.from({ length: 1 + int(9) }, () => int(4096)));
      if (!q.every((v) => v >= 0 && v <= 4095)) throw new Error("a morph weight out of range");
    });
    ++counts.stream;
    const frame = { tick: tick++, characters: [{ character_id: 1 + int(3), asset: "builtin", compact: rand() < 0.3 ? frames[int(frames.length)] : bytes,
      compact_morphs: rand() < 0.3 ? mutatedMorphs : new Uint8Array(0), baseline_ticks_skipped: int(2) }] };
    check("StreamDecoder", bytes, () => {
      for (const s of stream.decode(frame).samples)
        if (!s.palette.every(Number.isFinite)) throw new Error("the stream decoder gave a palette that is not finite");
    });
    const message = randomBytes(int(96));
    ++counts.messages;
    try {
      protocol.decodeServerMessage(message);
    } catch (e) {
      if (!(e instanceof Error)) throw e;  // protobuf.js refuses with an Error
    }
  }
}
console.log(`fuzz: seed ${firstSeed}, ${seconds} s: ${JSON.stringify(counts)}`);
if (counts.accepted === 0 || counts.frames < 1000) {
  console.error("fuzz: too few inputs, or none accepted (the mutations are not reaching the decoder)");
  process.exit(1);
}
