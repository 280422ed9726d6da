/**
 * The product's whole offscreen pipeline end to end in one Node process (pipeline.ts: the real engine, Silero, Smart
 * Turn, Moonshine with drafts, the LLM loop, the Pocket TTS loop, the sentence speaker), on onnxruntime-web (WebGPU
 * through dawn.node, or WASM), fed the scripted questions (write-pipeline-mic.ts) in 32 ms frames at real time. Per
 * turn, on one clock: end of speech (the engine's own mark), endpoint, ASR done, LLM first token, first sentence to
 * TTS, TTS first frame, first PCM ready to play; end of speech → first audio is measured, not modeled.
 *
 * Stand-ins (in the results' meta): random-weight graphs (bench/stages builders), so the text handed to the LLM is the
 * script's question while the real-size recogniser runs on every transcription (core/conversation/scripted-transcript.ts,
 * as the browser bench does); replies capped at --tokens; the LLM's tokenizer decodes ids as words with clause breaks;
 * Smart Turn's head biased to "complete"; the microphone, the player and the worker threads are Node stand-ins.
 *
 *   node product-pipeline-loop.mjs [--device webgpu|wasm] [--shape full|tiny] [--turns 8] [--tokens 64]
 *     [--tts auto|webgpu|wasm] [--drafts auto|on|off] [--warmup 1|0] [--mic dir] [--out f.json]
 * Environment: SIDETALK_ORT_DIST, SIDETALK_WEBGPU_MODULE, SIDETALK_THREADS (ort-shim.ts), SIDETALK_POCKET_FIXTURE
 * (pocket-files.ts), SIDETALK_PIPELINE_MIC (the folder write-pipeline-mic.ts wrote; default bench/out/gpu-kit/pipeline).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { ortAdapter, ortVersion } from './ort-shim';
import { readWav } from '../../tests/fixtures/audio/make-audio';
import { assemblePipeline } from './pipeline';
import { parseArgs, report } from './loop-timing';
import { summarize, turnRows } from './pipeline-waterfall';
import type { MicQuestion } from './write-pipeline-mic';

const args = parseArgs();
const device = (args.get('device') ?? 'webgpu') as 'webgpu' | 'wasm';
const shape = (args.get('shape') ?? 'full') as 'full' | 'tiny';
const micDir = args.get('mic') ?? process.env.SIDETALK_PIPELINE_MIC ?? 'bench/out/gpu-kit/pipeline';
const log = (line: string) => console.error(`[pipeline] ${line}`);

async function main(): Promise<void> {
  const mic = JSON.parse(readFileSync(join(micDir, 'mic.json'), 'utf8')) as { gapS: number; questions: MicQuestion[] };
  const questions = mic.questions.slice(0, Number(args.get('turns') ?? mic.questions.length));
  const plain = join(tmpdir(), `sidetalk-pipeline-mic-${process.pid}.wav`);
  writeFileSync(plain, gunzipSync(readFileSync(join(micDir, 'mic.wav.gz'))));
  const wav = readWav(plain);
  if (wav.sampleRate !== 16_000) throw new Error(`mic.wav is ${wav.sampleRate} Hz, not 16 kHz`);
  const samples = wav.samples.subarray(0, Math.round(questions.at(-1)!.endS * 16_000));
  const pipeline = await assemblePipeline({
    device,
    shape,
    maxNewTokens: Number(args.get('tokens') ?? 64),
    ttsBackend: (args.get('tts') ?? 'auto') as 'auto' | 'webgpu' | 'wasm',
    drafts: (args.get('drafts') ?? 'auto') as 'auto' | 'on' | 'off',
    sileroOnnx: new Uint8Array(readFileSync(join(micDir, 'silero_vad_v5.onnx'))),
    log,
  });
  const first = questions[0]!;
  const warmUpMs =
    args.get('warmup') === '0'
      ? null
      : await pipeline.warmUp(wav.samples.slice(Math.round(first.startS * 16_000), Math.round((first.startS + 2.5) * 16_000)));
  log(`warm-up ${warmUpMs} ms; playing ${questions.length} questions (${(samples.length / 16_000).toFixed(1)} s)`);

  let playStart = 0;
  let next = 0;
  const feed = await pipeline.play(samples, (frame, capturedAt) => {
    if (frame === 0) playStart = capturedAt - 32;
    const q = questions[next];
    if (q && (frame * 32) / 1000 >= q.startS) {
      pipeline.script.set(q.text, performance.now(), (q.endS - q.startS) * 1000);
      next += 1;
    }
  });
  // The last reply may still be on its way: wait for it (its end of speech is in the file's last gap).
  const deadline = performance.now() + 30_000;
  const settled = () => {
    const rows = turnRows(pipeline.stamps());
    const ended = new Set(
      pipeline
        .stamps()
        .filter((s) => ['done', 'failed', 'interrupted'].includes(s.name))
        .map((s) => s.turnId),
    );
    return rows.every((r) => r.complete || ended.has(r.turnId));
  };
  while (!settled() && performance.now() < deadline) await new Promise((r) => setTimeout(r, 100));

  const stamps = pipeline.stamps();
  const questionAt = (at: number) => questions.find((q) => (at - playStart) / 1000 < q.endS)?.text ?? null;
  const rows = turnRows(stamps).map((r) => ({
    question: questionAt(r.endOfSpeechAt),
    atS: Math.round((r.endOfSpeechAt - playStart) / 100) / 10,
    ...r,
    llm: stamps.some((s) => s.turnId === r.turnId && s.name === 'llm-start'),
    // The next question talked over this reply and cut it (its first audio was measured before that).
    cutByBargeIn: stamps.some((s) => s.turnId === r.turnId && s.name === 'barge-in'),
    outcome: stamps.find((s) => s.turnId === r.turnId && ['done', 'failed', 'interrupted'].includes(s.name))?.name ?? null,
  }));
  for (const r of rows) log(`turn ${r.turnId} at ${r.atS} s: ${JSON.stringify(r.after)} → ${r.endOfSpeechToAudio} ms`);
  const result = {
    bench: 'product-pipeline-loop',
    runtime: `onnxruntime-web ${ortVersion} ${device}`,
    adapter: ortAdapter ? `${ortAdapter.vendor} ${ortAdapter.architecture} ${ortAdapter.description ?? ''}`.trim() : null,
    device,
    shape,
    measured:
      'end of speech → first audio: wall clock in one Node process, the product engine and model loops at real time ' +
      '(no browser hops: the worker messages are in-process, the player is a stand-in)',
    standIns: {
      weights: 'random, real-size graphs (bench/stages builders); tiny shapes with --shape tiny',
      transcript: "the script's question is handed to the LLM; the recogniser still runs on every transcription",
      llm: `replies capped at ${args.get('tokens') ?? 64} tokens (llm.maxNewTokens); tokenizer decodes ids as words with clause breaks`,
      turn: 'Smart Turn head biased to "complete"',
      io: 'WAV microphone at real time (wall clock); the side panel player simulated (tests/fixtures/audio/sim-player.ts); workers in-process',
    },
    meta: { ...pipeline.meta, warmUpMs, questions: questions.length, gapS: mic.gapS, feed },
    summary: summarize(rows),
    rows,
  };
  report(result, args.get('out'));
  await pipeline.close();
}

await main();
process.exit(0);
