/**
 * Messages between the offscreen document and the Pocket TTS worker. Incoming messages are zod-validated (a bad
 * message gets a typed error, never a crash); audio leaves as a transferable Float32Array. Every request that expects
 * a reply carries a `requestId` (models/workers/worker-client.ts) and every event of that request echoes it.
 */
import { z } from 'zod';
import { consentSchema } from '../../../core/tts/voice-store';
import { cachedVerdictSchema, type CachedVerdict } from '../../../core/tts/self-test';
import { TunableOverridesSchema } from '../../../core/protocol/tunables';
import type { TunablesSnapshot } from '../../../core/tunables';

const fileSource = z.union([z.instanceof(ArrayBuffer), z.instanceof(Uint8Array), z.string().min(1)]);

export const ttsWorkerRequestSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('load'),
    requestId: z.string().min(1),
    /** Role in the bundle (models/manifest.json) → bytes, or a URL the worker fetches (e.g. a Cache Storage-backed URL). */
    files: z.record(z.string(), fileSource),
    /** 'auto' = WebGPU only with a passing (cached or fresh) self-test verdict. */
    backend: z.enum(['wasm', 'webgpu', 'auto']).default('wasm'),
    /** Verdicts the background persisted (chrome.storage), keyed by selfTestCacheKey. */
    verdicts: z.record(z.string(), cachedVerdictSchema).default({}),
    /** WASM threads for this worker's sessions (set before the first session: a retry after a hung load uses 1). */
    numThreads: z.number().int().min(1).max(16).optional(),
    /**
     * WASM: 'overlapped' = Mimi in its own ORT instance (a nested worker) decoding frame n while the flow LM computes
     * n+1; 'single' = one instance. Default overlapped where the worker can spawn one (docs/tts.md).
     */
    decodeLoop: z.enum(['overlapped', 'single']).optional(),
    /** Threads of the separate decoder's instance (default: decoderThreadSplit). */
    decoderThreads: z.number().int().min(1).max(16).optional(),
  }),
  z.object({
    type: z.literal('speak'),
    requestId: z.string().min(1),
    text: z.string(),
    voiceId: z.string().min(1),
    temperature: z.number().min(0).max(2).optional(),
  }),
  z.object({ type: z.literal('cancel'), requestId: z.string().min(1) }),
  z.object({
    type: z.literal('clone'),
    requestId: z.string().min(1),
    audio: z.instanceof(Float32Array),
    sampleRate: z.number().positive(),
    name: z.string().min(1).max(200),
    consent: consentSchema.optional(),
  }),
  /** A stored clone (bytes from serializeVoice) made available for `speak`. */
  z.object({
    type: z.literal('add-voice'),
    requestId: z.string().min(1),
    bytes: z.union([z.instanceof(ArrayBuffer), z.instanceof(Uint8Array)]),
  }),
  z.object({ type: z.literal('list-voices'), requestId: z.string().min(1) }),
  /** The owner's tunable overrides, sent by the offscreen document to every new worker and after every change. */
  z.object({ type: z.literal('tunables'), overrides: TunableOverridesSchema }),
  /** This worker's live tunables (the knob walk checks a change arrived). */
  z.object({ type: z.literal('tunables-snapshot'), requestId: z.string().min(1) }),
]);
export type TtsWorkerRequest = z.input<typeof ttsWorkerRequestSchema>;

export type TtsErrorCode =
  | 'bad-message'
  | 'not-loaded'
  | 'load-failed'
  | 'unknown-voice'
  | 'synthesis-failed'
  | 'consent-required'
  | 'cloning-unavailable'
  | 'bad-audio'
  | 'bad-voice-file';

export interface VoiceInfo {
  id: string;
  name: string;
  kind: 'preset' | 'clone';
}

export type TtsWorkerEvent =
  | {
      type: 'loaded';
      requestId: string;
      backend: 'wasm' | 'webgpu';
      bundleId: string;
      sampleRate: number;
      voices: VoiceInfo[];
      threads: number;
      /** Which loop runs (WASM): the overlapped one with its decoder's threads, or the single one and why. */
      decodeLoop: { kind: 'overlapped' | 'single'; decoderThreads?: number; reason?: string };
      /** Asked for 'auto' and staying on WASM: why (no adapter in the worker, or the self-test failed, now or before). */
      cpuReason?: string;
      /** On WASM: the flow LM's KV caches sized to each chunk ('chunk') or at the graph's declared capacity (docs/tts.md). */
      flowCache?: 'chunk' | 'declared';
    }
  | { type: 'verdict'; key: string; verdict: CachedVerdict }
  | {
      type: 'audio';
      requestId: string;
      frameIndex: number;
      chunkIndex: number;
      text: string;
      sampleRate: number;
      pcm: Float32Array;
      /** On the first frame of a speak request: ms it waited behind earlier requests, ms from its start to this frame. */
      /**
       * The worker's own timing on a request's first frame; `receivedAbs` / `postedAbs` are timeOrigin + now() (the
       * offscreen document shares the worker's clock), so the hops either side of the worker can be told apart.
       */
      timing?: { queuedMs: number; workerMs: number; receivedAbs: number; postedAbs: number };
    }
  | { type: 'done'; requestId: string; frames: number; cancelled: boolean }
  | { type: 'backend'; backend: 'wasm'; reason: string; frameIndex: number }
  | { type: 'voice-cloned'; requestId: string; voice: VoiceInfo; bytes: Uint8Array }
  | { type: 'voices'; requestId: string; voices: VoiceInfo[] }
  | { type: 'tunables-snapshot'; requestId: string; values: TunablesSnapshot }
  | { type: 'error'; requestId?: string; code: TtsErrorCode; message: string };

/** post(event, transfer) — a Worker's postMessage or a test collector. */
export type PostEvent = (event: TtsWorkerEvent, transfer?: Transferable[]) => void;
