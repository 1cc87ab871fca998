// Types of compact.js: ENCODING_COMPACT decoding (docs/protocol.md, "Compact encoding").

export const KEY: 0;
export const DELTA1: 1;
export const DELTA2: 2;
export const MORPH_KEY: 0;
export const MORPH_DELTA: 1;
export const MAX_MORPH_TARGETS: 4096;

/** A frame or skeleton the decoder refuses; the message names the problem. */
export class CompactError extends Error {}

type Vec3Message = { x?: number; y?: number; z?: number } | null | undefined;
type QuatMessage = { x?: number; y?: number; z?: number; w?: number } | null | undefined;

/** get_asset_data's SkeletonData as protobuf.js decodes it (field names as in the .proto). */
export interface SkeletonData {
  joint_names: string[];
  parents: number[];
  rest_pose: { translation?: Vec3Message; rotation?: QuatMessage; scale?: Vec3Message }[];
  inverse_bind: ArrayLike<number>;
  root_transform: ArrayLike<number>;
  compact_precision: Uint8Array;
  compact_skeleton_id: number;
}

export class QJoint {
  r: number[];
  largest: number;
  t: number[];
  s: number[];
}

export class QRoot {
  t: number[];
  r: number[];
  largest: number;
  s: number[];
}

/** What decoding and palettes need of a SkeletonData; the constructor checks it. */
export class Skeleton {
  constructor(data: SkeletonData);
  readonly id: number;
  readonly numJoints: number;
  parents: number[];
}

export function rotationLimit(bits: number): number;
export function quantizeRotationExact(x: number, y: number, z: number, w: number, bits: number): [number[], number];
/** [kind, skeleton id, joint count]; the last two are 0 for deltas. */
export function readHeader(bytes: Uint8Array): [number, number, number];
/** One frame decoded against the frames held (prev1 the newest). */
export function decodeFrame(
  skeleton: Skeleton,
  bytes: Uint8Array,
  prev1?: QJoint[] | null,
  root1?: QRoot | null,
  prev2?: QJoint[] | null,
  root2?: QRoot | null,
): [QJoint[], QRoot];
export function dequantizeRotation(r: number[], largest: number, bits: number): number[];
/** [translation, rotation (x, y, z, w), scale] in world space. */
export function dequantizeRoot(q: QRoot): [number[], number[], number[]];
/** Column-major 4x4 of T * R * S. */
export function trsMatrix(t: ArrayLike<number>, r: ArrayLike<number>, s: ArrayLike<number>): number[];
/** 12 floats a joint: the top three rows of each skin matrix, row-major. */
export function buildPalette(skeleton: Skeleton, pose: QJoint[], out?: Float32Array): Float32Array;

export function quantizeMorphWeight(w: number): number;
export function dequantizeMorphWeight(q: number): number;
export function dequantizeMorphs(q: ArrayLike<number>): Float32Array;
export function encodeMorphKey(q: ArrayLike<number>): Uint8Array;
export function encodeMorphDelta(q: ArrayLike<number>, baseline: ArrayLike<number>): Uint8Array;
/** Quantized weights (0..4095 each) of compact_morphs against the newest frame's. */
export function decodeMorphs(bytes: Uint8Array | null | undefined, baseline?: ArrayLike<number> | null): Uint16Array;
