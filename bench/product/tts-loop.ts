/**
 * The product's Pocket TTS loop against the raw runtime, in one run: `PocketModel` + `synthesize`
 * (models/tts/pocket/: the product's session options, state threading by the bundle's manifests, frame guard, decode
 * batches) on onnxruntime-web in Node (WebGPU through dawn.node with the fp32 graphs and GPU-resident states, or WASM
 * with the int8 graphs, as the voice worker picks them). The heavy graphs are real-size with random weights
 * (bench/stages/pocket-graphs.ts: the flow LM, the flow head, a Mimi-shaped decoder with its own 13 states); the
 * bundle around them (bundle.json, tokenizer, conditioner, voices) is the test fixture's, with the decoder's state
 * manifest written from the decoder graph (the fixture's files come from write-pocket-fixture.ts, in
 * SIDETALK_POCKET_FIXTURE). Every `session.run` is timed where the loop calls it, so the loop's time
 * per audio frame is compared with the runtime's own time in the same frames, and split by graph.
 * On WASM the product's loop runs Mimi in its own ORT instance (a worker thread, product-tts-decoder-thread.mjs, with
 * SIDETALK_DECODER_THREADS threads, default 1) overlapped with the flow LM, against the same model's single-instance
 * loop (`overlapDecode: false`), rounds interleaved in one process (`singleInstance`: its medians, the paired ratios of
 * frame times and of first audio, and the largest sample difference, same seed); `overlapMsPerFrame` is the part of
 * the decoder's run time that fell inside a run of this thread (> 0 only if the two really ran at once) and
 * `cpuOverWall` the process's CPU time over wall time. `--declared 1` adds the declared 1000-slot cache loop
 * (`declaredCache`, single-instance); `--ahead n` sets tts.decodeAheadFrames; `--no-overlap 1` leaves the decoder out.
 *
 *   node product-tts-loop.mjs [--device webgpu|wasm] [--rounds 4] [--frames 48] [--declared 1] [--out f.json]
 * Environment: SIDETALK_ORT_DIST, SIDETALK_WEBGPU_MODULE, SIDETALK_THREADS (bench/product/ort-shim.ts),
 * SIDETALK_DECODER_THREADS.
 */
import * as ort from './ort-shim';
import { PocketModel } from '../../models/tts/pocket/model';
import { synthesize, type SynthesizeOptions } from '../../models/tts/pocket/generator';
import { nodeDecoderPort } from './node-decoder-port';
import type { OrtLike } from '../../models/tts/pocket/ort-types';
import { mediansAfterFirst, parseArgs, r1, ratio, report, runMs, timeRuns, type TimedCall } from './loop-timing';
import { probePrefill } from './tts-prefill-probe';
import { pocketBundleFiles } from './pocket-files';
import { applyOverrides } from '../../core/tunables';

const args = parseArgs();
const device = (args.get('device') ?? 'webgpu') as 'webgpu' | 'wasm';
const rounds = Number(args.get('rounds') ?? 4);
const TEXT = 'The lighthouse keeper climbed the stairs every evening before dark.';
/** Frames per text chunk: EOS never fires on random weights, so each chunk runs to this limit. */
const FRAMES = Number(args.get('frames') ?? 48);

interface Round {
  frames: number;
  backend: string;
  firstAudioMs: number;
  firstAudioRunMs: number;
  loopMsPerFrame: number;
  runMsPerFrame: number;
  loopOverRun: number;
  timesRealtime: number;
  runsPerFrame: number;
  mainMsPerFrame: number;
  flowMsPerFrame: number;
  mimiMsPerFrame: number;
  /** Process CPU time (all threads) over wall time of the round. */
  cpuOverWall: number;
  /** Overlapped loop: the separate decoder's run time per frame, and the part of it that ran during a local run. */
  remoteMimiMsPerFrame: number;
  overlapMsPerFrame: number;
}

/** One loop to time: a model and the synthesize options that pick its loop. */
interface Variant {
  model: PocketModel;
  opts?: SynthesizeOptions;
}

interface Measured {
  rounds: Round[];
  /** The last round's samples, for comparing two variants. */
  pcm: Float32Array[];
}

