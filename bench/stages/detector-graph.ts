/**
 * A D-FINE-M-shaped object detector with random weights: the app's webcam detector (models/vision/detector-spec.ts:
 * onnx-community/dfine_m_coco-ONNX, `pixel_values` [1, 3, 640, 640] → `logits` [1, 300, 80], `pred_boxes`
 * [1, 300, 4]). Not the exact architecture; the same sizes, stages and operator mix, so the WebGPU EP sees a graph of
 * the real one's kind (hundreds of Conv dispatches at falling resolution, a small transformer, 300-query decoder):
 * - backbone, HGNetV2-B2 layout: stem (k3 s2, the k2 pair + MaxPool branch, k3 s2, 1×1) to stride 4, then four
 *   stages of HG blocks (a chain of k×k convs, all concatenated, 1×1 squeeze/excite) with depthwise stride-2
 *   downsampling, light blocks (1×1 + depthwise k5) in stages 3–4, residual blocks after the first → strides 8/16/32
 *   with 384/768/1536 channels. Convs carry a bias (BatchNorm folded, as ORT does at load) and ReLU;
 * - hybrid encoder: 1×1 projections to 256, one transformer layer (AIFI: post-norm, 8 heads, FFN 1024, GELU, 2-D
 *   sin-cos positions) on the stride-32 map, a top-down (nearest Resize) and bottom-up (strided conv) fusion with
 *   CSP-ELAN blocks of SiLU convs;
 * - decoder: the three maps flattened to 8400 tokens, encoder head (Linear + LayerNorm, class scores, ReduceMax,
 *   TopK 300, Gather) for query selection with anchor boxes, then 4 layers of self-attention over the queries, cross
 *   attention over all 8400 tokens (the real model samples 3–6 points per level with GridSample instead; full
 *   attention has the same projections and more FLOPs), ReLU FFN, and a distribution box refinement (softmax over
 *   33 bins · integral, D-FINE's FDR) → class logits (Linear) and Sigmoid boxes.
 * 18.3 M parameters and 35.5 GMAC per frame at the full shape (D-FINE-M: ~19.6 M, a 78.6 MB fp32 file, 57 GFLOPs
 * with its sparse attention). fp32 or fp16 throughout; the TopK scores are cast to fp32 (an 8400-element vector) so
 * the same graph runs on every EP.
 * Weights use He scaling (variance 2/fan-in before ReLU) so activations stay O(1) through ~60 convs, in fp16 too.
 */
import { G, toFloat16, type Act, type GraphFiles } from './onnx-graph';

interface HgStage {
  mid: number;
  out: number;
  blocks: number;
  down: boolean;
  light: boolean;
  k: number;
  layers: number;
}

export interface DetectorShape {
  size: number;
  stem: [number, number];
  stages: HgStage[];
  hidden: number;
  heads: number;
  encFf: number;
  /** 3×3 convs per CSP branch of an ELAN fusion block. */
  elanDepth: number;
  decLayers: number;
  decFf: number;
  queries: number;
  classes: number;
  regMax: number;
}

export const DFINE_M: DetectorShape = {
  size: 640,
  stem: [24, 32],
  stages: [
    { mid: 32, out: 96, blocks: 1, down: false, light: false, k: 3, layers: 4 },
    { mid: 64, out: 384, blocks: 1, down: true, light: false, k: 3, layers: 4 },
    { mid: 128, out: 768, blocks: 3, down: true, light: true, k: 5, layers: 4 },
    { mid: 256, out: 1536, blocks: 1, down: true, light: true, k: 5, layers: 4 },
  ],
  hidden: 256,
  heads: 8,
  encFf: 1024,
  elanDepth: 2,
  decLayers: 4,
  decFf: 1024,
  queries: 300,
  classes: 80,
  regMax: 32,
};

/** CI-sized: same graph, 128×128 input, narrow channels, 20 queries. */
export const DFINE_TINY: DetectorShape = {
  size: 128,
  stem: [8, 8],
  stages: [
    { mid: 8, out: 16, blocks: 1, down: false, light: false, k: 3, layers: 2 },
    { mid: 8, out: 32, blocks: 1, down: true, light: false, k: 3, layers: 2 },
    { mid: 16, out: 48, blocks: 2, down: true, light: true, k: 5, layers: 2 },
    { mid: 16, out: 64, blocks: 1, down: true, light: true, k: 5, layers: 2 },
  ],
  hidden: 32,
  heads: 2,
  encFf: 64,
  elanDepth: 1,
  decLayers: 2,
  decFf: 64,
  queries: 20,
  classes: 8,
  regMax: 4,
};

