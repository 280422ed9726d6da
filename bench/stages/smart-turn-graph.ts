/**
 * A Smart Turn v3.2-shaped end-of-turn classifier with random weights (docs/models.md § Smart Turn): the Whisper-tiny
 * encoder (two Conv1d with GELU, the second with stride 2 → 400 positions, learned positions, pre-LN transformer
 * layers with 6 heads and a GELU FFN, final LayerNorm), attention pooling (Linear → Tanh → Linear → softmax over time,
 * weighted sum) and the MLP head (Linear → LayerNorm → GELU → Linear → GELU → Linear → Sigmoid). Same I/O contract:
 * `input_features` float32 [batch, 80, 800] → `logits` float32 [batch, 1] (a probability). At the full shape it has
 * the real model's size (~8 M parameters, ~32 MB fp32) and operator mix, so timings are of its kind; the tests use a
 * narrow shape and a head bias that makes it answer "complete" (p > 0.5) for ordinary speech.
 */
import { G, type GraphFiles } from './onnx-graph';

export interface SmartTurnShape {
  width: number;
  heads: number;
  layers: number;
  ffn: number;
  /** Added to the head's last logit before the sigmoid. */
  headBias: number;
}

export const SMART_TURN_FULL: SmartTurnShape = { width: 384, heads: 6, layers: 4, ffn: 1536, headBias: 0 };
export const SMART_TURN_FIXTURE: SmartTurnShape = { width: 32, heads: 2, layers: 1, ffn: 64, headBias: 4 };

const MELS = 80;
const FRAMES = 800;
const POSITIONS = FRAMES / 2;

export function buildSmartTurnGraph(shape: SmartTurnShape, seed = 7): GraphFiles {
  const g = new G({ name: 'smart_turn', act: 'float32', seed, opset: 18 });
  const { width: d, heads, layers, ffn } = shape;
  const hd = d / heads;
  const x = g.input('input_features', 'float32', ['batch', MELS, FRAMES]);
  const conv = (input: string, cin: number, stride: number) =>
    g.gelu(
      g.op('Conv', [input, g.randn([d, cin, 3], Math.sqrt(2 / (cin * 3))), g.randn([d], 0.02)], {
        kernel_shape: [3],
        pads: [1, 1],
        strides: [stride],
      }),
    );
  const c2 = conv(conv(x, MELS, 1), d, 2); // [B, d, 400]
  let h = g.op('Add', [g.transpose(c2, [0, 2, 1]), g.randn([POSITIONS, d], 0.02)]); // [B, 400, d]
  const batch = g.dim(x, 0);
  const headShape = g.op('Concat', [batch, g.i64([POSITIONS, heads, hd])], { axis: 0 });
  const flatShape = g.op('Concat', [batch, g.i64([POSITIONS, d])], { axis: 0 });
  const split = (t: string) => g.transpose(g.reshape(t, headShape), [0, 2, 1, 3]); // [B, heads, 400, hd]
  for (let l = 0; l < layers; l++) {
    const n1 = g.layerNorm(h, d);
    const q = split(g.linear(n1, d, d, 'float', { bias: true }));
    const k = split(g.linear(n1, d, d, 'float'));
    const v = split(g.linear(n1, d, d, 'float', { bias: true }));
    const att = g.reshape(g.transpose(g.attention(q, k, v, hd), [0, 2, 1, 3]), flatShape);
    h = g.op('Add', [h, g.linear(att, d, d, 'float', { bias: true })]);
    const n2 = g.layerNorm(h, d);
    h = g.op('Add', [h, g.linear(g.gelu(g.linear(n2, d, ffn, 'float', { bias: true })), ffn, d, 'float', { bias: true })]);
  }
  h = g.layerNorm(h, d);
  // Attention pooling over the 400 positions.
  const score = g.linear(g.op('Tanh', [g.linear(h, d, 256, 'float', { bias: true })]), 256, 1, 'float', { bias: true });
  const weights = g.op('Softmax', [score], { axis: 1 }); // [B, 400, 1]
  const pooled = g.op('ReduceSum', [g.op('Mul', [h, weights]), g.i64([1])], { keepdims: 0 }); // [B, d]
  const z1 = g.gelu(g.layerNorm(g.linear(pooled, d, 256, 'float', { bias: true }), 256));
  const z2 = g.gelu(g.linear(z1, 256, 64, 'float', { bias: true }));
  const logit = g.op('Add', [g.linear(z2, 64, 1, 'float', { bias: true }), g.f([shape.headBias])]);
  g.op('Sigmoid', [logit], {}, 'logits');
  g.output('logits', 'float32', ['batch', 1]);
  return g.build();
}
