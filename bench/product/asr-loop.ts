/**
 * The product's speech recognition against the raw runtime, in one run: `AsrRuntime` (models/asr/asr-runtime.ts: the
 * transformers.js pipeline assembled from the pinned files, its token cap, log-prob recorder and draft check) loading
 * the pinned Moonshine repo over HTTP from a local hub with real-size random-weight graphs (asr-hub.ts), on
 * onnxruntime-web (WebGPU through dawn.node, or WASM). Each clip is transcribed in full, then with a draft of all but
 * its last two tokens (what the engine passes after an earlier transcript of the same growing clip: the path that
 * decides "ASR after the endpoint"). Every encoder and decoder `session.run` is timed where transformers.js calls it.
 *
 * Random weights never emit the end token, so the decode length is the product's cap: the bench sets the cap to
 * 4.5 tokens per second of audio with no floor (`asr.maxTokensPerSecond`, `asr.minNewTokens`), about what real
 * Moonshine emits for speech (the stage bench's plans use 4 per second + 1), so a clip decodes a realistic count.
 *
 *   node product-asr-loop.mjs [--shape full|tiny] [--device webgpu|webgpu-all|wasm] [--seconds 1,2,5] [--rounds 4] [--out f.json]
 * Environment: SIDETALK_ORT_DIST, SIDETALK_WEBGPU_MODULE, SIDETALK_THREADS (bench/product/ort-shim.ts).
 */
import * as ort from './ort-shim';
import { ortAdapter, ortVersion } from './ort-shim';
import { probePause } from './pause-probe';
import type { OrtLike } from '../../models/ort-like';
import { serveLocalHub } from './local-hub';
import { AsrRuntime, type Transcript } from '../../models/asr/asr-runtime';
import { setTunable } from '../../core/tunables';
import { MOONSHINE_BASE, MOONSHINE_TINY } from '../stages/moonshine-graphs';
import { writeMoonshineHub } from './asr-hub';
import { medianAfterFirst, parseArgs, r1, ratio, report, runMs, timeRuns, type TimedCall } from './loop-timing';

const args = parseArgs();
const shapeName = args.get('shape') ?? 'full';
/** 'webgpu' is the product's placement (models/asr/session-devices.ts); 'webgpu-all' keeps the decoder on WebGPU too. */
const deviceArg = (args.get('device') ?? 'webgpu') as 'webgpu' | 'webgpu-all' | 'wasm';
const device = deviceArg === 'webgpu-all' ? 'webgpu' : deviceArg;
const rounds = Number(args.get('rounds') ?? 4);
const secondsList = (args.get('seconds') ?? '1,2,5').split(',').map(Number);
const shape = shapeName === 'tiny' ? MOONSHINE_TINY : MOONSHINE_BASE;
const RATE = 16000;

/** A voiced-looking clip: a few harmonics under a slow envelope plus a little noise (deterministic). */
function clip(seconds: number): Float32Array {
  const out = new Float32Array(Math.round(seconds * RATE));
  let seed = 7;
  for (let i = 0; i < out.length; i++) {
    seed = (seed * 1103515245 + 12345) >>> 0;
    const t = i / RATE;
    const env = 0.5 + 0.5 * Math.sin(2 * Math.PI * 3 * t);
    const voice =
      Math.sin(2 * Math.PI * 140 * t) + 0.5 * Math.sin(2 * Math.PI * 280 * t) + 0.25 * Math.sin(2 * Math.PI * 420 * t);
    out[i] = 0.1 * env * voice + 0.005 * (seed / 2 ** 32 - 0.5);
  }
  return out;
}

interface Measured {
  ms: number;
  runMs: number;
  encoderMs: number;
  decoderRuns: number;
  decoderMs: number;
  tokens: number;
  draftAccepted: number;
}

