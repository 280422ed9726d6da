/**
 * The offscreen document's conversation pipeline assembled in one Node process (entrypoints/offscreen/conversation.ts
 * is the wiring it follows): the product's DuplexEngine, its microphone feed with Silero (mic-feed.ts), the model
 * worker's logic (ModelHost: Moonshine with drafts, Smart Turn, the LFM2 loop) behind the product's ModelWorkerClient,
 * the Pocket TTS worker's logic (PocketWorkerHost) behind the product's TtsClient, the product's responder and
 * SentenceSpeaker. Only the DOM-bound ends are stand-ins (pipeline-io.ts: the microphone and the side panel's player;
 * in-process-worker.ts: the Worker threads). Every stamp is on this process's performance.now().
 */
import { cpus } from 'node:os';
import { env } from '@huggingface/transformers';
import * as ort from './ort-shim';
import { BUILT_IN_CHARACTERS } from '../../core/characters/built-ins';
import { buildPersonaPrompt } from '../../core/characters/persona-prompt';
import { createResponder } from '../../core/conversation/responder';
import { TranscriptScript } from '../../core/conversation/scripted-transcript';
import { draftsAffordable } from '../../core/engine/asr-drafts';
import { DuplexEngine } from '../../core/engine/duplex-engine';
import type { TurnEvent } from '../../core/engine/types';
import { FactMemory } from '../../core/memory/fact-memory';
import { setTunable } from '../../core/tunables';
import type { OrtNamespace } from '../../models/gpu/runtime';
import type { OrtLike } from '../../models/tts/pocket/ort-types';
import { PocketWorkerHost } from '../../models/tts/pocket/worker-host';
import { sileroWeights } from '../../models/vad/silero-js';
import { ModelHost } from '../../models/workers/model-host';
import type { MicCapture } from '../../models/audio/mic-capture';
import { feedEngine } from '../../entrypoints/offscreen/mic-feed';
import { ModelWorkerClient } from '../../entrypoints/offscreen/model-client';
import { SentenceSpeaker } from '../../entrypoints/offscreen/sentence-speaker';
import { TtsClient, type TtsFrame } from '../../entrypoints/offscreen/tts-client';
import type { VoiceService } from '../../entrypoints/offscreen/voices';
import { inProcessWorker } from './in-process-worker';
import { installEmptyCaches, installFetchRetry, NodeAudioSink, WavMic, yieldBeforeRuns } from './pipeline-io';
import { writePipelineHub, type PipelineModels, type PipelineShape } from './pipeline-hub';
import type { Stamp } from './pipeline-waterfall';
import { pocketBundleFiles } from './pocket-files';
import { serveLocalHub } from './local-hub';

export interface PipelineOptions {
  device: 'webgpu' | 'wasm';
  shape: PipelineShape;
  /** The reply's token cap (llm.maxNewTokens): random weights never write the end token. */
  maxNewTokens: number;
  /** The voice's backend: the product's choice ('auto': WebGPU after its self-test), or one forced. */
  ttsBackend: 'auto' | 'webgpu' | 'wasm';
  /** ASR drafts while the user speaks: the product's rule ('auto': a hardware GPU), or forced. */
  drafts: 'auto' | 'on' | 'off';
  /** The Silero VAD weights the product ships. */
  sileroOnnx: Uint8Array;
  log: (line: string) => void;
}

export interface Pipeline {
  /** Plays `samples` into the engine at real time; `onTick` runs before each 32 ms frame. */
  play(samples: Float32Array, onTick: (frame: number, at: number) => void): Promise<{ frames: number; maxLateMs: number }>;
  /** Every stamp so far: the engine's turn marks and the pipeline's own (tts-first-frame, audio-ready). */
  stamps(): Stamp[];
  script: TranscriptScript;
  /**
   * One pass of each model before the microphone opens (a transcription with and without a draft, an end-of-turn
   * question, a reply to "Hello.", a sentence of speech), so the first turn does not pay the kernels' and shaders' set-up alone.
   */
  warmUp(clip: Float32Array): Promise<number>;
  meta: Record<string, unknown>;
  close(): Promise<void>;
}

