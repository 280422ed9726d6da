/**
 * The TTS worker's logic without the Worker: validates messages, loads the bundle, queues speak requests in order,
 * streams each frame out the moment it exists, cancels within one frame, clones voices. `tts.worker.ts` only wires
 * this to `self`; Node tests drive it directly with onnxruntime-node.
 */
import { selfTestCacheKey, type AdapterIdentity, type CachedVerdict, type VerdictCache } from '../../../core/tts/self-test';
import { deserializeVoice, serializeVoice, VoiceFileError } from '../../../core/tts/voice-store';
import { CloneAudioError, CloningUnavailableError, ConsentRequiredError, cloneVoice } from './clone';
import { synthesize } from './generator';
import { PocketModel, type BundleFiles, type LoadOptions, type Voice } from './model';
import type { OrtLike } from './ort-types';
import type { DecoderPort } from './decoder-protocol';
import { ttsWorkerRequestSchema, type PostEvent, type TtsErrorCode, type VoiceInfo } from './protocol';
import { cpuReasonOf, decideBackend, runSelfTest } from './self-test-runner';
import { applyOverrides, snapshotTunables } from '../../../core/tunables';

export interface WorkerHostDeps {
  ort: OrtLike;
  post: PostEvent;
  /** Resolves a URL file source to bytes (the browser worker uses fetch). */
  fetchBytes?: (url: string) => Promise<Uint8Array>;
  /** The WebGPU adapter's identity, or null without WebGPU. */
  adapterIdentity?: () => Promise<AdapterIdentity | null>;
  sessionOptions?: LoadOptions['sessionOptions'];
  sessionFactory?: LoadOptions['sessionFactory'];
  /** Starts a worker for the separate Mimi decoder (decoder-host.ts); absent: the single-instance loop only. */
  spawnDecoder?: () => DecoderPort;
}

/**
 * Threads for the flow LM and the separate decoder out of the `total` the worker would give one instance: the
 * decoder gets one; the flow LM keeps all up to 2 (a 2-core machine runs 1 + 1), else gives one up (4 → 3 + 1).
 */
export function decoderThreadSplit(total: number): { main: number; decoder: number } {
  return { main: total >= 3 ? total - 1 : total, decoder: 1 };
}

function info(v: Voice): VoiceInfo {
  return { id: v.id, name: v.name, kind: v.kind };
}

export class PocketWorkerHost {
  private model: PocketModel | null = null;
  private queue: Promise<void> = Promise.resolve();
  private readonly aborts = new Map<string, AbortController>();
  /** The verdict-cache key of the WebGPU session in use, so a mid-session failure is remembered for this device. */
  private verdictKey: string | null = null;

  constructor(private readonly deps: WorkerHostDeps) {}

  private error(code: TtsErrorCode, message: string, requestId?: string) {
    this.deps.post({ type: 'error', code, message, ...(requestId ? { requestId } : {}) });
  }

  /** Handles one message; resolves when the work it started is finished (tests await it). */
  async handle(raw: unknown): Promise<void> {
    const parsed = ttsWorkerRequestSchema.safeParse(raw);
    if (!parsed.success) {
      const id = (raw as { requestId?: unknown })?.requestId;
      return this.error('bad-message', parsed.error.message.slice(0, 500), typeof id === 'string' ? id : undefined);
    }
    const msg = parsed.data;
    switch (msg.type) {
      case 'load':
        return this.load(msg.requestId, msg.files, msg.backend, msg.verdicts, msg.numThreads, msg.decodeLoop, msg.decoderThreads);
      case 'cancel':
        this.aborts.get(msg.requestId)?.abort();
        return;
      case 'speak': {
        // Registered now so a cancel that arrives while the request waits in the queue still applies.
        const ac = new AbortController();
        this.aborts.set(msg.requestId, ac);
        const receivedAt = performance.now();
        const run = this.queue.then(() =>
          this.speak(msg.requestId, msg.text, msg.voiceId, ac.signal, msg.temperature, receivedAt),
        );
        this.queue = run.catch(() => {});
        return run;
      }
      case 'clone':
        return this.clone(msg.requestId, msg.audio, msg.sampleRate, msg.name, msg.consent);
      case 'add-voice':
        return this.addVoice(msg.requestId, msg.bytes instanceof Uint8Array ? msg.bytes : new Uint8Array(msg.bytes));
      case 'list-voices':
        this.deps.post({
          type: 'voices',
          requestId: msg.requestId,
          voices: this.model ? [...this.model.voices.values()].map(info) : [],
        });
        return;
      case 'tunables': {
        // Not queued behind speech: generation reads the values per frame, so the next frame already uses them.
        const refused = applyOverrides(msg.overrides);
        if (refused.length) this.error('bad-message', `tunables refused: ${refused.join('; ')}`);
        return;
      }
      case 'tunables-snapshot':
        this.deps.post({ type: 'tunables-snapshot', requestId: msg.requestId, values: snapshotTunables() });
        return;
    }
  }