export interface DetectorGraph extends GraphFiles {
  params: number;
  /** Multiply-accumulates of one frame (convs, linears, attention), for GFLOP/s figures. */
  macs: number;
}

type Nonlin = 'relu' | 'silu' | null;

export function buildDetector(shape: DetectorShape, act: Act, seed = 31): DetectorGraph {
  const g = new G({ name: 'dfine_like', act, seed });
  const { hidden: D, heads, queries: Q, classes: C } = shape;
  let macs = 0;
  let params = 0;
  const w = (dims: number[], std: number) => {
    params += dims.reduce((a, b) => a * b, 1);
    return g.randn(dims, std);
  };
  /** A feature map: tensor name, channels, spatial size. */
  interface Fm {
    t: string;
    c: number;
    h: number;
  }
  const conv = (x: Fm, cout: number, k: number, o: { s?: number; group?: number; nl?: Nonlin; pads?: number[] } = {}): Fm => {
    const s = o.s ?? 1;
    const group = o.group ?? 1;
    const pads = o.pads ?? [k >> 1, k >> 1, k >> 1, k >> 1];
    const fan = (x.c / group) * k * k;
    const gain = o.nl === 'relu' ? Math.SQRT2 : o.nl === 'silu' ? 1.68 : 1;
    const h = Math.floor((x.h + pads[0]! + pads[2]! - k) / s) + 1;
    macs += cout * fan * h * h;
    let y = g.op('Conv', [x.t, w([cout, x.c / group, k, k], gain / Math.sqrt(fan)), w([cout], 0.01)], {
      kernel_shape: [k, k],
      strides: [s, s],
      pads,
      group,
    });
    if (o.nl === 'relu') y = g.op('Relu', [y]);
    else if (o.nl === 'silu') y = g.silu(y);
    return { t: y, c: cout, h };
  };
  const cat = (xs: Fm[]): Fm => ({
    t: g.op(
      'Concat',
      xs.map((x) => x.t),
      { axis: 1 },
    ),
    c: xs.reduce((a, x) => a + x.c, 0),
    h: xs[0]!.h,
  });
  const add = (a: Fm, b: Fm): Fm => ({ ...a, t: g.op('Add', [a.t, b.t]) });
  const lin = (x: string, tokens: number, K: number, N: number, bias = true) => {
    macs += tokens * K * N;
    params += K * N + (bias ? N : 0);
    return g.linear(x, K, N, 'float', { bias });
  };
  const ln = (x: string, c: number) => {
    params += 2 * c;
    return g.layerNorm(x, c);
  };

  // ---- Backbone (HGNetV2-B2).
  g.input('pixel_values', act, [1, 3, shape.size, shape.size]);
  let x = conv({ t: 'pixel_values', c: 3, h: shape.size }, shape.stem[0], 3, { s: 2, nl: 'relu' });
  const padEnd = [0, 0, 1, 1];
  const s2a = conv(x, shape.stem[0] / 2, 2, { pads: padEnd, nl: 'relu' });
  const s2b = conv(s2a, shape.stem[0], 2, { pads: padEnd, nl: 'relu' });
  const pool: Fm = { ...x, t: g.op('MaxPool', [x.t], { kernel_shape: [2, 2], strides: [1, 1], pads: padEnd }) };
  x = conv(cat([pool, s2b]), shape.stem[0], 3, { s: 2, nl: 'relu' });
  x = conv(x, shape.stem[1], 1, { nl: 'relu' });
  const feats: Fm[] = [];
  for (const st of shape.stages) {
    if (st.down) x = conv(x, x.c, 3, { s: 2, group: x.c });
    for (let b = 0; b < st.blocks; b++) {
      const inp = x;
      const outs: Fm[] = [inp];
      let y = inp;
      for (let i = 0; i < st.layers; i++) {
        if (st.light) y = conv(conv(y, st.mid, 1), st.mid, st.k, { group: st.mid, nl: 'relu' });
        else y = conv(y, st.mid, st.k, { nl: 'relu' });
        outs.push(y);
      }
      let agg = conv(conv(cat(outs), st.out / 2, 1, { nl: 'relu' }), st.out, 1, { nl: 'relu' });
      if (b > 0) agg = add(agg, inp);
      x = agg;
    }
    feats.push(x);
  }
  const levels = feats.slice(-3); // strides 8, 16, 32

  // ---- Hybrid encoder.
  const proj = levels.map((f) => conv(f, D, 1));
  const top = proj[2]!;
  const hw = top.h * top.h;
  let tok = g.transpose(g.reshape(top.t, [1, D, hw]), [0, 2, 1]); // [1, hw, D]
  const pos = sincos2d(g, top.h, D);
  const mha = (q: string, k: string, v: string, lq: number, lk: number): string => {
    const hd = D / heads;
    const split = (t: string) => g.transpose(g.reshape(t, [1, -1, heads, hd]), [0, 2, 1, 3]);
    macs += 2 * heads * lq * lk * hd;
    const o = g.attention(split(lin(q, lq, D, D)), split(lin(k, lk, D, D)), split(lin(v, lk, D, D)), hd);
    return lin(g.reshape(g.transpose(o, [0, 2, 1, 3]), [1, -1, D]), lq, D, D);
  };
  const qk = g.op('Add', [tok, pos]);
  tok = ln(g.op('Add', [tok, mha(qk, qk, tok, hw, hw)]), D);
  tok = ln(g.op('Add', [tok, lin(g.gelu(lin(tok, hw, D, shape.encFf)), hw, shape.encFf, D)]), D);
  proj[2] = { t: g.reshape(g.transpose(tok, [0, 2, 1]), [1, D, top.h, top.h]), c: D, h: top.h };

  const csp = (f: Fm, cout: number): Fm => {
    let a = conv(f, cout, 1, { nl: 'silu' });
    for (let i = 0; i < shape.elanDepth; i++) a = conv(a, cout, 3, { nl: 'silu' });
    return add(a, conv(f, cout, 1, { nl: 'silu' }));
  };
  const elan = (f: Fm): Fm => {
    const y = conv(f, D, 1, { nl: 'silu' });
    const [a, b] = g.opN('Split', [y.t, g.i64([D / 2, D / 2])], 2, { axis: 1 });
    const bf: Fm = { t: b!, c: D / 2, h: y.h };
    const b1 = conv(csp(bf, D / 2), D / 2, 3, { nl: 'silu' });
    const b2 = conv(csp(b1, D / 2), D / 2, 3, { nl: 'silu' });
    return conv(cat([{ t: a!, c: D / 2, h: y.h }, bf, b1, b2]), D, 1, { nl: 'silu' });
  };
  // Top-down: lateral 1×1, nearest ×2 upsample, concat with the finer map, ELAN.
  const inner: Fm[] = [proj[2]!];
  for (let i = 1; i >= 0; i--) {
    const high = conv(inner[0]!, D, 1, { nl: 'silu' });
    inner[0] = high;
    const up: Fm = {
      t: g.op('Resize', [high.t, '', g.c('float32', [1, 1, 2, 2], [4])], {
        mode: 'nearest',
        coordinate_transformation_mode: 'asymmetric',
        nearest_mode: 'floor',
      }),
      c: D,
      h: high.h * 2,
    };
    inner.unshift(elan(cat([up, proj[i]!])));
  }
  // Bottom-up: 1×1 + depthwise stride-2 downsample, concat with the coarser map, ELAN.
  const outs: Fm[] = [inner[0]!];
  for (let i = 0; i < 2; i++) {
    const down = conv(conv(outs[i]!, D, 1, { nl: 'silu' }), D, 3, { s: 2, group: D });
    outs.push(elan(cat([down, inner[i + 1]!])));
  }

  // ---- Decoder.
  const N = outs.reduce((a, f) => a + f.h * f.h, 0);
  const memory = g.transpose(
    g.op(
      'Concat',
      outs.map((f) => g.reshape(f.t, [1, D, f.h * f.h])),
      { axis: 2 },
    ),
    [0, 2, 1],
  ); // [1, N, D]
  const encOut = ln(lin(memory, N, D, D), D);
  let scores = g.op('ReduceMax', [lin(encOut, N, D, C)], { axes: [-1], keepdims: 0 }); // [1, N]
  if (act === 'float16') scores = g.op('Cast', [scores], { to: 1 });
  const [, idx] = g.opN('TopK', [scores, g.i64([Q])], 2, { axis: 1, largest: 1, sorted: 1 });
  const flatIdx = g.op('Squeeze', [idx!, g.i64([0])]); // [Q]
  const pick = (t: string) =>
    g.op('Unsqueeze', [g.op('Gather', [g.op('Squeeze', [t, g.i64([0])]), flatIdx], { axis: 0 }), g.i64([0])]);
  let tgt = pick(encOut); // [1, Q, D]
  const mlp = (t: string, dims: number[], tokens: number) => {
    let y = t;
    for (let i = 0; i + 1 < dims.length; i++) {
      y = lin(y, tokens, dims[i]!, dims[i + 1]!);
      if (i + 2 < dims.length) y = g.op('Relu', [y]);
    }
    return y;
  };
  const anchors = anchorLogits(
    g,
    outs.map((f) => f.h),
  ); // [1, N, 4]
  const refLogit = g.op('Add', [mlp(tgt, [D, D, D, 4], Q), pick(anchors)]);
  let ref = g.op('Sigmoid', [refLogit]); // [1, Q, 4]
  const bins = shape.regMax + 1;
  const proj01 = g.f(
    Array.from({ length: bins }, (_, i) => (i / shape.regMax - 0.5) * 4),
    [bins, 1],
  );
  const eps = g.f([1e-4]);
  const one = g.f([1]);
  for (let l = 0; l < shape.decLayers; l++) {
    const qpos = mlp(ref, [4, 2 * D, D], Q);
    const q1 = g.op('Add', [tgt, qpos]);
    tgt = ln(g.op('Add', [tgt, mha(q1, q1, tgt, Q, Q)]), D);
    tgt = ln(g.op('Add', [tgt, mha(g.op('Add', [tgt, qpos]), memory, memory, Q, N)]), D);
    tgt = ln(g.op('Add', [tgt, lin(g.op('Relu', [lin(tgt, Q, D, shape.decFf)]), Q, shape.decFf, D)]), D);
    // Distribution refinement: per side a softmax over the bins, its expectation moves the box in logit space.
    const dist = g.op('Softmax', [g.reshape(mlp(tgt, [D, D, D, 4 * bins], Q), [1, Q, 4, bins])], { axis: -1 });
    const delta = g.reshape(g.op('MatMul', [dist, proj01]), [1, Q, 4]);
    const clipped = g.op('Clip', [ref, eps, one]);
    const inv = g.op('Log', [g.op('Div', [clipped, g.op('Clip', [g.op('Sub', [one, ref]), eps, one])])]);
    ref = g.op('Sigmoid', [g.op('Add', [inv, delta])]);
  }
  g.op('Identity', [lin(tgt, Q, D, C)], {}, 'logits');
  g.op('Identity', [ref], {}, 'pred_boxes');
  g.output('logits', act, [1, Q, C]);
  g.output('pred_boxes', act, [1, Q, 4]);
  return { ...g.build(), params, macs };
}

