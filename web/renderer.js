// WebGL2 drawing for the web viewer: GPU skinning with every character's palette in one
// float texture (one texel row per character: joint j's three matrix rows at texels 3j ..
// 3j+2, RGBA32F, read with texelFetch), an orbit camera, and a ground grid.
//
// A vertex is drawn at root x palette[j] x vertex (docs/protocol.md, "Spaces"), blended over
// its four joints; the palette maps the bind-pose mesh of get_asset_data into the asset's
// scene space and the root places it in the world (Y up, metres).
//
// Morph targets (MeshData.morph_sets) are applied before skinning, on the GPU, by a second
// variant of the skin program that only meshes with targets use: each vertex a target moves
// owns a run of entries (attribute a_morph: first entry, count), an entry is two RGBA32F
// texels of the mesh's delta texture, (position delta, flat target index) and (normal delta,
// 0), MORPH_TEXTURE_WIDTH texels a row; the weights (one per target, the flat order of
// AssetInfo.morph_targets) are one R32F row per drawn character, like the palettes. Weights
// are the item's morphWeights when it has one per target, else the mesh's defaults.

import { decodeMorphSets, defaultMorphWeights, packMorphs } from "./morph.js";

export const MORPH_TEXTURE_WIDTH = 2048;

const SKIN_VS_BODY = `
layout(location = 0) in vec3 a_position;
layout(location = 1) in vec3 a_normal;
layout(location = 2) in uvec4 a_joints;
layout(location = 3) in vec4 a_weights;
uniform highp sampler2D u_palette;
uniform int u_row;
uniform mat4 u_root;
uniform mat4 u_view_proj;
#ifdef MORPH
layout(location = 4) in uvec2 a_morph;
uniform highp sampler2D u_morph_deltas;
uniform highp sampler2D u_morph_weights;
#endif
out vec3 v_normal;
mat4 joint_matrix(uint j) {
  int x = int(j) * 3;
  vec4 r0 = texelFetch(u_palette, ivec2(x, u_row), 0);
  vec4 r1 = texelFetch(u_palette, ivec2(x + 1, u_row), 0);
  vec4 r2 = texelFetch(u_palette, ivec2(x + 2, u_row), 0);
  return transpose(mat4(r0, r1, r2, vec4(0.0, 0.0, 0.0, 1.0)));
}
#ifdef MORPH
vec4 morph_texel(int i) {
  return texelFetch(u_morph_deltas, ivec2(i % ${MORPH_TEXTURE_WIDTH}, i / ${MORPH_TEXTURE_WIDTH}), 0);
}
#endif
void main() {
  vec3 position = a_position;
  vec3 normal = a_normal;
#ifdef MORPH
  vec3 normal_sum = a_normal;
  for (uint e = 0u; e < a_morph.y; ++e) {
    int texel = int(a_morph.x + e) * 2;
    vec4 delta = morph_texel(texel);
    float w = texelFetch(u_morph_weights, ivec2(int(delta.w), u_row), 0).r;
    if (w == 0.0) continue;
    position += w * delta.xyz;
    normal_sum += w * morph_texel(texel + 1).xyz;
  }
  if (dot(normal_sum, normal_sum) > 0.0) normal = normalize(normal_sum);
#endif
  mat4 skin = a_weights.x * joint_matrix(a_joints.x) + a_weights.y * joint_matrix(a_joints.y) +
              a_weights.z * joint_matrix(a_joints.z) + a_weights.w * joint_matrix(a_joints.w);
  mat4 world = u_root * skin;
  v_normal = mat3(world) * normal;
  gl_Position = u_view_proj * world * vec4(position, 1.0);
}`;

const SKIN_VS = "#version 300 es" + SKIN_VS_BODY;
const SKIN_MORPH_VS = "#version 300 es\n#define MORPH 1" + SKIN_VS_BODY;