  private async load(
    requestId: string,
    sources: Record<string, ArrayBuffer | Uint8Array | string>,
    backend: 'wasm' | 'webgpu' | 'auto',
    verdicts: Record<string, CachedVerdict>,
    numThreads?: number,
    decodeLoop?: 'overlapped' | 'single',
    decoderThreads?: number,
  ) {
    try {
      const wasmEnv = (this.deps.ort as { env?: { wasm?: { numThreads?: number } } }).env?.wasm;
      const spawn = decodeLoop !== 'single' ? this.deps.spawnDecoder : undefined;
      const total = numThreads ?? wasmEnv?.numThreads ?? 1;
      const split = spawn ? decoderThreadSplit(total) : { main: total, decoder: 0 };
      if (wasmEnv && (numThreads || spawn)) wasmEnv.numThreads = split.main;
      const files: BundleFiles = new Map();
      for (const [name, src] of Object.entries(sources)) {
        if (typeof src === 'string') {
          if (!this.deps.fetchBytes) throw new Error(`cannot fetch ${src}: no fetcher`);
          files.set(name, await this.deps.fetchBytes(src));
        } else files.set(name, src instanceof Uint8Array ? src : new Uint8Array(src));
      }
      const base = {
        ort: this.deps.ort,
        files,
        sessionOptions: this.deps.sessionOptions,
        sessionFactory: this.deps.sessionFactory,
      };
      await this.model?.release();
      this.model = null;
      this.verdictKey = null;
      const separateDecoder = spawn ? { spawn, numThreads: decoderThreads ?? split.decoder } : undefined;
      const wasm = await PocketModel.load({ ...base, backend: 'wasm', ...(separateDecoder ? { separateDecoder } : {}) });
      let chosen = wasm;
      let cpuReason: string | undefined;
      if (backend !== 'wasm') {
        const adapter = (await this.deps.adapterIdentity?.()) ?? null;
        const cache: VerdictCache = {
          get: async (k) => verdicts[k],
          set: async (key, verdict) => this.deps.post({ type: 'verdict', key, verdict }),
        };
        let gpu: PocketModel | null = null;
        const decision =
          backend === 'webgpu'
            ? { backend: 'webgpu' as const }
            : await decideBackend({
                adapter,
                bundleId: wasm.bundleId,
                cache,
                test: async () => runSelfTest((gpu = await PocketModel.load({ ...base, backend: 'webgpu' })), wasm),
              });
        if (decision.backend === 'webgpu') {
          chosen = gpu ?? (await PocketModel.load({ ...base, backend: 'webgpu' }));
          await wasm.release();
          this.verdictKey = adapter ? selfTestCacheKey(adapter, wasm.bundleId) : null;
        } else {
          await (gpu as PocketModel | null)?.release();
          cpuReason = 'source' in decision ? cpuReasonOf(decision) : undefined;
        }
      }
      this.model = chosen;
      this.deps.post({
        type: 'loaded',
        requestId,
        backend: chosen.backend,
        bundleId: chosen.bundleId,
        sampleRate: chosen.bundle.sample_rate,
        voices: [...chosen.voices.values()].map(info),
        threads: wasmEnv?.numThreads ?? 1,
        decodeLoop: chosen.backend === 'wasm' ? chosen.decodeLoop : { kind: 'single', reason: 'the flow LM runs on WebGPU' },
        ...(cpuReason ? { cpuReason } : {}),
        ...(chosen.backend === 'wasm' ? { flowCache: chosen.chunkSizedCache ? ('chunk' as const) : ('declared' as const) } : {}),
      });
    } catch (e) {
      this.error('load-failed', (e as Error).message, requestId);
    }
  }