/** 2-D sin-cos position embedding [1, h·h, D] (RT-DETR/D-FINE's AIFI), a constant of the graph. */
function sincos2d(g: G, h: number, D: number): string {
  const quarter = D / 4;
  const f = new Float32Array(h * h * D);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < h; x++) {
      const row = (y * h + x) * D;
      for (let i = 0; i < quarter; i++) {
        const om = 1 / 10000 ** (i / quarter);
        f[row + i] = Math.sin(x * om);
        f[row + quarter + i] = Math.cos(x * om);
        f[row + 2 * quarter + i] = Math.sin(y * om);
        f[row + 3 * quarter + i] = Math.cos(y * om);
      }
    }
  }
  return constTensor(g, [1, h * h, D], f);
}

/** Anchor boxes in logit space, one per token: grid centres, width 0.05·2^level. */
function anchorLogits(g: G, sizes: number[]): string {
  const n = sizes.reduce((a, s) => a + s * s, 0);
  const f = new Float32Array(n * 4);
  const logit = (p: number) => Math.log(p / (1 - p));
  let k = 0;
  sizes.forEach((s, lvl) => {
    for (let y = 0; y < s; y++) {
      for (let x = 0; x < s; x++, k++) {
        const wh = Math.min(0.95, 0.05 * 2 ** lvl);
        f.set([logit((x + 0.5) / s), logit((y + 0.5) / s), logit(wh), logit(wh)], k * 4);
      }
    }
  });
  return constTensor(g, [1, n, 4], f);
}

function constTensor(g: G, dims: number[], f: Float32Array): string {
  return g.raw(g.act, dims, g.act === 'float16' ? new Uint8Array(toFloat16(f).buffer) : new Uint8Array(f.buffer), 'k');
}
