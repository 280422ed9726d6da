/**
 * Moonshine-base-shaped merged decoder with random weights, in the contract transformers.js loads as
 * `decoder_model_merged` (the same names as the fixture's tests/fixtures/models/seq2seq-graphs.ts): `input_ids`,
 * `encoder_hidden_states`, `past_key_values.{l}.decoder|encoder.key|value`, `use_cache_branch` → `logits`,
 * `present.{l}.decoder|encoder.key|value`. As a merged export is built, one top-level `If` on `use_cache_branch` holds
 * two whole decoders over shared weights: the first step (else) computes the cross-attention K/V from the encoder's
 * output, later steps (then) read them from the past. Causal self-attention, so a prompt pass over a draft gives the
 * same rows as decoding it step by step (the product's draft check, models/asr/draft-check.ts, relies on that).
 * Weights fp32 (the file the product pins, docs/models.md), the LM head tied to the embedding: 41.3 M parameters,
 * 165 MB (the real file: 166,211,345 B).
 */
import { G, type GraphFiles } from '../stages/onnx-graph';
import { valueInfo, type ValueSpec } from '../../tests/fixtures/onnx/builder';
import type { MoonshineShape } from '../stages/moonshine-graphs';

interface LayerWeights {
  ln: [string, string, string];
  self: { q: string; k: string; v: string; o: string };
  cross: { q: string; k: string; v: string; o: string };
  fc1: [string, string];
  fc2: [string, string];
}

