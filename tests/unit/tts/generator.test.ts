import { beforeAll, describe, expect, it } from 'vitest';
import { synthesize, type AudioFrame, type StepInfo } from '../../../models/tts/pocket/generator';
import type { PocketModel } from '../../../models/tts/pocket/model';
import type { OrtTensorLike } from '../../../models/tts/pocket/ort-types';
import { mimiDecoder } from '../../fixtures/pocket/graphs';
import { mimiManifest } from '../../fixtures/pocket/generate';
import { loadFixtureModel, NODE_SESSION_OPTIONS, ort, seededRandom } from './helpers';

// Fixture semantics (tests/fixtures/pocket/graphs.ts): latent = [k, step, voice amplitude, …] at temperature 0,
// EOS logit 0 once k (frames since BOS) reaches eosAt = 6; the decoder plays amp · sin(2π (g mod 100) / 100) where g
// is a sample counter carried in mimi state_21.
const expected = (amp: number, g: number) => amp * Math.sin((2 * Math.PI * (g % 100)) / 100);

async function collect(model: PocketModel, text: string, voice = 'alba', opts: Parameters<typeof synthesize>[3] = {}) {
  const frames: AudioFrame[] = [];
  const steps: StepInfo[] = [];
  for await (const f of synthesize(model, text, model.voices.get(voice)!, {
    temperature: 0,
    onStep: (s) => steps.push(s),
    ...opts,
  }))
    frames.push(f);
  return { frames, steps };
}

function expectSine(frames: AudioFrame[], amp: number, startSample = 0) {
  frames.forEach((f, k) => {
    for (const n of [0, 1, 19, 20, 957, 1919]) expect(f.pcm[n]).toBeCloseTo(expected(amp, startSample + k * 1920 + n), 5);
  });
}

