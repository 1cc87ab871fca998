// Driver of tests/codec/morph_cross_language_test.cpp on the JavaScript side (node): decodes
// the C++ codec's compact_morphs cases with web/compact.js (and encodes the result again) and
// quantizes the given weights; prints the outcome as JSON, as morph_cross_language.py does.
//
//   node morph_cross_language.mjs <compact.js as an .mjs file> spec.json

import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const compact = await import(pathToFileURL(process.argv[2]).href);
const spec = JSON.parse(readFileSync(process.argv[3], "utf8"));
const hex = (bytes) => Buffer.from(bytes).toString("hex");

function decodeCase(c) {
  const bytes = Uint8Array.from(Buffer.from(c.bytes, "hex"));
  let q;
  try {
    q = compact.decodeMorphs(bytes, c.baseline);
  } catch (e) {
    if (!(e instanceof compact.CompactError)) throw e;
    return { ok: false, error: e.message };
  }
  const out = { ok: true, q: Array.from(q), w: Array.from(compact.dequantizeMorphs(q)) };
  if (q.length > 0) out.key = hex(compact.encodeMorphKey(q));
  if (q.length > 0 && c.baseline.length === q.length) out.delta = hex(compact.encodeMorphDelta(q, c.baseline));
  return out;
}

process.stdout.write(JSON.stringify({
  cases: spec.cases.map(decodeCase),
  quantized: spec.weights.map((w) => compact.quantizeMorphWeight(Number(w))),
}));