export function buildMoonshineMergedDecoder(m: MoonshineShape, seed = 22): GraphFiles {
  const g = new G({ name: 'moonshine_decoder_merged', act: 'float32', seed });
  const { d, heads, vocab } = m;
  const hd = d / heads;
  const w = (K: number, N: number) => g.randn([K, N], 1 / Math.sqrt(K));
  const zeros = g.fill([d], 0);
  const gain = () => g.fill([d], 1);
  const layers: LayerWeights[] = Array.from({ length: m.decLayers }, () => ({
    ln: [gain(), gain(), gain()],
    self: { q: w(d, d), k: w(d, d), v: w(d, d), o: w(d, d) },
    cross: { q: w(d, d), k: w(d, d), v: w(d, d), o: w(d, d) },
    fc1: [w(d, 2 * m.decFf), g.randn([2 * m.decFf], 0.02)],
    fc2: [w(m.decFf, d), g.randn([d], 0.02)],
  }));
  const embed = g.randn([vocab, d], 1);
  const finalLn = gain();

  const inputs: ValueSpec[] = [
    { name: 'input_ids', dtype: 'int64', dims: ['batch_size', 'decoder_sequence_length'] },
    { name: 'encoder_hidden_states', dtype: 'float32', dims: ['batch_size', 'encoder_sequence_length', d] },
  ];
  const outputs: ValueSpec[] = [{ name: 'logits', dtype: 'float32', dims: ['batch_size', 'decoder_sequence_length', vocab] }];
  const pastDims = ['batch_size', heads, 'past_decoder_sequence_length', hd];
  const encDims = ['batch_size', heads, 'encoder_sequence_length_out', hd];
  const presentDims = ['batch_size', heads, 'present_decoder_sequence_length', hd];
  for (let l = 0; l < m.decLayers; l++) {
    for (const part of ['key', 'value'])
      inputs.push({ name: `past_key_values.${l}.decoder.${part}`, dtype: 'float32', dims: pastDims });
    for (const part of ['key', 'value'])
      inputs.push({ name: `past_key_values.${l}.encoder.${part}`, dtype: 'float32', dims: encDims });
    for (const part of ['key', 'value'])
      outputs.push({ name: `present.${l}.decoder.${part}`, dtype: 'float32', dims: presentDims });
    for (const part of ['key', 'value']) outputs.push({ name: `present.${l}.encoder.${part}`, dtype: 'float32', dims: encDims });
  }
  inputs.push({ name: 'use_cache_branch', dtype: 'bool', dims: [1] });
  for (const v of inputs) g.input(v.name, v.dtype, v.dims);
  for (const v of outputs) g.output(v.name, v.dtype, v.dims);

  // The tied LM head: a constant transpose of the embedding (folded once when the session is created).
  const head = g.transpose(embed, [1, 0]);
  const split = (t: string) => g.transpose(g.reshape(t, [1, -1, heads, hd]), [0, 2, 1, 3]);
  const ln = (x: string, gamma: string) => g.op('LayerNormalization', [x, gamma, zeros], { axis: -1, epsilon: { float: 1e-5 } });

  /** One whole decoder; `first` computes the cross K/V from the encoder output instead of reading them. */
  const decoder = (first: boolean, tag: string): string[] => {
    let x = g.op('Gather', [embed, 'input_ids'], { axis: 0 });
    const S = g.dim('input_ids', 1);
    const P = g.dim('past_key_values.0.decoder.key', 2);
    const end = g.op('Add', [P, S]);
    const scalar = (t: string) => g.op('Squeeze', [t, g.i64([0])]);
    const one = g.i64([1], []);
    const rows = g.op('Range', [scalar(P), scalar(end), one]);
    const cols = g.op('Range', [g.i64([0], []), scalar(end), one]);
    const pos = g.op('Cast', [rows], { to: 1 });
    // Causal mask [S, P+S]: row i (position P+i) sees columns up to P+i.
    const later = g.op('Greater', [g.op('Unsqueeze', [cols, g.i64([0])]), g.op('Unsqueeze', [rows, g.i64([1])])]);
    const mask = g.op('Where', [later, g.f([-1e9]), g.f([0])]);
    const named: string[] = [];
    const out = (value: string, name: string) => {
      named.push(g.op('Identity', [value], {}, `${tag}_${name}`));
    };
    const presents: string[] = [];
    for (let l = 0; l < m.decLayers; l++) {
      const L = layers[l]!;
      const h = ln(x, L.ln[0]);
      const q = g.rope(g.reshape(g.op('MatMul', [h, L.self.q]), [1, -1, heads, hd]), pos, hd, m.rot, 10000);
      const kNew = g.rope(g.reshape(g.op('MatMul', [h, L.self.k]), [1, -1, heads, hd]), pos, hd, m.rot, 10000);
      const k = g.op('Concat', [`past_key_values.${l}.decoder.key`, g.transpose(kNew, [0, 2, 1, 3])], { axis: 2 });
      const v = g.op('Concat', [`past_key_values.${l}.decoder.value`, split(g.op('MatMul', [h, L.self.v]))], { axis: 2 });
      presents.push(k, v);
      const att = g.attention(g.transpose(q, [0, 2, 1, 3]), k, v, hd, mask);
      x = g.op('Add', [x, g.op('MatMul', [g.reshape(g.transpose(att, [0, 2, 1, 3]), [1, -1, d]), L.self.o])]);
      const h2 = ln(x, L.ln[1]);
      const ck = first ? split(g.op('MatMul', ['encoder_hidden_states', L.cross.k])) : `past_key_values.${l}.encoder.key`;
      const cv = first ? split(g.op('MatMul', ['encoder_hidden_states', L.cross.v])) : `past_key_values.${l}.encoder.value`;
      presents.push(ck, cv);
      const catt = g.attention(split(g.op('MatMul', [h2, L.cross.q])), ck, cv, hd);
      x = g.op('Add', [x, g.op('MatMul', [g.reshape(g.transpose(catt, [0, 2, 1, 3]), [1, -1, d]), L.cross.o])]);
      const h3 = ln(x, L.ln[2]);
      const up = g.op('Add', [g.op('MatMul', [h3, L.fc1[0]]), L.fc1[1]]);
      const [a, gate] = g.opN('Split', [up, g.i64([m.decFf, m.decFf])], 2, { axis: -1 });
      x = g.op('Add', [x, g.op('Add', [g.op('MatMul', [g.op('Mul', [g.silu(gate!), a!]), L.fc2[0]]), L.fc2[1]])]);
    }
    out(g.op('MatMul', [ln(x, finalLn), head]), 'logits');
    for (let l = 0; l < m.decLayers; l++) {
      const [k, v, ck, cv] = presents.slice(4 * l, 4 * l + 4) as [string, string, string, string];
      out(k, `present.${l}.decoder.key`);
      out(v, `present.${l}.decoder.value`);
      out(ck, `present.${l}.encoder.key`);
      out(cv, `present.${l}.encoder.value`);
    }
    return named;
  };

  // Each branch's nodes are taken out of the top-level list into its own subgraph; weights and constants stay outside.
  const branch = (first: boolean, tag: string) => {
    const from = g.nodes.length;
    decoder(first, tag);
    const nodes = g.nodes.splice(from);
    return {
      name: `${tag}_branch`,
      input: [],
      output: outputs.map((v) => valueInfo({ ...v, name: `${tag}_${v.name}` })),
      node: nodes,
      initializer: [],
    };
  };
  const thenBranch = branch(false, 'then');
  const elseBranch = branch(true, 'else');
  const names = outputs.map((v) => v.name);
  g.opN('If', ['use_cache_branch'], names.length, { then_branch: thenBranch, else_branch: elseBranch }, undefined, names);
  // Count what one step runs (a branch), not the two top-level nodes.
  return { ...g.build(), nodes: thenBranch.node.length };
}
