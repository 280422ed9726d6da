/**
 * Pocket TTS graphs with random weights (graph contracts: docs/tts.md):
 * - `flow_lm_main`: the KAE contract — `sequence` [1, S∈{0,1}, 32] (NaN = BOS), `text_embeddings` [1, T, 1024],
 *   per layer `state_{3l}` cache [2, 1, 1000, heads, 64] / `state_{3l+1}` current_end [0] / `state_{3l+2}` step int64
 *   [1] → `conditioning` [1, 1024], `eos_logit` [1, 1], `out_state_i`. Six pre-LayerNorm layers (d 1024, 16 heads,
 *   FFN 4096, GELU), rotary positions from `step`, the new K/V written into the static cache at `step`
 *   (ScatterElements), attention over the filled prefix only (a dynamic Slice, so the NaN tail is never read).
 * - `flow_lm_flow`: SimpleMLPAdaLN — two timestep embedders, condition projection, 6 AdaLN residual blocks of width
 *   512, final AdaLN layer → `flow_dir` [B, 32].
 * - `mimi_decoder`: a Mimi-decoder-shaped streaming frame decoder (13 states, not the 56 of the real export):
 *   latent de-normalisation, 32→512, depthwise ×16 transposed-conv upsample, a 2-layer transformer (d 512, 8 heads,
 *   context 250, FFN 2048, layer scale), SEANet decoder (conv k7, ratios 6·5·4 with transposed convs and residual
 *   units, ELU, final conv) → `audio_frame` [1, 1, 1920·N]. ~10.5 M parameters, like the real decoder's ~42 MB fp32.
 * Linear layers are fp32/fp16 MatMul, or int8 dynamic quantisation (the `*_int8.onnx` files) for WASM.
 */
import type { StateEntry } from '../../core/tts/bundle-manifest';
import type { DType } from '../../tests/fixtures/onnx/builder';
import { G, type Act, type GraphFiles, type LinearFormat } from './onnx-graph';

export interface PocketShape {
  d: number;
  layers: number;
  heads: number;
  ff: number;
  cache: number;
  latent: number;
  flowWidth: number;
  flowDepth: number;
  /** Mimi: transformer width/heads/context, SEANet base channels (multiplied 8·, 4·, 2·, 1·). */
  mimiD: number;
  mimiHeads: number;
  mimiContext: number;
  mimiFilters: number;
}

export const POCKET_FULL: PocketShape = {
  d: 1024,
  layers: 6,
  heads: 16,
  ff: 4096,
  cache: 1000,
  latent: 32,
  flowWidth: 512,
  flowDepth: 6,
  mimiD: 512,
  mimiHeads: 8,
  mimiContext: 250,
  mimiFilters: 64,
};

export const POCKET_TINY: PocketShape = {
  d: 64,
  layers: 2,
  heads: 4,
  ff: 128,
  cache: 64,
  latent: 32,
  flowWidth: 32,
  flowDepth: 2,
  mimiD: 32,
  mimiHeads: 2,
  mimiContext: 8,
  mimiFilters: 8,
};

export type PocketDtype = 'fp32' | 'fp16' | 'int8';

function fmtOf(dtype: PocketDtype): { act: Act; fmt: LinearFormat } {
  return { act: dtype === 'fp16' ? 'float16' : 'float32', fmt: dtype === 'int8' ? 'int8' : 'float' };
}

export interface StateSpec {
  name: string;
  out: string;
  dtype: DType;
  dims: number[];
  fill: 'nan' | 'zeros' | 'step';
}

export interface PocketGraph extends GraphFiles {
  states: StateSpec[];
}