const SKIN_FS = `#version 300 es
precision highp float;
in vec3 v_normal;
uniform vec3 u_color;
out vec4 o_color;
void main() {
  vec3 n = normalize(v_normal);
  float light = 0.35 + 0.65 * max(dot(n, normalize(vec3(0.4, 0.9, 0.5))), 0.0);
  o_color = vec4(u_color * light, 1.0);
}`;

const GRID_VS = `#version 300 es
layout(location = 0) in vec3 a_position;
uniform mat4 u_view_proj;
void main() { gl_Position = u_view_proj * vec4(a_position, 1.0); }`;

const GRID_FS = `#version 300 es
precision mediump float;
out vec4 o_color;
void main() { o_color = vec4(0.32, 0.34, 0.38, 1.0); }`;

const COLORS = [[0.85, 0.55, 0.3], [0.35, 0.6, 0.85], [0.5, 0.8, 0.4], [0.85, 0.4, 0.55],
  [0.75, 0.7, 0.35], [0.55, 0.45, 0.85]];

function compile(gl, vs, fs) {
  const program = gl.createProgram();
  for (const [type, src] of [[gl.VERTEX_SHADER, vs], [gl.FRAGMENT_SHADER, fs]]) {
    const s = gl.createShader(type);
    gl.shaderSource(s, src);
    gl.compileShader(s);
    if (!gl.getShaderParameter(s, gl.COMPILE_STATUS)) throw new Error("shader: " + gl.getShaderInfoLog(s));
    gl.attachShader(program, s);
  }
  gl.linkProgram(program);
  if (!gl.getProgramParameter(program, gl.LINK_STATUS)) throw new Error("program: " + gl.getProgramInfoLog(program));
  return program;
}

// ---- small column-major 4x4 helpers ----

export function multiply(a, b) {
  const out = new Float32Array(16);
  for (let c = 0; c < 4; ++c)
    for (let r = 0; r < 4; ++r) {
      let s = 0;
      for (let k = 0; k < 4; ++k) s += a[4 * k + r] * b[4 * c + k];
      out[4 * c + r] = s;
    }
  return out;
}

function perspective(fovy, aspect, near, far) {
  const f = 1 / Math.tan(fovy / 2);
  const m = new Float32Array(16);
  m[0] = f / aspect;
  m[5] = f;
  m[10] = (far + near) / (near - far);
  m[11] = -1;
  m[14] = (2 * far * near) / (near - far);
  return m;
}

function lookAt(eye, target, up) {
  const sub = (a, b) => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
  const norm = (v) => {
    const l = Math.hypot(...v) || 1;
    return v.map((x) => x / l);
  };
  const crossv = (a, b) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
  const dot = (a, b) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
  const f = norm(sub(target, eye));
  const s = norm(crossv(f, up));
  const u = crossv(s, f);
  return new Float32Array([s[0], u[0], -f[0], 0, s[1], u[1], -f[1], 0, s[2], u[2], -f[2], 0,
    -dot(s, eye), -dot(u, eye), dot(f, eye), 1]);
}

// Orbit camera around `target`: yaw/pitch in radians, distance in metres.
export class OrbitCamera {
  constructor() {
    this.yaw = 0.6;
    this.pitch = 0.25;
    this.distance = 4;
    this.target = [0, 1, 0];
    this.userMoved = false;  // until then the viewer frames the characters by itself
  }
  eye() {
    const cp = Math.cos(this.pitch);
    return [this.target[0] + this.distance * cp * Math.sin(this.yaw),
      this.target[1] + this.distance * Math.sin(this.pitch),
      this.target[2] + this.distance * cp * Math.cos(this.yaw)];
  }
  viewProj(aspect) {
    const near = Math.max(0.01, this.distance / 100);
    return multiply(perspective(Math.PI / 4, aspect, near, this.distance * 50 + 100),
      lookAt(this.eye(), this.target, [0, 1, 0]));
  }
  // Mouse: drag orbits, wheel zooms, double click gives the framing back to the viewer.
  attach(canvas) {
    let last = null;
    canvas.addEventListener("pointerdown", (e) => {
      last = [e.clientX, e.clientY];
      canvas.setPointerCapture(e.pointerId);
    });
    canvas.addEventListener("pointerup", () => (last = null));
    canvas.addEventListener("pointermove", (e) => {
      if (!last) return;
      this.yaw -= (e.clientX - last[0]) * 0.008;
      this.pitch = Math.max(-1.5, Math.min(1.5, this.pitch + (e.clientY - last[1]) * 0.008));
      last = [e.clientX, e.clientY];
      this.userMoved = true;
    });
    canvas.addEventListener("wheel", (e) => {
      e.preventDefault();
      this.distance = Math.max(0.2, this.distance * Math.exp(e.deltaY * 0.001));
      this.userMoved = true;
    }, { passive: false });
    canvas.addEventListener("dblclick", () => (this.userMoved = false));
  }
}

