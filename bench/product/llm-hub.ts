/**
 * Writes the pinned LLM repo (models/registry.ts LLM_MODEL: its repo, dtype and file names) into a folder in the hub's
 * layout, with a real-size LFM2 graph of random weights (bench/stages/llm-graph.ts) in place of the real weights,
 * which cannot be downloaded here. The other files are the test fixture's (tests/fixtures/models/generate.ts), with
 * the real dimensions and a tokenizer covering the graph's whole vocabulary.
 */
import { LLM_MODEL, dtypeSuffix } from '../../models/registry';
import { writeLlmRepo as writeRepoFiles } from '../../tests/fixtures/models/generate';
import { buildLlmGraph, type LlmDtype, type LlmShape } from '../stages/llm-graph';

export interface WrittenLlm {
  graphMs: number;
  onnxBytes: number;
  dataBytes: number;
}

export async function writeLlmRepo(
  root: string,
  shape: LlmShape,
  dtype: LlmDtype = LLM_MODEL.dtype as LlmDtype,
): Promise<WrittenLlm> {
  const onnxName = `model${dtypeSuffix(dtype)}.onnx`;
  const t0 = performance.now();
  const graph = buildLlmGraph(shape, dtype, { external: `${onnxName}_data` });
  const graphMs = performance.now() - t0;
  if (!graph.external) throw new Error('the LLM graph has no external data');
  await writeRepoFiles(root, { ...shape, intermediate: shape.ff }, { onnx: graph.onnx, data: graph.external.data }, dtype);
  return { graphMs, onnxBytes: graph.onnx.length, dataBytes: graph.external.data.length };
}