async function main(): Promise<void> {
  for (const [path, value] of [
    ['asr.minNewTokens', 1],
    ['asr.maxTokensPerSecond', 4.5],
  ] as const) {
    const set = setTunable(path, value);
    if (!set.ok) throw new Error(`${path}: ${set.error}`);
  }
  const { written, close } = await serveLocalHub((root) => writeMoonshineHub(root, shape));
  const t0 = performance.now();
  const asr = await AsrRuntime.load({ family: 'moonshine', device, warmUp: true, splitSessions: deviceArg !== 'webgpu-all' });
  const loadMs = performance.now() - t0;
  const sessions = (asr as unknown as { asr: { model: { sessions: Record<string, { run: (f: never) => Promise<unknown> }> } } })
    .asr.model.sessions;
  let calls: TimedCall[] = [];
  timeRuns(sessions.model!, 'encoder', () => calls);
  timeRuns(sessions.decoder_model_merged!, 'decoder', () => calls);

  const measure = async (audio: Float32Array, draft?: number[]): Promise<{ m: Measured; t: Transcript }> => {
    calls = [];
    const begin = performance.now();
    const t = await asr.transcribe(audio, draft ? { draft } : {});
    const ms = performance.now() - begin;
    const dec = calls.filter((c) => c.label === 'decoder');
    const m: Measured = {
      ms: r1(ms),
      runMs: r1(runMs(calls)),
      encoderMs: r1(runMs(calls.filter((c) => c.label === 'encoder'))),
      decoderRuns: dec.length,
      decoderMs: r1(runMs(dec)),
      tokens: t.tokens,
      draftAccepted: t.draftAccepted,
    };
    return { m, t };
  };

  const perClip = [];
  for (const seconds of secondsList) {
    const audio = clip(seconds);
    const full: Measured[] = [];
    const drafted: Measured[] = [];
    for (let r = 0; r < rounds; r++) {
      const a = await measure(audio);
      full.push(a.m);
      // The draft an earlier transcript of the same clip gives: all but the last two tokens.
      const b = await measure(audio, a.t.ids.slice(0, Math.max(0, a.t.ids.length - 2)));
      drafted.push(b.m);
      if (b.t.text !== a.t.text) throw new Error(`${seconds} s: the drafted transcript differs from the full one`);
      console.error(`${seconds} s round ${r}: full ${JSON.stringify(a.m)} drafted ${JSON.stringify(b.m)}`);
    }
    const med = (xs: Measured[], k: keyof Measured) => medianAfterFirst(xs.map((x) => x[k]));
    const summary = (xs: Measured[]) => ({
      ms: med(xs, 'ms'),
      runMs: med(xs, 'runMs'),
      loopOverRun: ratio(med(xs, 'ms'), med(xs, 'runMs')),
      encoderMs: med(xs, 'encoderMs'),
      decoderRuns: med(xs, 'decoderRuns'),
      decoderMsPerRun: r1(med(xs, 'decoderMs') / med(xs, 'decoderRuns')),
      tokens: med(xs, 'tokens'),
      draftAccepted: med(xs, 'draftAccepted'),
    });
    perClip.push({ seconds, full: summary(full), drafted: summary(drafted), rounds: { full, drafted } });
  }
  // The pause: the end-of-turn question and the speculative transcription of the 2 s clip (else the first), together.
  const pauseSeconds = secondsList.includes(2) ? 2 : secondsList[0]!;
  const pauseAudio = clip(pauseSeconds);
  const ids = (await asr.transcribe(pauseAudio)).ids;
  const pause = await probePause(
    ort as unknown as OrtLike,
    device,
    asr,
    pauseAudio,
    ids.slice(0, Math.max(0, ids.length - 2)),
    rounds,
  );
  const result = {
    bench: 'product-asr-loop',
    runtime: `onnxruntime-web ${ortVersion} ${deviceArg}`,
    sessions: asr.devices,
    adapter: ortAdapter ? `${ortAdapter.vendor} ${ortAdapter.architecture} ${ortAdapter.description ?? ''}`.trim() : null,
    shape: shapeName,
    graph: {
      buildMs: Math.round(written.graphMs),
      encoderBytes: written.encoderBytes,
      decoderBytes: written.decoderBytes,
      decoderStepNodes: written.decoderNodes,
    },
    loadMs: Math.round(loadMs),
    rounds,
    perClip,
    pause,
  };
  report(result, args.get('out'));
  await asr.dispose();
  await close();
}

await main();
process.exit(0);
