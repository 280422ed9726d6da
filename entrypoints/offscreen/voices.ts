import {
  sendRequest,
  type AudioSink,
  type ClonedVoice,
  type Handlers,
  type OffscreenStatus,
  type Send,
  type VoiceList,
} from '../../core/protocol';
import type { CachedVerdict } from '../../core/tts/self-test';
import { deserializeVoice, type VoiceStore } from '../../core/tts/voice-store';
import { base64ToBytes, bytesToBase64, prepareVoiceImport, voiceFileName } from '../../core/tts/voice-transfer';
import { decodeWav, WavError } from '../../core/tts/wav';
import { buildFileUrl, configuredMirror } from '../../core/weights';
import { TTS_BUNDLE, TTS_GPU_BUNDLE, TTS_OPTIONAL_ROLES, ttsWorkerFiles } from '../../models/registry';
import { TtsClient, TtsWorkerError, type TtsLoadOptions } from './tts-client';

// ---- the one TTS worker, shared by the conversation and the voice settings -----------------------------------------

/** Lives in core (the side panel needs it too, without this module's worker); re-exported for existing importers. */
export { base64ToBytes };
export { IdbVoiceStore, type CloneRecord } from './voice-store-idb';
import { IdbVoiceStore } from './voice-store-idb';

type TtsStatus = NonNullable<OffscreenStatus['tts']>;

/** The worker's decode loop as the status schema bounds it (the reason cut to its limit). */
function decodeLoopStatus(loop: NonNullable<TtsClient['decodeLoop']>): NonNullable<TtsStatus['decodeLoop']> {
  const { reason, ...rest } = loop;
  return reason ? { ...rest, reason: reason.slice(0, 300) } : rest;
}

const PREVIEW_LINE = 'Hello! This is how I sound when I read your answers.';
const CONSENT_MISSING = 'Voice cloning needs your consent: tick "This is my voice, or I have the speaker’s permission".';

export interface VoiceServiceOptions {
  send: Send;
  /** True when every bundle is fully downloaded under `baseUrl`. */
  modelsReady: (bundleIds: string[], baseUrl: string | undefined) => Promise<boolean>;
  /** The side panel's player, shared with the conversation. */
  audio: AudioSink;
  store?: VoiceStore & Pick<IdbVoiceStore, 'records' | 'record' | 'putBytes' | 'rename'>;
}

/**
 * Owns the Pocket TTS worker: loads it once per mirror (for the conversation and for the voice settings alike),
 * re-adds the stored clones after every load, and answers voices/*. Previews play through the same audio sink as
 * replies, under turn ids the engine never uses.
 */
export class VoiceService {
  readonly tts = new TtsClient();
  readonly store: NonNullable<VoiceServiceOptions['store']>;
  private loaded: { key: string; promise: Promise<void> } | null = null;
  private preview: { controller: AbortController; turnId: string } | null = null;
  private previewSeq = 0;
  /** The loaded bundle has its voice encoder (mimi_encoder), so it can clone. */
  private canClone = false;

  constructor(private readonly options: VoiceServiceOptions) {
    this.store = options.store ?? new IdbVoiceStore();
    this.tts.onVerdict = (key, verdict) => {
      void sendRequest(options.send, 'tts/verdict', { key, verdict }, 5_000).catch(() => undefined);
    };
  }

  /**
   * Loads the TTS bundle from the weights cache (once per mirror and GPU choice) and makes every stored clone
   * speakable. With the optional fp32 GPU graphs downloaded and GPU allowed, the worker may run them on WebGPU after
   * this device passes the numeric self-test (verdicts persisted by the background).
   */
  async ensureLoaded(baseUrl: string | undefined): Promise<void> {
    const gpu = await this.gpuGraphsUsable(baseUrl);
    const key = `${baseUrl ?? ''}|${gpu ? 'gpu' : 'cpu'}`;
    if (this.loaded?.key === key) return this.loaded.promise;
    const promise = (async () => {
      const files = ttsWorkerFiles((file) => buildFileUrl(file, baseUrl), gpu);
      const options: TtsLoadOptions = gpu ? { backend: 'auto', verdicts: await this.verdicts() } : {};
      try {
        await this.tts.load(files, options);
        this.canClone = true;
      } catch (err) {
        // The voice encoder is optional (the gated checkpoint): without it the bundle speaks but cannot clone.
        if (!TTS_OPTIONAL_ROLES.some((role) => role in files)) throw err;
        await this.tts.load(
          Object.fromEntries(Object.entries(files).filter(([role]) => !TTS_OPTIONAL_ROLES.includes(role))),
          options,
        );
        this.canClone = false;
      }
      await this.restoreClones();
    })();
    const entry = { key, promise };
    this.loaded = entry;
    promise.catch(() => {
      if (this.loaded === entry) this.loaded = null;
    });
    return promise;
  }