export class Renderer {
  constructor(canvas) {
    const gl = canvas.getContext("webgl2", { antialias: true, preserveDrawingBuffer: true });
    if (!gl) throw new Error("this browser has no WebGL2");
    this.gl = gl;
    this.canvas = canvas;
    this.skin = compile(gl, SKIN_VS, SKIN_FS);
    this.skinMorph = compile(gl, SKIN_MORPH_VS, SKIN_FS);
    this.grid = compile(gl, GRID_VS, GRID_FS);
    // Uniform locations per skin program.
    this.u = new Map();
    for (const program of [this.skin, this.skinMorph]) {
      const u = {};
      for (const name of ["u_palette", "u_row", "u_root", "u_view_proj", "u_color", "u_morph_deltas",
        "u_morph_weights"])
        u[name] = gl.getUniformLocation(program, name);
      this.u.set(program, u);
    }
    this.gridViewProj = gl.getUniformLocation(this.grid, "u_view_proj");
    this.paletteTexture = gl.createTexture();
    this.paletteWidth = 0;
    this.paletteRows = 0;
    this.paletteData = new Float32Array(0);
    this.weightTexture = gl.createTexture();
    this.weightWidth = 0;
    this.weightRows = 0;
    this.weightData = new Float32Array(0);
    this.gridVao = this.makeGrid(20, 1);
  }

  makeGrid(half, step) {
    const gl = this.gl;
    const lines = [];
    // Short segments rather than long lines: a line with an end behind the camera is not
    // clipped well by every implementation (SwiftShader drops it).
    for (let i = -half; i <= half; i += step)
      for (let k = -half; k < half; k += step) lines.push(i, 0, k, i, 0, k + step, k, 0, i, k + step, 0, i);
    const vao = gl.createVertexArray();
    gl.bindVertexArray(vao);
    const buf = gl.createBuffer();
    gl.bindBuffer(gl.ARRAY_BUFFER, buf);
    gl.bufferData(gl.ARRAY_BUFFER, new Float32Array(lines), gl.STATIC_DRAW);
    gl.enableVertexAttribArray(0);
    gl.vertexAttribPointer(0, 3, gl.FLOAT, false, 0, 0);
    gl.bindVertexArray(null);
    this.gridCount = lines.length / 3;
    return vao;
  }