  private async speak(
    requestId: string,
    text: string,
    voiceId: string,
    signal: AbortSignal,
    temperature: number | undefined,
    receivedAt: number,
  ) {
    let frames = 0;
    const startedAt = performance.now();
    try {
      const model = this.model;
      if (!model) return this.error('not-loaded', 'load a bundle first', requestId);
      const voice = model.voices.get(voiceId);
      if (!voice) return this.error('unknown-voice', `no voice "${voiceId}"`, requestId);
      const rate = model.bundle.sample_rate;
      for await (const f of synthesize(model, text, voice, {
        signal,
        ...(temperature !== undefined ? { temperature } : {}),
        onBackendSwitch: (s) => {
          this.deps.post({ type: 'backend', backend: 'wasm', reason: s.reason, frameIndex: s.frameIndex });
          // A device that went bad mid-sentence is not trusted again: the next load goes straight to WASM.
          if (this.verdictKey)
            this.deps.post({ type: 'verdict', key: this.verdictKey, verdict: { pass: false, reason: s.reason, at: Date.now() } });
          this.verdictKey = null;
        },
      })) {
        this.deps.post(
          {
            type: 'audio',
            requestId,
            frameIndex: f.frameIndex,
            chunkIndex: f.chunkIndex,
            text: f.text,
            sampleRate: rate,
            pcm: f.pcm,
            // The worker's own time to its first frame, for the turn trace (docs/benchmarks.md, "What the user hears").
            ...(frames === 0
              ? {
                  timing: {
                    queuedMs: startedAt - receivedAt,
                    workerMs: performance.now() - startedAt,
                    receivedAbs: performance.timeOrigin + receivedAt,
                    postedAbs: performance.timeOrigin + performance.now(),
                  },
                }
              : {}),
          },
          [f.pcm.buffer],
        );
        frames++;
      }
      this.deps.post({ type: 'done', requestId, frames, cancelled: false });
    } catch (e) {
      if ((e as Error).name === 'AbortError') this.deps.post({ type: 'done', requestId, frames, cancelled: true });
      else this.error('synthesis-failed', (e as Error).message, requestId);
    } finally {
      this.aborts.delete(requestId);
    }
  }

  private async clone(requestId: string, audio: Float32Array, sampleRate: number, name: string, consent: unknown) {
    if (!this.model) return this.error('not-loaded', 'load a bundle first', requestId);
    try {
      const stored = await cloneVoice(this.model, { audio, sampleRate, name, consent: consent as never });
      const voice: Voice = { id: stored.id, name: stored.name, kind: 'clone', tensors: stored.tensors };
      this.model.voices.set(voice.id, voice);
      const bytes = serializeVoice(stored);
      this.deps.post({ type: 'voice-cloned', requestId, voice: info(voice), bytes }, [bytes.buffer]);
    } catch (e) {
      const code: TtsErrorCode =
        e instanceof ConsentRequiredError
          ? 'consent-required'
          : e instanceof CloningUnavailableError
            ? 'cloning-unavailable'
            : e instanceof CloneAudioError
              ? 'bad-audio'
              : 'synthesis-failed';
      this.error(code, (e as Error).message, requestId);
    }
  }

  private async addVoice(requestId: string, bytes: Uint8Array) {
    if (!this.model) return this.error('not-loaded', 'load a bundle first', requestId);
    try {
      const stored = deserializeVoice(bytes);
      if (stored.bundleId !== this.model.bundleId)
        throw new VoiceFileError(`voice belongs to ${stored.bundleId}, not ${this.model.bundleId}`);
      this.model.voices.set(stored.id, { id: stored.id, name: stored.name, kind: 'clone', tensors: stored.tensors });
      this.deps.post({ type: 'voices', requestId, voices: [...this.model.voices.values()].map(info) });
    } catch (e) {
      this.error('bad-voice-file', (e as Error).message, requestId);
    }
  }
}
