/**
 * Writes the pinned LLM repo (models/registry.ts LLM_MODEL: its repo, dtype and file names) into a folder in the hub's
 * layout, with a real-size LFM2 graph of random weights (bench/stages/llm-graph.ts) in place of the real weights,
 * which cannot be downloaded here. The other files are the test fixture's (tests/fixtures/models/generate.ts), with
 * the real dimensions and a tokenizer covering the graph's whole vocabulary.
 */
import { LLM_MODEL, dtypeSuffix } from '../../models/registry';
import { writeLlmRepo as writeRepoFiles } from '../../tests/fixtures/models/generate';
import { buildLlmGraph, type LlmDtype, type LlmShape } from '../stages/llm-graph';
import { buildLfm2ExporterGraph, type Lfm2ExporterStyle } from '../stages/lfm2-exporter-graphs';

/** Which graph structure: the project's own bench graph, or one of the published exporters' (docs/llm-static-kv.md). */
export type LlmGraphKind = 'bench' | Lfm2ExporterStyle;

export interface WrittenLlm {
  graphMs: number;
  onnxBytes: number;
  dataBytes: number;
}

export async function writeLlmRepo(
  root: string,
  shape: LlmShape,
  dtype: LlmDtype = LLM_MODEL.dtype as LlmDtype,
  kind: LlmGraphKind = 'bench',
): Promise<WrittenLlm> {
  const onnxName = `model${dtypeSuffix(dtype)}.onnx`;
  const t0 = performance.now();
  const external = `${onnxName}_data`;
  const graph =
    kind === 'bench' ? buildLlmGraph(shape, dtype, { external }) : buildLfm2ExporterGraph(shape, kind, dtype, { external });
  const graphMs = performance.now() - t0;
  if (!graph.external) throw new Error('the LLM graph has no external data');
  await writeRepoFiles(root, { ...shape, intermediate: shape.ff }, { onnx: graph.onnx, data: graph.external.data }, dtype);
  return { graphMs, onnxBytes: graph.onnx.length, dataBytes: graph.external.data.length };
}