  // GPU buffers for an asset's MeshData (get_asset_data). Null for a mesh-less asset. With
  // morph targets: `morph` = {texture, weightCount, defaults}; targets that fail the checks
  // (morph.js) are left out, the mesh drawn without them and `morphError` saying why.
  uploadMesh(mesh) {
    if (!mesh || !mesh.num_vertices || !mesh.indices || mesh.indices.length === 0) return null;
    const gl = this.gl;
    const vao = gl.createVertexArray();
    gl.bindVertexArray(vao);
    const attribute = (bytes, location, size, type, integer) => {
      const buf = gl.createBuffer();
      gl.bindBuffer(gl.ARRAY_BUFFER, buf);
      gl.bufferData(gl.ARRAY_BUFFER, bytes, gl.STATIC_DRAW);
      gl.enableVertexAttribArray(location);
      if (integer) gl.vertexAttribIPointer(location, size, type, 0, 0);
      else gl.vertexAttribPointer(location, size, type, false, 0, 0);
    };
    attribute(mesh.positions, 0, 3, gl.FLOAT, false);
    attribute(mesh.normals, 1, 3, gl.FLOAT, false);
    attribute(mesh.joints, 2, 4, gl.UNSIGNED_SHORT, true);
    attribute(mesh.weights, 3, 4, gl.FLOAT, false);
    const ibuf = gl.createBuffer();
    gl.bindBuffer(gl.ELEMENT_ARRAY_BUFFER, ibuf);
    gl.bufferData(gl.ELEMENT_ARRAY_BUFFER, mesh.indices, gl.STATIC_DRAW);
    const out = { vao, count: mesh.indices.length / 4, morph: null, morphError: "" };
    try {
      out.morph = this.uploadMorphs(mesh, attribute);
    } catch (e) {
      out.morphError = e.message;
    }
    gl.bindVertexArray(null);
    return out;
  }