/** `rounds` syntheses of TEXT with the product's loop per model, interleaved round by round (load hits all alike). */
async function measure(variants: Variant[]): Promise<Measured[]> {
  let calls: TimedCall[] = [];
  let remote: TimedCall[] = [];
  const models = [...new Set(variants.map((v) => v.model))];
  for (const model of models) {
    for (const [graph, entry] of model.sessions) timeRuns(entry.session as never, graph, () => calls);
    const dec = model.separateDecoder;
    if (!dec) continue;
    const decode = dec.decode.bind(dec);
    dec.decode = (...a) =>
      decode(...a).then((d) => {
        const at = (abs: number) => abs - performance.timeOrigin;
        remote.push({ label: 'mimi_decoder', start: at(d.startAbs), end: at(d.endAbs) });
        return d;
      });
  }
  const out: Measured[] = variants.map(() => ({ rounds: [], pcm: [] }));
  for (let r = 0; r < rounds; r++) {
    for (const [i, { model, opts }] of variants.entries()) {
      calls = [];
      remote = [];
      const cpu0 = process.cpuUsage();
      const voice = model.voices.values().next().value!;
      const begin = performance.now();
      const frameAt: number[] = [];
      const pcm: Float32Array[] = [];
      let seed = 7;
      const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
      // EOS never decides here (random weights): every chunk runs to its frame limit, so rounds are alike.
      for await (const frame of synthesize(model, TEXT, voice, {
        temperature: 0.7,
        eosThreshold: Infinity,
        maxFramesPerChunk: FRAMES,
        random,
        ...opts,
      })) {
        frameAt.push(performance.now());
        pcm.push(frame.pcm);
      }
      const finish = performance.now();
      const cpu = process.cpuUsage(cpu0);
      if (frameAt.length < 4) throw new Error(`round ${r}: only ${frameAt.length} frames`);
      const steady = calls.filter((c) => c.start >= frameAt[0]!);
      const steadyRunMs = runMs(steady);
      const loopMs = finish - frameAt[0]!;
      const frames = frameAt.length - 1;
      const firstRuns = calls.filter((c) => c.end <= frameAt[0]!);
      const graphMs = (label: string) => r1(runMs(steady.filter((c) => c.label === label)) / frames);
      out[i]!.rounds.push({
        frames: frameAt.length,
        backend: model.backend,
        firstAudioMs: r1(frameAt[0]! - begin),
        firstAudioRunMs: r1(runMs(firstRuns)),
        loopMsPerFrame: r1(loopMs / frames),
        runMsPerFrame: r1(steadyRunMs / frames),
        loopOverRun: ratio(loopMs, steadyRunMs),
        timesRealtime: Math.round((80 / (loopMs / frames)) * 100) / 100,
        runsPerFrame: Math.round((steady.length / frames) * 100) / 100,
        mainMsPerFrame: graphMs('flow_lm_main'),
        flowMsPerFrame: graphMs('flow_lm_flow'),
        mimiMsPerFrame: graphMs('mimi_decoder'),
        cpuOverWall: ratio((cpu.user + cpu.system) / 1000, finish - begin),
        remoteMimiMsPerFrame: r1(runMs(remote.filter((c) => c.start >= frameAt[0]!)) / frames),
        overlapMsPerFrame: r1(overlapMs(steady, remote) / frames),
      });
      out[i]!.pcm = pcm;
      console.error(`model ${i} round ${r}: ${JSON.stringify(out[i]!.rounds.at(-1))}`);
    }
  }
  return out;
}

/** Time during which a local run and a separate-decoder run were both going. */
function overlapMs(local: readonly TimedCall[], other: readonly TimedCall[]): number {
  let sum = 0;
  for (const a of local) for (const b of other) sum += Math.max(0, Math.min(a.end, b.end) - Math.max(a.start, b.start));
  return sum;
}

function maxAbsDiff(a: Float32Array[], b: Float32Array[]): number {
  if (a.length !== b.length) return Infinity;
  let worst = 0;
  a.forEach((f, k) => f.forEach((x, i) => (worst = Math.max(worst, Math.abs(x - b[k]![i]!)))));
  return worst;
}

const KEYS = [
  'loopMsPerFrame',
  'runMsPerFrame',
  'loopOverRun',
  'firstAudioMs',
  'firstAudioRunMs',
  'timesRealtime',
  'mainMsPerFrame',
  'flowMsPerFrame',
  'mimiMsPerFrame',
  'cpuOverWall',
  'remoteMimiMsPerFrame',
  'overlapMsPerFrame',
] as const;

