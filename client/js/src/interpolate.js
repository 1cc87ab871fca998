// Drawing between the last two samples of a character: palette entries and morph weights
// component-wise, root translation and scale linearly, root rotation normalized-linearly
// along the shorter way. A sample is {palette, root: [t, r (x, y, z, w), s], morphWeights}.

import { trsMatrix } from "./compact.js";

export function blendSamples(a, b, alpha) {
  if (!a || a === b || alpha >= 1 || a.palette.length !== b.palette.length) return b;
  const palette = new Float32Array(b.palette.length);
  for (let i = 0; i < palette.length; ++i) palette[i] = a.palette[i] + (b.palette[i] - a.palette[i]) * alpha;
  const lerp = (x, y) => x.map((v, i) => v + (y[i] - v) * alpha);
  const dot = a.root[1].reduce((s, v, i) => s + v * b.root[1][i], 0);
  const rb = dot < 0 ? b.root[1].map((v) => -v) : b.root[1];
  let r = lerp(a.root[1], rb);
  const n = Math.hypot(...r) || 1;
  r = r.map((v) => v / n);
  let morphWeights = b.morphWeights;
  if (a.morphWeights.length === b.morphWeights.length)
    morphWeights = b.morphWeights.map((w, i) => a.morphWeights[i] + (w - a.morphWeights[i]) * alpha);
  return { ...b, palette, root: [lerp(a.root[0], b.root[0]), r, lerp(a.root[2], b.root[2])], morphWeights };
}

// The root [t, r, s] as a column-major 4x4 (T * R * S).
export function rootMatrix(root) {
  return trsMatrix(root[0], root[1], root[2]);
}
