/**
 * The WASM flow LM with caches sized to each chunk (models/tts/pocket/flow-capacity.ts): the same samples as the
 * declared 1000-slot caches, smaller caches really fed, and a graph that needs the declared capacity kept on it.
 */
import { describe, expect, it } from 'vitest';
import { chunksFor, synthesize } from '../../../models/tts/pocket/generator';
import type { PocketModel } from '../../../models/tts/pocket/model';
import type { OrtTensorLike } from '../../../models/tts/pocket/ort-types';
import type { FixtureOptions } from '../../fixtures/pocket/generate';
import { loadFixtureModel, seededRandom } from './helpers';

const TEXT = 'The keeper climbed the stairs. Then he lit the lamp, and the ships saw it far out at sea.';
const FRAMES = 30;

/** Every frame's samples, and the cache capacity of each flow_lm_main call. */
async function speak(model: PocketModel) {
  const capacities: number[] = [];
  const session = model.session('flow_lm_main');
  const run = session.run.bind(session);
  (session as { run: typeof run }).run = (feeds: Record<string, OrtTensorLike>) => {
    capacities.push(feeds.state_0!.dims[2]!);
    return run(feeds);
  };
  const pcm: Float32Array[] = [];
  const voice = model.voices.get('alba')!;
  // No EOS: every chunk runs to its frame budget, so its last step writes the last slot of a chunk-sized cache.
  const opts = { temperature: 0.7, random: seededRandom(3), eosThreshold: Infinity, maxFramesPerChunk: FRAMES };
  for await (const f of synthesize(model, TEXT, voice, opts)) pcm.push(f.pcm);
  return { pcm, capacities };
}

function maxAbsDiff(a: Float32Array[], b: Float32Array[]): number {
  let worst = 0;
  a.forEach((f, k) => f.forEach((x, i) => (worst = Math.max(worst, Math.abs(x - b[k]![i]!)))));
  return worst;
}

async function pair(fixture: FixtureOptions = {}) {
  const sized = await loadFixtureModel(fixture);
  const declared = await loadFixtureModel(fixture, { chunkSizedCache: false });
  return { sized, declared };
}

describe('flow-LM caches sized to the chunk (WASM)', () => {
  it('gives the same samples as the declared capacity while feeding caches of the chunk size', async () => {
    const { sized, declared } = await pair();
    expect(sized.chunkSizedCache).toBe(true);
    expect(declared.chunkSizedCache).toBe(false);
    const a = await speak(sized);
    const b = await speak(declared);
    expect(a.pcm.length).toBeGreaterThan(10);
    expect(a.pcm).toHaveLength(b.pcm.length);
    expect(maxAbsDiff(a.pcm, b.pcm)).toBe(0);
    expect(new Set(b.capacities)).toEqual(new Set([1000]));
    // Per chunk: voice prefix 126 + tokens + its frame budget (here the cap of 30), far below 1000.
    const chunks = chunksFor(sized, TEXT);
    expect(chunks.length).toBeGreaterThan(1);
    expect(a.pcm).toHaveLength(chunks.length * FRAMES);
    const expected = chunks.map((c) => 126 + c.ids.length + FRAMES);
    expect([...new Set(a.capacities)]).toEqual([...new Set(expected)]);
    for (const c of expected) expect(c).toBeLessThan(400);
  });

  it('keeps the declared capacity for a graph that only takes it, with the same samples', async () => {
    const { sized, declared } = await pair({ cacheCapacityFixed: true });
    expect(sized.chunkSizedCache).toBe(false);
    const a = await speak(sized);
    const b = await speak(declared);
    expect(new Set(a.capacities)).toEqual(new Set([1000]));
    expect(a.pcm).toHaveLength(b.pcm.length);
    expect(maxAbsDiff(a.pcm, b.pcm)).toBe(0);
  });
});
