/**
 * Writes the pinned LLM repo (models/registry.ts LLM_MODEL: its repo, dtype and file names) into a folder in the hub's
 * layout, with a real-size LFM2 graph of random weights (bench/stages/llm-graph.ts) in place of the real weights,
 * which cannot be downloaded here. The tokenizer covers the graph's whole vocabulary (the test fixture's specials and
 * characters, then one placeholder token per remaining id), so any id the random weights pick decodes.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { LLM_MODEL, dtypeSuffix } from '../../models/registry';
import { LLM } from '../../tests/fixtures/models/reference';
import { LFM2_STYLE_CHAT_TEMPLATE, tokenizerJson, type AddedToken } from '../../tests/fixtures/models/tokenizers';
import { buildLlmGraph, type LlmDtype, type LlmShape } from '../stages/llm-graph';

async function put(root: string, path: string, data: Uint8Array | object): Promise<void> {
  const file = join(root, LLM_MODEL.repo, path);
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, data instanceof Uint8Array ? data : JSON.stringify(data, null, 2));
}

export interface WrittenLlm {
  graphMs: number;
  onnxBytes: number;
  dataBytes: number;
}

export async function writeLlmRepo(root: string, shape: LlmShape): Promise<WrittenLlm> {
  const onnxName = `model${dtypeSuffix(LLM_MODEL.dtype)}.onnx`;
  const t0 = performance.now();
  const graph = buildLlmGraph(shape, LLM_MODEL.dtype as LlmDtype, { external: `${onnxName}_data` });
  const graphMs = performance.now() - t0;
  if (!graph.external) throw new Error('the LLM graph has no external data');
  await put(root, `onnx/${onnxName}`, graph.onnx);
  await put(root, `onnx/${onnxName}_data`, graph.external.data);
  await put(root, 'config.json', {
    architectures: ['Lfm2ForCausalLM'],
    model_type: 'lfm2',
    vocab_size: shape.vocab,
    hidden_size: shape.hidden,
    intermediate_size: shape.ff,
    num_hidden_layers: shape.layerTypes.length,
    num_attention_heads: shape.heads,
    num_key_value_heads: shape.kvHeads,
    layer_types: shape.layerTypes,
    conv_L_cache: shape.convL,
    conv_bias: false,
    max_position_embeddings: 128000,
    norm_eps: 1e-5,
    rope_theta: 1000000,
    tie_embedding: true,
    bos_token_id: 1,
    eos_token_id: LLM.eos,
    pad_token_id: 0,
    torch_dtype: 'bfloat16',
  });
  const added: AddedToken[] = LLM.specials.map((content, id) => ({ id, content, special: content !== '<ERR>' }));
  const printable = ['\n', ...Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i))];
  const chars = printable.map((ch, i) => ({ id: added.length + i, ch }));
  for (let id = added.length + chars.length; id < shape.vocab; id++) chars.push({ id, ch: `⟨${id}⟩` });
  await put(root, 'tokenizer.json', tokenizerJson(added, chars, '<|pad|>'));
  await put(root, 'tokenizer_config.json', {
    tokenizer_class: 'PreTrainedTokenizerFast',
    bos_token: '<|startoftext|>',
    eos_token: '<|im_end|>',
    pad_token: '<|pad|>',
    clean_up_tokenization_spaces: false,
    model_max_length: 128000,
  });
  await put(root, 'chat_template.jinja', new TextEncoder().encode(LFM2_STYLE_CHAT_TEMPLATE));
  await put(root, 'generation_config.json', { bos_token_id: 1, eos_token_id: LLM.eos, pad_token_id: 0 });
  return { graphMs, onnxBytes: graph.onnx.length, dataBytes: graph.external.data.length };
}