export async function assemblePipeline(o: PipelineOptions): Promise<Pipeline> {
  const set = setTunable('llm.maxNewTokens', o.maxNewTokens);
  if (!set.ok) throw new Error(`llm.maxNewTokens: ${set.error}`);
  const t0 = performance.now();
  const hub = await serveLocalHub((root) => writePipelineHub(root, o.shape));
  const models: PipelineModels = hub.written;
  o.log(`hub written in ${Math.round(performance.now() - t0)} ms: ${JSON.stringify(models)}`);
  const gpu = (globalThis.navigator as { gpu?: unknown } | undefined)?.gpu ?? null;

  const client = new ModelWorkerClient(() =>
    inProcessWorker(
      (post) =>
        new ModelHost({
          ort: ort as unknown as OrtNamespace,
          gpu: o.device === 'webgpu' ? gpu : null,
          crossOriginIsolated: true,
          hardwareConcurrency: cpus().length,
          post,
        }),
    ),
  );
  installEmptyCaches();
  installFetchRetry();
  yieldBeforeRuns(ort.InferenceSession as unknown as { prototype: object });
  const ready = await client.init(String(ort.env.wasm.wasmPaths));
  const t1 = performance.now();
  const loadedOn = await client.load(env.remoteHost, 'moonshine', ['asr', 'llm', 'turn'], o.device);
  const modelLoadMs = performance.now() - t1;
  o.log(`models on ${loadedOn} in ${Math.round(modelLoadMs)} ms (worker ready: ${JSON.stringify(ready)})`);

  const tts = new TtsClient(() =>
    inProcessWorker(
      (post) =>
        new PocketWorkerHost({
          ort: ort as unknown as OrtLike,
          post,
          adapterIdentity: async () =>
            ort.ortAdapter
              ? {
                  vendor: ort.ortAdapter.vendor ?? '',
                  architecture: ort.ortAdapter.architecture ?? '',
                  description: ort.ortAdapter.description ?? '',
                }
              : null,
        }),
    ),
  );
  const gpuVoice = o.device === 'webgpu' && o.ttsBackend !== 'wasm';
  // Pocket is full-size in both shapes: the fixture's voices are the real model's states (pocket-files.ts).
  const pocket = pocketBundleFiles(gpuVoice ? ['int8', 'fp32'] : ['int8']);
  const t2 = performance.now();
  // The worker takes bytes as well as URLs (models/tts/pocket/worker-host.ts); the client's type names the URLs.
  const ttsFiles = Object.fromEntries(pocket.files) as unknown as Record<string, string>;
  await tts.load(ttsFiles, { backend: (gpuVoice ? o.ttsBackend : 'wasm') as 'auto' });
  const ttsLoadMs = performance.now() - t2;
  o.log(`voice on ${tts.backend} in ${Math.round(ttsLoadMs)} ms`);

  const stamps: Stamp[] = [];
  const turnOf = new WeakMap<AbortSignal, string>();
  const firstFrame = new Set<string>();
  const audio = new NodeAudioSink(() => performance.now());
  // VoiceService without its IndexedDB clones and previews: the TTS client, and the voice the character asks for.
  const voices = {
    tts: {
      get voices() {
        return tts.voices;
      },
      speak: (text: string, voiceId: string, signal: AbortSignal, onFrame: (f: TtsFrame) => void) =>
        tts.speak(text, voiceId, signal, (frame) => {
          const turnId = turnOf.get(signal);
          if (turnId && !firstFrame.has(turnId)) {
            firstFrame.add(turnId);
            stamps.push({ name: 'tts-first-frame', turnId, at: performance.now() });
          }
          onFrame(frame);
        }),
    },
    pickVoice: (wanted: string) =>
      tts.voices.find((v) => v.id === wanted)?.id ?? tts.voices.find((v) => v.kind === 'preset')?.id ?? tts.voices[0]!.id,
    stopPreview: () => undefined,
  } as unknown as VoiceService;
  const character = BUILT_IN_CHARACTERS[0]!;
  const speaker = new SentenceSpeaker(
    voices,
    audio,
    () => character,
    (m) => o.log(`voice failure: ${m}`),
  );
  const responder = createResponder({
    generate: (messages, signal, tools) => client.generate(messages, signal, tools),
    runTool: async (call) => ({ ok: false, tool: call.name, kind: 'offline', speech: 'That service is offline.' }),
    readPage: async () => ({ ok: false, message: 'No page here.' }),
    systemPrompt: () => buildPersonaPrompt(character, { toolsAvailable: true }),
    onCard: () => undefined,
  });
  const script = new TranscriptScript();
  const adapter = ort.ortAdapter;
  const gpuInfo = adapter
    ? { isFallbackAdapter: adapter.isFallbackAdapter ?? false, architecture: adapter.architecture ?? '' }
    : null;
  const memory = new FactMemory();
  memory.enabled = false;
  const engine = new DuplexEngine({
    clock: { now: () => performance.now(), date: () => new Date() },
    memory,
    timeZone: 'UTC',
    stages: {
      transcribe: async (pcm, signal, draft) => {
        const out = await client.transcribe(pcm, signal, 'en', draft);
        // The scripted transcript stand-in: random weights write random text (the recogniser's work is real).
        const text = script.heard(out.text, performance.now());
        return { text, confidence: out.confidence ?? 1, draft: out.ids, draftAccepted: out.draftAccepted };
      },
      draftsAffordable: () => (o.drafts === 'auto' ? draftsAffordable(client.backend, gpuInfo) : o.drafts === 'on'),
      endOfTurn: (pcm, signal) => client.endOfTurn(pcm, signal),
      respond: (turn, signal) => responder.respond(turn, signal),
      route: (turn) => responder.route(turn),
      speak: (sentence, signal, meta) => {
        turnOf.set(signal, meta.turnId);
        return speaker.speak(sentence, signal, meta);
      },
      audioComplete: (turnId) => audio.end(turnId),
      playedSentences: (turnId) => speaker.sentenceAudio.sentences(turnId),
      replyAudio: (turnId, range) => speaker.replyAudio.audio(turnId, range),
    },
  });
  engine.on((event) => {
    if (event.type !== 'turn') return;
    stamps.push({ name: event.stage, turnId: event.turnId, at: event.at });
    if (process.env.SIDETALK_PIPELINE_DEBUG)
      o.log(`${Math.round(performance.now())} ${event.turnId} ${event.stage} at ${Math.round(event.at)}`);
    noteTurnEvent(event, audio);
  });

  return {
    script,
    stamps: () => [...stamps, ...[...audio.firstAudio].map(([turnId, at]) => ({ name: 'audio-ready', turnId, at }))],
    meta: {
      models,
      tts: `Pocket TTS full shape (both --shape values), ${gpuVoice ? 'int8 + fp32' : 'int8'}, fixture bundle around it`,
      asrBackend: client.backend,
      ttsBackend: tts.backend,
      ttsBackendReason: tts.backendReason,
      modelWorker: ready,
      modelLoadMs: Math.round(modelLoadMs),
      ttsLoadMs: Math.round(ttsLoadMs),
      ttsBuildMs: Math.round(pocket.buildMs),
    },
    async warmUp(clip) {
      const t = performance.now();
      const signal = new AbortController().signal;
      const first = await client.transcribe(clip, signal, 'en');
      await client.transcribe(clip, signal, 'en', first.ids.slice(0, Math.max(0, first.ids.length - 2)));
      await client.endOfTurn(clip, signal);
      // A reply through the responder: the persona prompt's prefill lands in the LLM's prefix cache, as after a first turn.
      const turn = { turnId: 'warm-up', text: 'Hello.', history: [], memory: [], localTime: '', backgroundBusy: false };
      for await (const _piece of responder.respond(turn, signal));
      await tts.speak('Hello there, this is a warm-up.', voices.pickVoice(character.voice.voiceId), signal, () => undefined);
      return Math.round(performance.now() - t);
    },
    async play(samples, onTick) {
      const mic = new WavMic(samples, (i, at) => {
        for (const e of audio.step()) engine.onPlayback(e);
        onTick(i, at);
      });
      const stop = feedEngine(mic as unknown as MicCapture, sileroWeights(o.sileroOnnx), engine, audio);
      engine.start();
      await mic.play();
      stop();
      return { frames: mic.frames, maxLateMs: Math.round(mic.maxLateMs) };
    },
    async close() {
      engine.stop();
      await hub.close();
    },
  };
}

/** As the offscreen document does: an interruption stops the turn's audio, speech over the reply holds it. */
function noteTurnEvent(event: TurnEvent, audio: NodeAudioSink): void {
  if (event.stage === 'interrupted') audio.stop(event.turnId);
  if (event.stage === 'barge-tentative') audio.pause(event.turnId, true);
  if (event.stage === 'barge-released') audio.pause(event.turnId, false);
}