  /** Where the voice runs now, for the status line (null before the voice model is loaded). */
  backendStatus(): TtsStatus | null {
    if (!this.tts.backend) return null;
    return {
      backend: this.tts.backend,
      threads: this.tts.threads ?? 1,
      ...(this.tts.decodeLoop ? { decodeLoop: decodeLoopStatus(this.tts.decodeLoop) } : {}),
      ...(this.tts.backendReason ? { reason: this.tts.backendReason } : {}),
      ...(this.tts.gpuRefused ? { gpuRefused: this.tts.gpuRefused } : {}),
      ...(this.tts.flowCache ? { flowCache: this.tts.flowCache } : {}),
    };
  }

  private async gpuGraphsUsable(baseUrl: string | undefined): Promise<boolean> {
    if (!('gpu' in navigator)) return false;
    const settings = await sendRequest(this.options.send, 'settings/get', {}, 5_000);
    if (!settings.ok || settings.data.computeBackend !== 'auto') return false;
    return this.options.modelsReady([TTS_GPU_BUNDLE.id], baseUrl).catch(() => false);
  }

  private async verdicts(): Promise<Record<string, CachedVerdict>> {
    const reply = await sendRequest(this.options.send, 'tts/verdicts', {}, 5_000);
    return reply.ok ? reply.data : {};
  }

  private async restoreClones(): Promise<void> {
    const records = await this.store.records().catch(() => []);
    for (const r of records) {
      if (r.bundleId !== this.tts.bundleId) continue;
      await this.tts.addVoice(new Uint8Array(r.bytes)).catch((err: unknown) => {
        console.warn(`[sidetalk] a stored voice could not be loaded: ${err instanceof Error ? err.message : String(err)}`);
      });
    }
  }

  private async mirror(): Promise<string | undefined> {
    const reply = await sendRequest(this.options.send, 'settings/get', {}, 5_000);
    return configuredMirror(reply.ok ? reply.data.mirrorBaseUrl : '') ?? undefined;
  }

  /** Loads for the voice settings; false when the voice model isn't downloaded (nothing is loaded then). */
  private async ready(): Promise<boolean> {
    const baseUrl = await this.mirror();
    if (!(await this.options.modelsReady([TTS_BUNDLE.id], baseUrl))) return false;
    await this.ensureLoaded(baseUrl);
    return true;
  }

  private toClone(r: { id: string; name: string; bundleId: string; createdAt: number; consentStatement: string }): ClonedVoice {
    return {
      id: r.id,
      name: r.name,
      createdAt: r.createdAt,
      synthetic: true,
      usable: this.tts.bundleId === null || r.bundleId === this.tts.bundleId,
      consentStatement: r.consentStatement,
    };
  }

  private async clones(): Promise<ClonedVoice[]> {
    return (await this.store.records()).map((r) => this.toClone(r));
  }

  /** Stops a preview that is still playing (a new preview, or the conversation starting to speak). */
  stopPreview(): void {
    if (!this.preview) return;
    this.preview.controller.abort();
    this.options.audio.stop(this.preview.turnId);
    this.preview = null;
  }