/** flow_lm_main. */
export function buildFlowLmMain(p: PocketShape, dtype: PocketDtype, seed = 11): PocketGraph {
  const { act, fmt } = fmtOf(dtype);
  const g = new G({ name: 'flow_lm_main', act, seed });
  const { d, heads, ff, cache, latent } = p;
  const hd = d / heads;
  g.input('sequence', act, [1, 'seq_len', latent]);
  g.input('text_embeddings', act, [1, 'text_len', d]);
  const states: StateSpec[] = [];
  for (let l = 0; l < p.layers; l++) {
    states.push({ name: `state_${3 * l}`, out: `out_state_${3 * l}`, dtype: act, dims: [2, 1, cache, heads, hd], fill: 'nan' });
    states.push({ name: `state_${3 * l + 1}`, out: `out_state_${3 * l + 1}`, dtype: act, dims: [0], fill: 'zeros' });
    states.push({ name: `state_${3 * l + 2}`, out: `out_state_${3 * l + 2}`, dtype: 'int64', dims: [1], fill: 'step' });
  }
  for (const s of states) g.input(s.name, s.dtype, s.dims);

  const bos = g.randn([latent], 1);
  const seq = g.op('Where', [g.op('IsNaN', ['sequence']), bos, 'sequence']);
  const inLin = g.linear(seq, latent, d, fmt);
  let x = g.op('Concat', ['text_embeddings', inLin], { axis: 1 }); // [1, L, d]
  const L = g.dim(x, 1);
  const range = g.op('Range', [g.i64([0], []), g.op('Squeeze', [L, g.i64([0])]), g.i64([1], [])]); // [L]

  for (let l = 0; l < p.layers; l++) {
    const step = `state_${3 * l + 2}`;
    const posI = g.op('Add', [range, step]); // [L] int64
    const pos = g.op('Cast', [posI], { to: act === 'float16' ? 10 : 1 });
    const h = g.layerNorm(x, d);
    const qkv = g.reshape(g.linear(h, d, 3 * d, fmt), [1, -1, 3, heads, hd]);
    const [q0, k0, v0] = g.opN('Split', [qkv, g.i64([1, 1, 1])], 3, { axis: 2 });
    const sq = (t: string) => g.op('Squeeze', [t, g.i64([2])]); // [1, L, h, hd]
    const q = g.rope(sq(q0!), pos, hd, hd, 10000);
    const k = g.rope(sq(k0!), pos, hd, hd, 10000);
    const v = sq(v0!);
    const kvNew = g.op('Concat', [g.op('Unsqueeze', [k, g.i64([0])]), g.op('Unsqueeze', [v, g.i64([0])])], { axis: 0 }); // [2,1,L,h,hd]
    const idxShape = g.op('Concat', [g.i64([2, 1]), L, g.i64([heads, hd])], { axis: 0 });
    const idx = g.op('Expand', [g.reshape(posI, [1, 1, -1, 1, 1]), idxShape]);
    const cacheNew = g.op('ScatterElements', [`state_${3 * l}`, idx, kvNew], { axis: 2 }, `out_state_${3 * l}`);
    const end = g.op('Add', [step, L]);
    g.op('Identity', [end], {}, `out_state_${3 * l + 2}`);
    g.op('Identity', [`state_${3 * l + 1}`], {}, `out_state_${3 * l + 1}`);
    const filled = g.op('Slice', [cacheNew, g.i64([0]), end, g.i64([2])]); // [2,1,end,h,hd]
    const K = g.transpose(g.op('Gather', [filled, g.i64([0], [])], { axis: 0 }), [0, 2, 1, 3]); // [1,h,end,hd]
    const V = g.transpose(g.op('Gather', [filled, g.i64([1], [])], { axis: 0 }), [0, 2, 1, 3]);
    // Causal mask over the filled prefix: key position ≤ query position.
    const keyPos = g.op('Range', [g.i64([0], []), g.op('Squeeze', [end, g.i64([0])]), g.i64([1], [])]);
    const allowed = g.op('LessOrEqual', [g.op('Unsqueeze', [keyPos, g.i64([0])]), g.op('Unsqueeze', [posI, g.i64([1])])]); // [L, end]
    const mask = g.op('Where', [allowed, g.f([0]), g.f([act === 'float16' ? -65000 : -1e9])]);
    const att = g.attention(g.transpose(q, [0, 2, 1, 3]), K, V, hd, mask); // [1,h,L,hd]
    const merged = g.reshape(g.transpose(att, [0, 2, 1, 3]), [1, -1, d]);
    x = g.op('Add', [x, g.linear(merged, d, d, fmt)]);
    const h2 = g.layerNorm(x, d);
    x = g.op('Add', [x, g.linear(g.gelu(g.linear(h2, d, ff, fmt)), ff, d, fmt)]);
  }
  const out = g.layerNorm(x, d);
  const last = g.reshape(g.op('Gather', [out, g.i64([-1], [])], { axis: 1 }), [1, d]);
  g.op('Identity', [last], {}, 'conditioning');
  g.op('Add', [g.linear(last, d, 1, 'float'), g.f([-6])], {}, 'eos_logit');
  g.output('conditioning', act, [1, d]);
  g.output('eos_logit', act, [1, 1]);
  for (const s of states) g.output(s.out, s.dtype, s.dims);
  return { ...g.build(), states };
}