  // With the mesh's VAO bound: the runs as attribute 4, the entries in an RGBA32F texture.
  uploadMorphs(mesh, attribute) {
    const sets = decodeMorphSets(mesh);
    if (sets.length === 0) return null;
    const packed = packMorphs(sets, mesh.num_vertices);
    if (packed.entries === 0) return null;  // targets that move nothing: drawn exactly without
    const gl = this.gl;
    const texels = 2 * packed.entries;
    const rows = Math.ceil(texels / MORPH_TEXTURE_WIDTH);
    if (rows > gl.getParameter(gl.MAX_TEXTURE_SIZE))
      throw new Error(`its morph targets need ${rows} texture rows, more than this browser allows`);
    const data = new Float32Array(rows * MORPH_TEXTURE_WIDTH * 4);
    data.set(packed.data);
    attribute(packed.runs, 4, 2, gl.UNSIGNED_INT, true);
    const texture = gl.createTexture();
    gl.bindTexture(gl.TEXTURE_2D, texture);
    gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA32F, MORPH_TEXTURE_WIDTH, rows, 0, gl.RGBA, gl.FLOAT, data);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
    const defaults = defaultMorphWeights(sets);
    return { texture, weightCount: defaults.length, defaults };
  }

  // Draws `items`: [{mesh (uploadMesh), palette (Float32Array, 12 per joint), root (16
  // floats, column-major), colorIndex, morphWeights (optional: one per morph target of the
  // mesh, else the mesh's defaults are drawn)}], with the camera.
  draw(items, camera) {
    const gl = this.gl;
    const w = this.canvas.clientWidth || this.canvas.width, h = this.canvas.clientHeight || this.canvas.height;
    if (this.canvas.width !== w || this.canvas.height !== h) {
      this.canvas.width = w;
      this.canvas.height = h;
    }
    gl.viewport(0, 0, this.canvas.width, this.canvas.height);
    gl.clearColor(0.12, 0.13, 0.16, 1);
    gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
    gl.enable(gl.DEPTH_TEST);
    const viewProj = camera.viewProj(this.canvas.width / Math.max(1, this.canvas.height));

    gl.useProgram(this.grid);
    gl.uniformMatrix4fv(this.gridViewProj, false, viewProj);
    gl.bindVertexArray(this.gridVao);
    gl.drawArrays(gl.LINES, 0, this.gridCount);

    const drawn = items.filter((it) => it.mesh);
    if (drawn.length === 0) return 0;
    this.uploadPalettes(drawn);
    const morphed = drawn.some((it) => it.mesh.morph);
    if (morphed) this.uploadWeights(drawn);
    gl.activeTexture(gl.TEXTURE0);
    gl.bindTexture(gl.TEXTURE_2D, this.paletteTexture);
    gl.activeTexture(gl.TEXTURE2);
    gl.bindTexture(gl.TEXTURE_2D, morphed ? this.weightTexture : null);
    for (const program of morphed ? [this.skin, this.skinMorph] : [this.skin]) {
      const u = this.u.get(program);
      gl.useProgram(program);
      gl.uniform1i(u.u_palette, 0);
      gl.uniform1i(u.u_morph_deltas, 1);
      gl.uniform1i(u.u_morph_weights, 2);
      gl.uniformMatrix4fv(u.u_view_proj, false, viewProj);
      drawn.forEach((it, row) => {
        if ((it.mesh.morph !== null) !== (program === this.skinMorph)) return;
        if (it.mesh.morph) {
          gl.activeTexture(gl.TEXTURE1);
          gl.bindTexture(gl.TEXTURE_2D, it.mesh.morph.texture);
        }
        gl.uniform1i(u.u_row, row);
        gl.uniformMatrix4fv(u.u_root, false, it.root);
        gl.uniform3fv(u.u_color, COLORS[it.colorIndex % COLORS.length]);
        gl.bindVertexArray(it.mesh.vao);
        gl.drawElements(gl.TRIANGLES, it.mesh.count, gl.UNSIGNED_INT, 0);
      });
    }
    gl.bindVertexArray(null);
    return drawn.length;
  }

  // One R32F row of morph weights per drawn character (the row of its palette): its own when
  // it has one per target, else its mesh's defaults. Grows like the palette texture.
  uploadWeights(items) {
    const gl = this.gl;
    const width = Math.max(1, ...items.map((it) => (it.mesh.morph ? it.mesh.morph.weightCount : 0)));
    const rows = items.length;
    const grow = width > this.weightWidth || rows > this.weightRows;
    if (grow) {
      this.weightWidth = Math.max(width, this.weightWidth);
      this.weightRows = Math.max(rows, this.weightRows);
      this.weightData = new Float32Array(this.weightWidth * this.weightRows);
    }
    items.forEach((it, row) => {
      const m = it.mesh.morph;
      if (!m) return;
      const own = it.morphWeights && it.morphWeights.length === m.weightCount;
      this.weightData.set(own ? it.morphWeights : m.defaults, row * this.weightWidth);
    });
    gl.activeTexture(gl.TEXTURE2);
    gl.bindTexture(gl.TEXTURE_2D, this.weightTexture);
    if (grow) {
      gl.texImage2D(gl.TEXTURE_2D, 0, gl.R32F, this.weightWidth, this.weightRows, 0, gl.RED, gl.FLOAT,
        this.weightData);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
    } else {
      gl.texSubImage2D(gl.TEXTURE_2D, 0, 0, 0, this.weightWidth, rows, gl.RED, gl.FLOAT, this.weightData);
    }
  }

  // One texel row per drawn character; the texture grows (never shrinks) to fit.
  uploadPalettes(items) {
    const gl = this.gl;
    const width = Math.max(...items.map((it) => it.palette.length / 4));
    const rows = items.length;
    const grow = width > this.paletteWidth || rows > this.paletteRows;
    if (grow) {
      this.paletteWidth = Math.max(width, this.paletteWidth);
      this.paletteRows = Math.max(rows, this.paletteRows);
      this.paletteData = new Float32Array(this.paletteWidth * this.paletteRows * 4);
    }
    items.forEach((it, row) => this.paletteData.set(it.palette, row * this.paletteWidth * 4));
    gl.bindTexture(gl.TEXTURE_2D, this.paletteTexture);
    if (grow) {
      gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA32F, this.paletteWidth, this.paletteRows, 0, gl.RGBA, gl.FLOAT,
        this.paletteData);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
    } else {
      gl.texSubImage2D(gl.TEXTURE_2D, 0, 0, 0, this.paletteWidth, rows, gl.RGBA, gl.FLOAT, this.paletteData);
    }
  }
}
