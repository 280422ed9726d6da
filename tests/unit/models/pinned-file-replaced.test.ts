// withPinnedFileReplaced (models/pinned-hub.ts): transformers.js reads one pinned file's rewritten bytes through its
// env.customCache hook while a load runs; every other file goes where it went before; overlapping loads (a reload after
// a lost GPU) share the hook, and the settings it replaced come back only when the last of them ends.
import { env } from '@huggingface/transformers';
import { describe, expect, it } from 'vitest';
import { pinnedUrl, withPinnedFileReplaced } from '../../../models/pinned-hub';

const REV = 'a'.repeat(40);
type CacheLike = { match(k: string): Promise<Response | undefined>; put(k: string, r: Response): Promise<void> };
const cache = () => env.customCache as unknown as CacheLike;
const bytesAt = async (url: string) => {
  const r = await cache().match(url);
  return r ? new Uint8Array(await r.arrayBuffer()) : undefined;
};

describe('withPinnedFileReplaced', () => {
  it('serves the replaced bytes for their URL only, holds what is put (no weights cache here), and restores the settings', async () => {
    const before = { use: env.useCustomCache, custom: env.customCache };
    const graph = pinnedUrl('org/llm', REV, 'onnx/model.onnx');
    const data = pinnedUrl('org/llm', REV, 'onnx/model.onnx_data');
    await withPinnedFileReplaced('org/llm', REV, 'onnx/model.onnx', Uint8Array.of(7, 8), async () => {
      expect(env.useCustomCache).toBe(true);
      expect(await bytesAt(graph)).toEqual(Uint8Array.of(7, 8));
      expect(await bytesAt(data)).toBeUndefined(); // fetched by transformers.js, then put and read back
      await cache().put(data, new Response(Uint8Array.of(1, 2, 3)));
      expect(await bytesAt(data)).toEqual(Uint8Array.of(1, 2, 3));
    });
    expect({ use: env.useCustomCache, custom: env.customCache }).toEqual(before);
  });

  it('overlapping loads: the first to end leaves the other its file; the settings come back when both have ended', async () => {
    const before = { use: env.useCustomCache, custom: env.customCache };
    const a = pinnedUrl('org/llm', REV, 'onnx/a.onnx');
    const b = pinnedUrl('org/llm', REV, 'onnx/b.onnx');
    let endFirst!: () => void;
    const first = withPinnedFileReplaced(
      'org/llm',
      REV,
      'onnx/a.onnx',
      Uint8Array.of(1),
      () => new Promise<void>((r) => (endFirst = r)),
    );
    await withPinnedFileReplaced('org/llm', REV, 'onnx/b.onnx', Uint8Array.of(2), async () => {
      expect(await bytesAt(a)).toEqual(Uint8Array.of(1));
      expect(await bytesAt(b)).toEqual(Uint8Array.of(2));
    });
    expect(env.useCustomCache).toBe(true); // the first load still reads through the hook
    expect(await bytesAt(a)).toEqual(Uint8Array.of(1));
    expect(await bytesAt(b)).toBeUndefined();
    endFirst();
    await first;
    expect({ use: env.useCustomCache, custom: env.customCache }).toEqual(before);
  });

  it('a load that fails still gives the settings back', async () => {
    const before = { use: env.useCustomCache, custom: env.customCache };
    await expect(
      withPinnedFileReplaced('org/llm', REV, 'onnx/model.onnx', Uint8Array.of(1), () => Promise.reject(new Error('no'))),
    ).rejects.toThrow('no');
    expect({ use: env.useCustomCache, custom: env.customCache }).toEqual(before);
  });
});