  readonly handlers: Pick<
    Handlers<'offscreen'>,
    'voices/list' | 'voices/preview' | 'voices/clone' | 'voices/rename' | 'voices/delete' | 'voices/export' | 'voices/import'
  > = {
    'voices/list': async (): Promise<VoiceList> => {
      if (!(await this.ready())) {
        return {
          ready: false,
          message: 'Download the voice model (Settings → Models) to hear and clone voices.',
          presets: [],
          clones: await this.clones(),
          canClone: false,
        };
      }
      return {
        ready: true,
        presets: this.tts.voices.filter((v) => v.kind === 'preset'),
        clones: await this.clones(),
        canClone: this.canClone,
      };
    },

    'voices/preview': async ({ voiceId, text }) => {
      if (!(await this.ready())) throw new Error('The voice model is not downloaded yet.');
      if (!this.tts.voices.some((v) => v.id === voiceId)) throw new Error('That voice is not available.');
      this.stopPreview();
      const controller = new AbortController();
      // The engine's turns are t1, t2…: its playback logic ignores a preview's events.
      const turnId = `preview-${++this.previewSeq}`;
      this.preview = { controller, turnId };
      let frames = 0;
      const timer = setTimeout(() => controller.abort(), 60_000);
      try {
        await this.tts.speak(text ?? PREVIEW_LINE, voiceId, controller.signal, (frame) => {
          if (controller.signal.aborted) return;
          const samples = frame.pcm as Float32Array<ArrayBuffer>;
          this.options.audio.chunk(turnId, {
            sampleRate: frame.sampleRate,
            samples,
            voiceId,
            ...(frames === 0 ? { text: text ?? PREVIEW_LINE } : {}),
          });
          frames += 1;
        });
        if (!controller.signal.aborted) this.options.audio.end(turnId);
      } finally {
        clearTimeout(timer);
        if (this.preview?.controller === controller) this.preview = null;
      }
      return { frames };
    },

    'voices/clone': async ({ name, wavBase64, consent }) => {
      if (!(await this.ready())) throw new Error('Download the voice model first (Settings → Models).');
      let audio;
      try {
        audio = decodeWav(base64ToBytes(wavBase64));
      } catch (err) {
        throw new Error(
          err instanceof WavError ? `That recording could not be read: ${err.message}` : 'That recording could not be read.',
        );
      }
      try {
        const { bytes } = await this.tts.clone(audio.samples as Float32Array<ArrayBuffer>, audio.sampleRate, name, consent);
        return this.toClone(await this.store.putBytes(bytes));
      } catch (err) {
        if (err instanceof TtsWorkerError) {
          if (err.code === 'consent-required') throw new Error(CONSENT_MISSING);
          if (err.code === 'cloning-unavailable')
            throw new Error('This voice model can’t clone voices (it has no voice encoder).');
          if (err.code === 'bad-audio') throw new Error(`That recording can’t be used: ${err.message}.`);
        }
        throw err;
      }
    },

    'voices/rename': async ({ id, name }) => {
      const r = await this.store.rename(id, name);
      if (!r) throw new Error('That voice no longer exists.');
      // The worker keeps the old name until the next load; only the list shows names, and it reads the store.
      return this.toClone(r);
    },

    'voices/delete': async ({ id }) => {
      if (!(await this.store.delete(id))) throw new Error('That voice no longer exists.');
      // The worker still holds it until the next load; the conversation checks the store's list before using a clone.
      this.deleted.add(id);
      return {};
    },

    'voices/export': async ({ id }) => {
      const r = await this.store.record(id);
      if (!r) throw new Error('That voice no longer exists.');
      // The stored bytes are the file: consent, bundle and name go with the voice unchanged. Re-checked so a
      // damaged record is reported here rather than by the browser that imports it.
      const bytes = new Uint8Array(r.bytes);
      deserializeVoice(bytes);
      return { fileName: voiceFileName(r.name), bytesBase64: bytesToBase64(bytes) };
    },

    'voices/import': async ({ fileName, bytesBase64 }) => {
      // Loads the model if it is downloaded, so the file's bundle can be checked; otherwise the voice is stored and
      // the list marks it unavailable after the next load if it belongs to another model (as for any stored clone).
      const loaded = await this.ready();
      const records = await this.store.records();
      const presets = loaded ? this.tts.voices.filter((v) => v.kind === 'preset').map((v) => v.id) : [];
      let prepared;
      try {
        prepared = prepareVoiceImport(base64ToBytes(bytesBase64), {
          bundleId: loaded ? this.tts.bundleId : null,
          takenIds: new Set([...records.map((r) => r.id), ...presets]),
          takenNames: new Set(records.map((r) => r.name)),
        });
      } catch (err) {
        const what = fileName ? `“${fileName.slice(0, 80)}”` : 'the file';
        throw new Error(`Could not import ${what}. ${err instanceof Error ? err.message : String(err)}`);
      }
      const { voice, bytes } = prepared;
      const record = await this.store.putBytes(bytes);
      if (loaded) {
        try {
          await this.tts.addVoice(new Uint8Array(record.bytes));
        } catch (err) {
          // Stored but not speakable would be a voice that silently falls back to a preset: undo the import.
          await this.store.delete(record.id).catch(() => false);
          throw new Error(`That voice could not be loaded: ${err instanceof Error ? err.message : String(err)}`);
        }
      }
      // An id deleted earlier in this session may come back (the same voice re-imported): it is in use again.
      this.deleted.delete(voice.id);
      return this.toClone(record);
    },
  };

  /** Clones deleted in this session (the worker forgets them at its next load). */
  readonly deleted = new Set<string>();

  /** The voice a character asked for if this TTS can speak it, else the first preset (and the reason, once). */
  pickVoice(wanted: string): string {
    const voices = this.tts.voices;
    if (!this.deleted.has(wanted) && voices.some((v) => v.id === wanted)) return wanted;
    return voices.find((v) => v.kind === 'preset')?.id ?? voices[0]?.id ?? wanted;
  }
}