/** flow_lm_flow (one LSD step: x + v(s, t, x) is done by the caller). */
export function buildFlowLmFlow(p: PocketShape, dtype: PocketDtype, seed = 12): PocketGraph {
  const { act, fmt } = fmtOf(dtype);
  const g = new G({ name: 'flow_lm_flow', act, seed });
  const W = p.flowWidth;
  g.input('c', act, ['B', p.d]);
  g.input('s', act, ['B', 1]);
  g.input('t', act, ['B', 1]);
  g.input('x', act, ['B', p.latent]);
  const lin = (x: string, K: number, N: number) => g.linear(x, K, N, fmt, { bias: true });
  const half = 128;
  const freqs = Array.from({ length: half }, (_, i) => Math.exp((-Math.log(10000) * i) / half));
  const temb = (t: string) => {
    const args = g.op('Mul', [t, g.f(freqs, [1, half])]);
    const e = g.op('Concat', [g.op('Cos', [args]), g.op('Sin', [args])], { axis: 1 });
    return lin(g.silu(lin(e, 2 * half, W)), W, W);
  };
  const tEmb = g.op('Mul', [g.op('Add', [temb('s'), temb('t')]), g.f([0.5])]);
  const y = g.op('Add', [tEmb, lin('c', p.d, W)]);
  const sy = g.silu(y);
  let h = lin('x', p.latent, W);
  const adaNorm = (x: string, shift: string, scale: string) =>
    g.op('Add', [g.op('Mul', [g.layerNorm(x, W, 1e-6), g.op('Add', [scale, g.f([1])])]), shift]);
  for (let i = 0; i < p.flowDepth; i++) {
    const [shift, scale, gate] = g.opN('Split', [lin(sy, W, 3 * W), g.i64([W, W, W])], 3, { axis: 1 });
    const m = lin(g.silu(lin(adaNorm(h, shift!, scale!), W, W)), W, W);
    h = g.op('Add', [h, g.op('Mul', [gate!, m])]);
  }
  const [shift, scale] = g.opN('Split', [lin(sy, W, 2 * W), g.i64([W, W])], 2, { axis: 1 });
  g.op('Identity', [lin(adaNorm(h, shift!, scale!), W, p.latent)], {}, 'flow_dir');
  g.output('flow_dir', act, ['B', p.latent]);
  return { ...g.build(), states: [] };
}