describe('Pocket generation loop over contract-exact fixture graphs (onnxruntime-node)', () => {
  let model: PocketModel;
  beforeAll(async () => {
    model = await loadFixtureModel();
  });

  it('stops at EOS + frames-after-EOS; frames are 1920 samples, phase-continuous across frames', async () => {
    // "hello world" → 2 words → framesAfterEos = 3 + 2 = 5; EOS at step 6 → steps 6..10 still play, break at 11.
    const { frames, steps } = await collect(model, 'hello world');
    expect(steps.findIndex((s) => s.eosLogit > -4)).toBe(6);
    expect(frames).toHaveLength(11);
    for (const f of frames) expect(f.pcm.length).toBe(1920);
    expect(frames.map((f) => f.frameIndex)).toEqual([...Array(11).keys()]);
    expectSine(frames, 0.5); // one continuous sine: the phase state was threaded between decoder calls
  });

  it('threads flow-LM state: step = voice prefix + text tokens + 1 per frame, voice read from the cache prefix', async () => {
    const ids = model.tokenizer.encode('Hello world.');
    const { steps, frames } = await collect(model, 'hello world', 'marius');
    steps.forEach((s, i) => {
      expect(s.latent[0]).toBe(i); // k: previous latent fed back (NaN → bos at step 0)
      expect(s.latent[1]).toBe(126 + ids.length + i + 1); // the step counter in the states advanced every call
    });
    expect(steps[0]!.latent[2]).toBeCloseTo(0.3); // marius's amplitude from slot 1 of the copied prefix
    expectSine(frames, 0.3);
  });

  it('wrong threading is visible: decoding with fresh mimi states restarts the phase', async () => {
    // What a driver that forgot out_state → state would hear: both frames start at phase 0.
    const { freshStates } = await import('../../../models/tts/pocket/state');
    const run = async (states: Record<string, OrtTensorLike>) =>
      model.session('mimi_decoder').run({
        latent: new ort.Tensor(
          'float32',
          Float32Array.from({ length: 32 }, (_, i) => (i === 2 ? 0.5 : 0)),
          [1, 1, 32],
        ),
        ...states,
      });
    const first = await run(freshStates(ort, model.bundle.mimi_state_manifest));
    const unthreaded = await run(freshStates(ort, model.bundle.mimi_state_manifest));
    const threaded = await run(
      Object.fromEntries(model.bundle.mimi_state_manifest.map((e) => [e.input_name, first[e.output_name]!])),
    );
    expect((unthreaded.audio_frame!.data as Float32Array)[0]).toBeCloseTo(0);
    expect((threaded.audio_frame!.data as Float32Array)[0]).toBeCloseTo(expected(0.5, 1920));
    expect(Math.abs(expected(0.5, 1920))).toBeGreaterThan(0.4);
  });

  it('streams: frame 0 reaches the consumer before step 1 runs', async () => {
    const log: string[] = [];
    for await (const f of synthesize(model, 'hello world', model.voices.get('alba')!, {
      temperature: 0,
      onStep: (s) => log.push(`step ${s.step}`),
    })) {
      log.push(`frame ${f.frameIndex}`);
      if (f.frameIndex === 1) break;
    }
    expect(log).toEqual(['step 0', 'frame 0', 'step 1', 'frame 1']);
  });

  it('cancel stops within one frame', async () => {
    const ac = new AbortController();
    const got: number[] = [];
    let stepsAfterAbort = 0;
    await expect(
      (async () => {
        for await (const f of synthesize(model, 'hello world', model.voices.get('alba')!, {
          temperature: 0,
          signal: ac.signal,
          onStep: () => ac.signal.aborted && stepsAfterAbort++,
        })) {
          got.push(f.frameIndex);
          if (f.frameIndex === 2) ac.abort();
        }
      })(),
    ).rejects.toMatchObject({ name: 'AbortError' });
    expect(got).toEqual([0, 1, 2]);
    expect(stepsAfterAbort).toBe(0);
  });

  it('several chunks: each restarts from the voice; decoder state fresh per chunk unless carried', async () => {
    const text = Array.from({ length: 8 }, () => 'hello world hello world hello world.').join(' ');
    const chunks = (await import('../../../models/tts/pocket/generator')).chunksFor(model, text);
    expect(chunks.length).toBeGreaterThan(1);
    const fresh = await collect(model, text);
    const byChunk = (fs: AudioFrame[]) => chunks.map((_, c) => fs.filter((f) => f.chunkIndex === c));
    for (const fs of byChunk(fresh.frames)) expectSine(fs, 0.5, 0);
    const firstStepOfChunk1 = fresh.steps.find((s) => s.chunkIndex === 1)!;
    expect(firstStepOfChunk1.latent[1]).toBe(126 + chunks[1]!.ids.length + 1); // restarted from the voice prefix
    const carried = await collect(model, text, 'alba', { carryDecoderStateAcrossChunks: true });
    expectSine(carried.frames, 0.5, 0); // one continuous sine over all chunks
    expect(carried.frames.map((f) => f.frameIndex)).toEqual([...Array(carried.frames.length).keys()]);
  });

  it('temperature adds √T-scaled noise, reproducible with a seeded source', async () => {
    // The fixture decoder's amplitude is latent[2], so noise can push it past the overflow guard: judge raw output.
    const noisy = { temperature: 0.7, guardFrames: false, maxFramesPerChunk: 8 };
    const a = await collect(model, 'hello world', 'alba', { ...noisy, random: seededRandom(1) });
    const b = await collect(model, 'hello world', 'alba', { ...noisy, random: seededRandom(1) });
    expect(a.steps[0]!.latent).toEqual(b.steps[0]!.latent);
    const deviations = a.steps.flatMap((s) => Array.from(s.latent.subarray(3)).map((v) => v - 0.01));
    const std = Math.sqrt(deviations.reduce((x, d) => x + d * d, 0) / deviations.length);
    expect(std).toBeGreaterThan(0.6);
    expect(std).toBeLessThan(1.1);
  });

  it('respects the max-frames cap', async () => {
    const { frames } = await collect(model, 'hello world', 'alba', { maxFramesPerChunk: 4 });
    expect(frames).toHaveLength(4);
  });
});

describe('WebGPU → WASM fallback mid-session', () => {
  it('a NaN frame on the "webgpu" decoder moves the session to WASM and the utterance completes clean', async () => {
    // The "webgpu" decoder is a real ONNX graph that emits NaN — how the int8 graphs behave on WebGPU (§6).
    const nanDecoder = mimiDecoder(mimiManifest(), 'nan');
    const model = await loadFixtureModel(
      {},
      {
        backend: 'webgpu',
        sessionFactory: (graph, backend, bytes) =>
          ort.InferenceSession.create(
            graph === 'mimi_decoder' && backend === 'webgpu' ? nanDecoder : bytes,
            NODE_SESSION_OPTIONS[backend],
          ),
      },
    );
    expect(model.backend).toBe('webgpu');
    const switches: number[] = [];
    const { frames } = await collect(model, 'hello world', 'alba', { onBackendSwitch: (s) => switches.push(s.frameIndex) });
    expect(switches).toEqual([0]);
    expect(model.backend).toBe('wasm');
    expect(frames).toHaveLength(11);
    expectSine(frames, 0.5);
  });
});