async function main(): Promise<void> {
  const { files, buildMs } = pocketBundleFiles([device === 'webgpu' ? 'fp32' : 'int8']);
  const t0 = performance.now();
  const load = (extra: object = {}) => PocketModel.load({ ort: ort as unknown as OrtLike, files, backend: device, ...extra });
  // WASM: Mimi in its own ORT instance (a worker thread with SIDETALK_DECODER_THREADS threads), so the same model
  // runs both loops: overlapped (the product) and single-instance (`overlapDecode: false`), rounds interleaved.
  const decoderThreads = process.env.SIDETALK_DECODER_THREADS ?? '1';
  // Node 20 stalls a new thread's start for minutes while V8 optimises ORT's wasm on a busy 2-core box (not seen in
  // Chrome); the bench waits rather than fall back.
  applyOverrides({
    'tts.decoderStartTimeoutMs': 600_000,
    ...(args.has('ahead') ? { 'tts.decodeAheadFrames': Number(args.get('ahead')) } : {}),
  });
  const separateDecoder =
    device === 'wasm' && !args.has('no-overlap')
      ? {
          spawn: () =>
            nodeDecoderPort(new URL('./product-tts-decoder-thread.mjs', import.meta.url), { SIDETALK_THREADS: decoderThreads }),
          numThreads: Number(decoderThreads),
        }
      : undefined;
  const model = await load(separateDecoder ? { separateDecoder } : {});
  const loadMs = performance.now() - t0;
  if (separateDecoder && model.decodeLoop.kind !== 'overlapped') throw new Error(`no overlap: ${model.decodeLoop.reason}`);
  // --declared: also the declared-capacity loop (the product before flow-capacity.ts), single-instance.
  const declared = device === 'wasm' && args.has('declared') ? await load({ chunkSizedCache: false }) : null;
  const variants: Variant[] = [{ model }];
  if (separateDecoder) variants.push({ model, opts: { overlapDecode: false } });
  if (declared) variants.push({ model: declared, opts: { overlapDecode: false } });
  const measured = await measure(variants);
  const product = measured[0]!;
  const perRound = product.rounds;
  const productMedians = mediansAfterFirst(perRound, KEYS);
  const compare = (m: Measured) => {
    const medians = mediansAfterFirst(m.rounds, KEYS);
    return {
      ...medians,
      loopMsPerFrameRatio: ratio(productMedians.medianLoopMsPerFrame!, medians.medianLoopMsPerFrame!),
      firstAudioMsRatio: ratio(productMedians.medianFirstAudioMs!, medians.medianFirstAudioMs!),
      pairedLoopRatios: perRound.map((p, k) => ratio(p.loopMsPerFrame, m.rounds[k]!.loopMsPerFrame)),
      pcmMaxAbsDiff: maxAbsDiff(product.pcm, m.pcm),
      perRound: m.rounds,
    };
  };
  const singleInstance = separateDecoder ? compare(measured[1]!) : undefined;
  const declaredCache = declared ? compare(measured.at(-1)!) : undefined;
  await declared?.release();
  const voice = model.voices.values().next().value!;
  const prefillProbe = await probePrefill(model, voice);
  const gpuInputs = model.gpuInputs !== null;
  const chunkSizedCache = model.chunkSizedCache;
  const decodeLoop = model.decodeLoop;
  await model.release();
  // The same loop with every chunk handing ORT host arrays for the voice and Mimi's fresh states (the product before
  // models/tts/pocket/gpu-inputs.ts), in the same run.
  let hostInputs: Record<string, number> | undefined;
  if (device === 'webgpu') {
    const plain = await load({ gpuInputs: false });
    hostInputs = mediansAfterFirst((await measure([{ model: plain }]))[0]!.rounds, KEYS);
    await plain.release();
  }
  const result = {
    bench: 'product-tts-loop',
    runtime: `onnxruntime-web ${ort.ortVersion} ${device}`,
    adapter: ort.ortAdapter ? `${ort.ortAdapter.vendor} ${ort.ortAdapter.architecture}` : null,
    graphs: device === 'webgpu' ? 'fp32, GPU-resident states' : 'int8',
    gpuInputs,
    chunkSizedCache,
    decodeLoop,
    threads: Number(process.env.SIDETALK_THREADS ?? 4),
    buildMs: Math.round(buildMs),
    loadMs: Math.round(loadMs),
    ...productMedians,
    perRound,
    ...(singleInstance ? { singleInstance } : {}),
    ...(hostInputs ? { hostInputs } : {}),
    ...(declaredCache ? { declaredCache } : {}),
    prefillProbe,
  };
  report(result, args.get('out'));
}

await main();
process.exit(0);
