// Types of animd-client's main entry (index.js). Messages are protobuf.js objects with the
// .proto field names (snake_case); uint64 fields are numbers or Longs (see toNumber).
import type { SkeletonData } from "./compact.js";

export * as compact from "./compact.js";
export { CompactError } from "./compact.js";

export class MorphError extends Error {}

/** The character's root [translation, rotation (x, y, z, w), scale]. */
export type RootParts = [number[], number[], number[]];

/** One character at one frame: what a renderer needs. */
export interface Sample {
  characterId: number;
  asset: string;
  tick: number;
  /** 12 floats a joint: top three rows of each skin matrix, row-major. */
  palette: Float32Array;
  root: RootParts;
  /** One per morph target; empty without targets. */
  morphWeights: Float32Array | number[];
  /** When it arrived, seconds (performance.now() / 1000). */
  time?: number;
}

export interface DecodedFrame {
  tick: number;
  samples: Sample[];
  errors: { characterId: number; message: string }[];
  removed: number[];
}

export interface AssetData {
  info?: { name: string; num_joints?: number; num_vertices?: number } | null;
  skeleton: SkeletonData;
  mesh?: { num_vertices: number; [field: string]: unknown } | null;
}

export type Request = Record<string, unknown>;
export type Reply = { request_id: unknown; tick: unknown; [result: string]: any };

export class Protocol {
  root: any;
  encodeRequest(fields: Request): Uint8Array;
  decodeServerMessage(bytes: Uint8Array | ArrayBuffer): any;
  statusName(code: number): string;
}
export function loadProtocol(protobuf?: unknown): Promise<Protocol>;
export function toNumber(v: unknown): number;

type Listener = (...args: any[]) => void;
declare class Emitter {
  /** Adds a listener; returns the function that removes it. */
  on(name: string, fn: Listener): () => void;
}

export class AnimdError extends Error {
  /** StatusCode number; -1 for DISCONNECTED and TIMEOUT. */
  code: number;
  /** "STATUS_NOT_FOUND", ..., "DISCONNECTED", "TIMEOUT". */
  codeName: string;
  requestId: number;
}

export interface ClientOptions {
  token?: string;
  /** The WebSocket class (default: the global one; Node < 22 needs one passed, e.g. ws). */
  WebSocket?: unknown;
  /** protobuf.js (default: the global `protobuf`, else the protobufjs dependency). */
  protobuf?: unknown;
  /** Open the connection again after a drop (default true), after min..max ms, doubling. */
  reconnect?: boolean;
  minDelayMs?: number;
  maxDelayMs?: number;
  requestTimeoutMs?: number;
}

export interface Region {
  sphere?: { center: { x?: number; y?: number; z?: number }; radius: number };
  box?: { min: { x?: number; y?: number; z?: number }; max: { x?: number; y?: number; z?: number } };
  outer_margin?: number;
  outer_rate_divisor?: number;
}

/** Where the page's camera looks from (anim.v1.Camera): significance only, never what is streamed. */
export interface Camera {
  eye: { x?: number; y?: number; z?: number };
  forward: { x?: number; y?: number; z?: number };
  vertical_fov: number;
  aspect: number;
}

export interface SubscribeOptions {
  all?: boolean;
  characters?: number[];
  region?: Region;
  camera?: Camera;
  encoding?: "compact" | "float";
  rateDivisor?: number;
  events?: boolean | { min_weight?: number };
}

export class Character {
  readonly id: number;
  asset: string;
  tick: number;
  a: Sample | null;
  b: Sample | null;
  /** Between the last two samples at `now` (seconds); null before the first. */
  sample(now: number, frameSeconds: number): Sample | null;
}

/** Events: frame, character, removed, event, decode-error, ended, error. */
export class Subscription extends Emitter {
  readonly client: AnimdClient;
  id: number;
  characters: Map<number, Character>;
  readonly frameSeconds: number;
  setRegion(region: Region): Promise<void>;
  /** Replaces the subscription's camera; null removes it. */
  setCamera(camera: Camera | null): Promise<void>;
  unsubscribe(): Promise<void>;
}

/** Events: open, close ({code, reason, retryInMs}), characters-moved, error. */
export class AnimdClient extends Emitter {
  constructor(url: string, options?: ClientOptions);
  readonly url: string;
  connected: boolean;
  tickSeconds: number;
  opened(): Promise<AnimdClient>;
  /** Resolves with the Reply (result under the command's name); rejects with AnimdError. */
  request(fields: Request): Promise<Reply>;
  subscribe(options?: SubscribeOptions): Promise<Subscription>;
  assetData(asset: string, refresh?: boolean): Promise<AssetData>;
  close(): void;
}

export function connect(url: string, options?: ClientOptions): Promise<AnimdClient>;
export function defaultEndpoint(location?: { protocol: string; host: string }): string;

export class StreamDecoder {
  constructor(skeletonFor: (asset: string) => import("./compact.js").Skeleton | null | undefined);
  missingAsset(frame: any, except?: Set<string>): string | null;
  decode(frame: any): DecodedFrame;
}
export function transformParts(t: unknown): RootParts;
export function blendSamples(a: Sample | null, b: Sample, alpha: number): Sample;
export function rootMatrix(root: RootParts): number[];
