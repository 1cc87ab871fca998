// Driver of tests/web/js_client_test.cpp's cross-language test: decodes the C++ codec's
// compact frames (chunks.mjs) with the package's decoder, once frame by frame through
// compact.js and once as a stream through StreamDecoder (frames at consecutive ticks), and
// prints, per frame, the quantized pose, root and palette as JSON (the shape the Python
// decoder prints), with the stream's palette beside it.
//
//   node decode-frames.mjs chunks.bin
import * as compact from "../src/compact.js";
import { StreamDecoder } from "../src/stream.js";
import { readChunks } from "./chunks.mjs";

const { skeleton, frames } = await readChunks(process.argv[2]);
const stream = new StreamDecoder(() => skeleton);
let held = [];
const out = frames.map((bytes, f) => {
  const [kind] = compact.readHeader(bytes);
  const two = kind === compact.DELTA2;
  const [pose, root] = kind === compact.KEY ? compact.decodeFrame(skeleton, bytes)
    : compact.decodeFrame(skeleton, bytes, held[0].pose, held[0].root, two ? held[1].pose : null, two ? held[1].root : null);
  held = [{ pose, root }, ...held].slice(0, 2);
  const decoded = stream.decode({ tick: 100 + f, characters: [{ character_id: 7, asset: "builtin", compact: bytes }] });
  if (decoded.errors.length) throw new Error(`stream decoder, frame ${f}: ${decoded.errors[0].message}`);
  return {
    kind,
    joints: pose.map((q) => [q.r, q.largest, q.t, q.s]),
    root: [root.t, root.r, root.largest, root.s],
    palette: Array.from(compact.buildPalette(skeleton, pose)),
    stream_palette: Array.from(decoded.samples[0].palette),
    stream_root: decoded.samples[0].root,
  };
});
process.stdout.write(JSON.stringify(out));