/** A Mimi-decoder-shaped streaming frame decoder. */
export function buildMimiDecoder(p: PocketShape, dtype: PocketDtype, seed = 13): PocketGraph {
  const { act, fmt } = fmtOf(dtype);
  const g = new G({ name: 'mimi_decoder', act, seed });
  const D = p.mimiD;
  const hd = D / p.mimiHeads;
  g.input('latent', act, [1, 'N', p.latent]);
  const states: StateSpec[] = [];
  const state = (dims: number[]): [string, string] => {
    const i = states.length;
    states.push({ name: `state_${i}`, out: `out_state_${i}`, dtype: act, dims, fill: 'zeros' });
    return [`state_${i}`, `out_state_${i}`];
  };
  const MAX = Number.MAX_SAFE_INTEGER;
  const streamConv = (x: string, cin: number, cout: number, k: number) => {
    const [sIn, sOut] = state([1, cin, k - 1]);
    const inp = g.op('Concat', [sIn, x], { axis: 2 });
    g.op('Slice', [inp, g.i64([-(k - 1)]), g.i64([MAX]), g.i64([2])], {}, sOut);
    return g.op('Conv', [inp, g.randn([cout, cin, k], 1 / Math.sqrt(cin * k)), g.randn([cout], 0.01)], { kernel_shape: [k] });
  };
  const streamConvT = (x: string, cin: number, cout: number, stride: number, k: number, group = 1) => {
    const over = k - stride;
    const [sIn, sOut] = state([1, cout, over]);
    const y = g.op('ConvTranspose', [x, g.randn([cin, cout / group, k], 1 / Math.sqrt((cin / group) * (k / stride)))], {
      kernel_shape: [k],
      strides: [stride],
      group,
    });
    const T = g.op('Mul', [g.dim(x, 2), g.i64([stride])]); // valid length T·stride
    const head = g.op('Add', [g.op('Slice', [y, g.i64([0]), g.i64([over]), g.i64([2])]), sIn]);
    const mid = g.op('Slice', [y, g.i64([over]), T, g.i64([2])]);
    g.op('Slice', [y, T, g.i64([MAX]), g.i64([2])], {}, sOut);
    return g.op('Concat', [head, mid], { axis: 2 });
  };
  // De-normalise, project 32 → D, upsample ×16 (depthwise transposed conv).
  const z = g.op('Add', [g.op('Mul', ['latent', g.randn([p.latent], 0.1, act, 1)]), g.randn([p.latent], 0.1)]);
  let x = g.op('Conv', [g.transpose(z, [0, 2, 1]), g.randn([D, p.latent, 1], 1 / Math.sqrt(p.latent))], { kernel_shape: [1] });
  x = streamConvT(x, D, D, 16, 32, D);
  // Decoder transformer over the 16·N new steps with a fixed-context KV state.
  let t = g.transpose(x, [0, 2, 1]); // [1, 16N, D]
  for (let l = 0; l < 2; l++) {
    const [kIn, kOut] = state([1, p.mimiHeads, p.mimiContext, hd]);
    const [vIn, vOut] = state([1, p.mimiHeads, p.mimiContext, hd]);
    const h = g.layerNorm(t, D);
    const qkv = g.reshape(g.linear(h, D, 3 * D, fmt), [1, -1, 3, p.mimiHeads, hd]);
    const [q0, k0, v0] = g.opN('Split', [qkv, g.i64([1, 1, 1])], 3, { axis: 2 });
    const heads = (s: string) => g.transpose(g.op('Squeeze', [s, g.i64([2])]), [0, 2, 1, 3]); // [1,h,16N,hd]
    const k = g.op('Concat', [kIn, heads(k0!)], { axis: 2 });
    const v = g.op('Concat', [vIn, heads(v0!)], { axis: 2 });
    g.op('Slice', [k, g.i64([-p.mimiContext]), g.i64([MAX]), g.i64([2])], {}, kOut);
    g.op('Slice', [v, g.i64([-p.mimiContext]), g.i64([MAX]), g.i64([2])], {}, vOut);
    const att = g.reshape(g.transpose(g.attention(heads(q0!), k, v, hd), [0, 2, 1, 3]), [1, -1, D]);
    t = g.op('Add', [t, g.op('Mul', [g.linear(att, D, D, fmt), g.f([0.01])])]);
    const h2 = g.layerNorm(t, D);
    t = g.op('Add', [t, g.op('Mul', [g.linear(g.gelu(g.linear(h2, D, 4 * D, fmt)), 4 * D, D, fmt), g.f([0.01])])]);
  }
  x = g.transpose(t, [0, 2, 1]); // [1, D, 16N]
  // SEANet decoder.
  const F = p.mimiFilters;
  x = streamConv(x, D, 8 * F, 7);
  let C = 8 * F;
  for (const r of [6, 5, 4]) {
    x = streamConvT(g.op('Elu', [x]), C, C / 2, r, 2 * r);
    C = C / 2;
    const res = g.op(
      'Conv',
      [
        g.op('Elu', [streamConv(g.op('Elu', [x]), C, C / 2, 3)]),
        g.randn([C, C / 2, 1], 1 / Math.sqrt(C / 2)),
        g.randn([C], 0.01),
      ],
      { kernel_shape: [1] },
    );
    x = g.op('Add', [x, res]);
  }
  const audio = streamConv(g.op('Elu', [x]), C, 1, 3);
  g.op('Tanh', [audio], {}, 'audio_frame');
  g.output('audio_frame', act, [1, 1, 'samples']);
  for (const s of states) {
    g.input(s.name, s.dtype, s.dims);
    g.output(s.out, s.dtype, s.dims);
  }
  return { ...g.build(), states };
}

/** The decoder graph's states as bundle.json describes states (index order, zero-filled, threaded in → out). */
export function mimiManifestOf(graph: PocketGraph): StateEntry[] {
  return graph.states.map((s, index) => ({
    module: `decoder.state${index}`,
    key: 'buffer',
    path: `decoder.state${index}/buffer`,
    dtype: 'float32',
    shape: s.dims,
    fill: s.dims.some((d) => d === 0) ? 'empty' : 'zeros',
    index,
    input_name: s.name,
    output_name: s.out,
  }));
}
