/**
 * Constant inputs uploaded once (models/tts/pocket/gpu-inputs.ts): the generator asks the cache for a voice's states
 * and Mimi's fresh states, each upload happens once per key, the audio is the same as with host arrays, the right
 * voice is used after a switch, and every upload is freed on eviction, on a move to WASM and on release. Node has no
 * WebGPU, so the uploader here copies into a CPU tensor and counts: the cache logic and the generator's use of it are
 * what is under test; the WebGPU upload itself runs in tests/e2e/tts-gpu.e2e.ts (the self-test compares its audio
 * with WASM's).
 */
import { describe, expect, it } from 'vitest';
import { synthesize } from '../../../models/tts/pocket/generator';
import { GpuInputs, type GpuUpload } from '../../../models/tts/pocket/gpu-inputs';
import type { PocketModel } from '../../../models/tts/pocket/model';
import { pin, releaseStates, type Feeds } from '../../../models/tts/pocket/state';
import type { HostTensor } from '../../../core/tts/tensor-data';
import { loadFixtureModel, ort } from './helpers';

function countingUpload() {
  const log = { uploads: 0, disposed: 0, bytes: 0 };
  const upload: GpuUpload = (t) => {
    log.uploads++;
    log.bytes += t.data.byteLength;
    const tensor = new ort.Tensor('float32', Float32Array.from(t.data as Float32Array), t.dims);
    return Object.assign(tensor, { dispose: () => void log.disposed++ });
  };
  return { log, upload };
}

async function pcm(model: PocketModel, voice: string, text = 'hello world'): Promise<Float32Array[]> {
  const out: Float32Array[] = [];
  for await (const f of synthesize(model, text, model.voices.get(voice)!, { temperature: 0 })) out.push(f.pcm);
  return out;
}

describe('GPU-resident constant inputs for the voice loop', () => {
  it('uploads a voice and the fresh Mimi states once, plays the same audio, and uses the voice asked for', async () => {
    const plain = await loadFixtureModel();
    const model = await loadFixtureModel();
    const { log, upload } = countingUpload();
    model.gpuInputs = new GpuInputs(ort, upload);

    const first = await pcm(model, 'alba');
    const uploadsAfterFirst = log.uploads;
    // The six flow-LM KV caches at least; the Mimi caches too.
    expect(uploadsAfterFirst).toBeGreaterThanOrEqual(6 + 1);
    const second = await pcm(model, 'alba', 'Hello again, world. And once more.');
    expect(log.uploads).toBe(uploadsAfterFirst); // two chunks, a second synthesis: nothing uploaded again
    expect(log.disposed).toBe(0); // the generator's releaseStates left the pinned inputs alone

    expect(first).toEqual(await pcm(plain, 'alba'));
    expect(second).toEqual(await pcm(plain, 'alba', 'Hello again, world. And once more.'));
    // Another voice is its own entry: its audio (a different amplitude in the fixture) matches the host-array path.
    const marius = await pcm(model, 'marius');
    expect(log.uploads).toBeGreaterThan(uploadsAfterFirst);
    expect(marius).toEqual(await pcm(plain, 'marius'));
    expect(marius).not.toEqual(first);

    await model.switchToWasm();
    expect(model.gpuInputs).toBeNull();
    expect(log.disposed).toBe(log.uploads);
    await model.release();
    await plain.release();
  });

  it('keeps the three most recent keys: the oldest is freed when a fourth arrives, a hit refreshes a key', () => {
    const { log, upload } = countingUpload();
    const cache = new GpuInputs(ort, upload);
    const big: HostTensor = { dtype: 'float32', dims: [1, 32768], data: new Float32Array(32768) };
    const small: HostTensor = { dtype: 'float32', dims: [4], data: new Float32Array(4) };
    const keys = [{}, {}, {}, {}];
    const feeds = (k: object) => cache.feeds(k, ['a', 'b'], () => [big, small]);
    feeds(keys[0]!);
    feeds(keys[1]!);
    feeds(keys[2]!);
    expect(log.uploads).toBe(3); // only the large tensor of each key moves
    feeds(keys[0]!); // a hit: key 0 becomes the most recent
    feeds(keys[3]!); // evicts key 1, the least recent
    expect(log).toMatchObject({ uploads: 4, disposed: 1 });
    feeds(keys[0]!);
    expect(log.uploads).toBe(4);
    feeds(keys[1]!);
    expect(log.uploads).toBe(5);
    cache.dispose();
    expect(log.disposed).toBe(5);
    expect(cache.size).toBe(0);
  });

  it('releaseStates frees GPU outputs but never a pinned input', () => {
    const disposed: string[] = [];
    const gpu = (name: string) => ({
      type: 'float32',
      dims: [1],
      data: null,
      location: 'gpu-buffer',
      dispose: () => disposed.push(name),
    });
    const states: Feeds = { output: gpu('output'), input: pin(gpu('input')) };
    releaseStates(states);
    expect(disposed).toEqual(['output']);
  });
});
