/**
 * The product's Pocket TTS loop against the raw runtime, in one run: `PocketModel` + `synthesize`
 * (models/tts/pocket/: the product's session options, state threading by the bundle's manifests, frame guard, decode
 * batches) on onnxruntime-web in Node (WebGPU through dawn.node with the fp32 graphs and GPU-resident states, or WASM
 * with the int8 graphs, as the voice worker picks them). The heavy graphs are real-size with random weights
 * (bench/stages/pocket-graphs.ts: the flow LM, the flow head, a Mimi-shaped decoder with its own 13 states); the
 * bundle around them (bundle.json, tokenizer, conditioner, voices) is the test fixture's, with the decoder's state
 * manifest written from the decoder graph (the fixture's files come from write-pocket-fixture.ts, in
 * SIDETALK_POCKET_FIXTURE). Every `session.run` is timed where the loop calls it, so the loop's time
 * per audio frame is compared with the runtime's own time in the same frames.
 *
 *   node product-tts-loop.mjs [--device webgpu|wasm] [--rounds 4] [--out f.json]
 * Environment: SIDETALK_ORT_DIST, SIDETALK_WEBGPU_MODULE, SIDETALK_THREADS (bench/product/ort-shim.ts).
 */
import * as ort from './ort-shim';
import { PocketModel } from '../../models/tts/pocket/model';
import { synthesize } from '../../models/tts/pocket/generator';
import type { OrtLike } from '../../models/tts/pocket/ort-types';
import { mediansAfterFirst, parseArgs, r1, ratio, report, runMs, timeRuns, type TimedCall } from './loop-timing';
import { probePrefill } from './tts-prefill-probe';
import { pocketBundleFiles } from './pocket-files';

const args = parseArgs();
const device = (args.get('device') ?? 'webgpu') as 'webgpu' | 'wasm';
const rounds = Number(args.get('rounds') ?? 4);
const TEXT = 'The lighthouse keeper climbed the stairs every evening before dark.';
/** Frames per text chunk: EOS never fires on random weights, so each chunk runs to this limit. */
const FRAMES = 48;

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
}

/** `rounds` syntheses of TEXT with the product's loop, each session's runs timed where the loop calls them. */
async function measure(model: PocketModel): Promise<Round[]> {
  let calls: TimedCall[] = [];
  for (const [graph, entry] of model.sessions) timeRuns(entry.session as never, graph, () => calls);
  const voice = model.voices.values().next().value!;
  const perRound: Round[] = [];
  for (let r = 0; r < rounds; r++) {
    calls = [];
    const begin = performance.now();
    const frameAt: number[] = [];
    let seed = 7;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    // EOS never decides here (random weights): every chunk runs to its frame limit, so rounds are alike.
    for await (const _frame of synthesize(model, TEXT, voice, {
      temperature: 0.7,
      eosThreshold: Infinity,
      maxFramesPerChunk: FRAMES,
      random,
    })) {
      frameAt.push(performance.now());
    }
    const finish = performance.now();
    if (frameAt.length < 4) throw new Error(`round ${r}: only ${frameAt.length} frames`);
    const steady = calls.filter((c) => c.start >= frameAt[0]!);
    const steadyRunMs = runMs(steady);
    const loopMs = finish - frameAt[0]!;
    const frames = frameAt.length - 1;
    const firstRuns = calls.filter((c) => c.end <= frameAt[0]!);
    perRound.push({
      frames: frameAt.length,
      backend: model.backend,
      firstAudioMs: r1(frameAt[0]! - begin),
      firstAudioRunMs: r1(runMs(firstRuns)),
      loopMsPerFrame: r1(loopMs / frames),
      runMsPerFrame: r1(steadyRunMs / frames),
      loopOverRun: ratio(loopMs, steadyRunMs),
      timesRealtime: Math.round((80 / (loopMs / frames)) * 100) / 100,
      runsPerFrame: Math.round((steady.length / frames) * 100) / 100,
    });
    console.error(`round ${r}: ${JSON.stringify(perRound.at(-1))}`);
  }
  return perRound;
}

const KEYS = ['loopMsPerFrame', 'runMsPerFrame', 'loopOverRun', 'firstAudioMs', 'firstAudioRunMs', 'timesRealtime'] as const;

async function main(): Promise<void> {
  const { files, buildMs } = pocketBundleFiles([device === 'webgpu' ? 'fp32' : 'int8']);
  const t0 = performance.now();
  const model = await PocketModel.load({ ort: ort as unknown as OrtLike, files, backend: device });
  const loadMs = performance.now() - t0;
  const perRound = await measure(model);
  const voice = model.voices.values().next().value!;
  const prefillProbe = await probePrefill(model, voice);
  const gpuInputs = model.gpuInputs !== null;
  await model.release();
  // The same loop with every chunk handing ORT host arrays for the voice and Mimi's fresh states (the product before
  // models/tts/pocket/gpu-inputs.ts), in the same run.
  let hostInputs: Record<string, number> | undefined;
  if (device === 'webgpu') {
    const plain = await PocketModel.load({ ort: ort as unknown as OrtLike, files, backend: device, gpuInputs: false });
    hostInputs = mediansAfterFirst(await measure(plain), KEYS);
    await plain.release();
  }
  const result = {
    bench: 'product-tts-loop',
    runtime: `onnxruntime-web ${ort.ortVersion} ${device}`,
    adapter: ort.ortAdapter ? `${ort.ortAdapter.vendor} ${ort.ortAdapter.architecture}` : null,
    graphs: device === 'webgpu' ? 'fp32, GPU-resident states' : 'int8',
    gpuInputs,
    buildMs: Math.round(buildMs),
    loadMs: Math.round(loadMs),
    ...mediansAfterFirst(perRound, KEYS),
    perRound,
    ...(hostInputs ? { hostInputs } : {}),
    prefillProbe,
  };
  report(result, args.get('out'));
}

await main();
process.exit(0);
