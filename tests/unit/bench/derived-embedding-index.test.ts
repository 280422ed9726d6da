import { describe, expect, it } from 'vitest';
import { derivedEmbeddingIndex, type WholePageRow } from '../../../bench/retrieval/whole-page';

const row = (words: number, chunks: number): WholePageRow => ({
  words,
  chars: words * 6,
  chunks,
  indexMs: 0,
  heapMB: 0,
  questionMs: 0,
  questionMaxMs: 0,
  recall: {},
  recallOldCap: {},
});

describe('the derived embedding index time per whole-page size', () => {
  it('is chunks × the measured time per chunk, fp32 runs only, and says it is derived', () => {
    const md = derivedEmbeddingIndex(
      [row(15_000, 167), row(250_000, 2843)],
      [
        { machine: 'GPU host', ep: 'webgpu', format: 'float', threads: 4, perChunkMs: 1.8 },
        { machine: 'GPU host', ep: 'webgpu', format: 'int8', threads: 4, perChunkMs: 45 },
        { machine: 'box', ep: 'wasm', threads: 1, perChunkMs: 353.9 },
      ],
    );
    expect(md).toMatch(/DERIVED/);
    expect(md).toContain('| GPU host, webgpu, 4 threads | 1.8 | 0.3 s | 5.1 s |');
    expect(md).toContain('| box, wasm, 1 thread | 353.9 | 59.1 s | 16.8 min |');
    expect(md).not.toContain('| 45 |');
  });
});
