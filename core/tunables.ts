/**
 * The one module for thresholds. Each area owns an exported section (a plain object that code reads at use time, so a
 * bench or a settings page can change a value without rebuilding) and registers it with `registerTunables` together
 * with its limits. `setTunable('engine.endpointSilenceMs', 500)` validates against those limits.
 *
 * To add a section: append `export const fooTunables = registerTunables('foo', { ... }, { ... })` below; never edit
 * another area's section.
 */

export type TunableValue = number | boolean | string;
export type TunableSection = Record<string, TunableValue>;

/** Numeric limits for a key; keys without limits still get type checks (and finiteness for numbers). */
export interface TunableLimit {
  min?: number;
  max?: number;
  integer?: boolean;
}

interface RegisteredSection {
  values: TunableSection;
  limits: Readonly<Record<string, TunableLimit>>;
  defaults: Readonly<TunableSection>;
}

const sections = new Map<string, RegisteredSection>();

/** Registers a section and returns the same (mutable) object so call sites read live values. */
export function registerTunables<T extends TunableSection>(
  name: string,
  values: T,
  limits: Partial<Record<keyof T & string, TunableLimit>> = {},
): T {
  if (sections.has(name)) throw new Error(`tunables: section "${name}" is already registered`);
  sections.set(name, { values, limits: limits as Record<string, TunableLimit>, defaults: { ...values } });
  return values;
}

export type SetTunableResult = { ok: true } | { ok: false; error: string };

/** Sets `section.key` after validating type and limits. Never throws; returns why a value was refused. */
export function setTunable(path: string, value: unknown): SetTunableResult {
  const dot = path.indexOf('.');
  if (dot <= 0) return { ok: false, error: `path must be "section.key", got "${path}"` };
  const section = sections.get(path.slice(0, dot));
  const key = path.slice(dot + 1);
  if (!section) return { ok: false, error: `unknown section in "${path}"` };
  if (!Object.prototype.hasOwnProperty.call(section.values, key)) return { ok: false, error: `unknown key "${path}"` };
  const current = section.values[key];
  if (typeof value !== typeof current) {
    return { ok: false, error: `"${path}" expects a ${typeof current}, got ${typeof value}` };
  }
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return { ok: false, error: `"${path}" must be finite` };
    const limit = section.limits[key];
    if (limit?.integer && !Number.isInteger(value)) return { ok: false, error: `"${path}" must be an integer` };
    if (limit?.min !== undefined && value < limit.min) return { ok: false, error: `"${path}" must be >= ${limit.min}` };
    if (limit?.max !== undefined && value > limit.max) return { ok: false, error: `"${path}" must be <= ${limit.max}` };
  }
  section.values[key] = value as TunableValue;
  return { ok: true };
}

export function getTunable(path: string): TunableValue | undefined {
  const dot = path.indexOf('.');
  return sections.get(path.slice(0, dot))?.values[path.slice(dot + 1)];
}

/** Restores one section (or all) to the values it was registered with; tests and benches call this between runs. */
export function resetTunables(sectionName?: string): void {
  for (const [name, section] of sections) {
    if (sectionName !== undefined && name !== sectionName) continue;
    Object.assign(section.values, section.defaults);
  }
}

/** A snapshot of every section, e.g. to print next to bench results. */
export function snapshotTunables(): Record<string, TunableSection> {
  const out: Record<string, TunableSection> = {};
  for (const [name, section] of sections) out[name] = { ...section.values };
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// engine: the duplex conversation policy (core/engine). Times in ms, levels are RMS of [-1, 1] audio, probabilities
// are Silero's. Frame = 512 samples at 16 kHz = 32 ms.
// ---------------------------------------------------------------------------------------------------------------
export const engineTunables = registerTunables(
  'engine',
  {
    /** Silero P(speech) that counts a frame as voiced (hysteresis: on above this, off below `vadOff`). */
    vadOn: 0.5,
    vadOff: 0.35,
    /** Consecutive voiced frames that open an utterance (2 × 32 ms). */
    onsetFrames: 2,
    /** Frames of audio kept before the onset frame and handed to ASR with the utterance. */
    preRollMs: 320,
    /** Phantom guard: an utterance needs at least this many frames with P(speech) > vadOn. */
    minVoicedFrames: 4,
    /** Utterances shorter than this (onset → end of speech) are dropped as noise. */
    minSpeechMs: 300,
    /** Trailing silence at which ASR (and, if the text sounds complete, the LLM) start speculatively. */
    tentativeEndpointMs: 192,
    /** Endpoint after a complete-sounding phrase ("…in Paris?"). */
    endpointCompleteMs: 448,
    /** Endpoint when the transcript is not known yet or sounds neutral. */
    endpointSilenceMs: 640,
    /** Endpoint after a trailing "and / so / um / because …": the user is mid-thought. */
    endpointTrailingMs: 1400,
    /** Force an endpoint on a monologue this long (ASR windows are ~30 s). */
    maxUtteranceMs: 28000,
    /** Below this ASR confidence (0..1, e.g. exp(mean token log-prob)) ask the user to repeat. */
    asrMinConfidence: 0.6,
    /** Speech that resumes within this window after an endpoint and before any reply audio merges into one turn. */
    mergeWindowMs: 1500,
    /** Minimum mic RMS for a resumption to count (VAD alone fires on breaths and clicks). */
    resumeMinRms: 0.01,
    /** Playback level (RMS of what the side panel plays) above which the assistant is audible. */
    playbackAudibleRms: 0.01,
    /** Audible frames used to calibrate the echo floor at the start of each reply. */
    echoCalibFrames: 5,
    /** Barge-in: mic RMS must exceed max(bargeMinRms, bargeRatio × expected echo) … */
    bargeMinRms: 0.02,
    bargeRatio: 2.0,
    /** … with P(speech) > vadOn for this many consecutive frames (5 × 32 ms = 160 ms). */
    bargeFrames: 5,
    /** Playback level is looked back over this window to cover the speaker → mic delay. */
    echoTailMs: 160,
    /** Mic audio kept before a barge-in onset and used as the start of the next utterance. */
    bargePreRollMs: 1200,
    /** A turn that makes no progress (no delta, no sentence, no playback event) for this long is aborted. */
    stallMs: 15000,
    /** A finished background task is spoken once the user has been silent this long. */
    deliverAfterSilenceMs: 600,
    /** Number of past messages (user + assistant) handed to `respond`. */
    historyMessages: 8,
  },
  {
    vadOn: { min: 0.05, max: 0.99 },
    vadOff: { min: 0.01, max: 0.99 },
    onsetFrames: { min: 1, max: 20, integer: true },
    preRollMs: { min: 0, max: 2000 },
    minVoicedFrames: { min: 1, max: 50, integer: true },
    minSpeechMs: { min: 0, max: 3000 },
    tentativeEndpointMs: { min: 32, max: 2000 },
    endpointCompleteMs: { min: 96, max: 5000 },
    endpointSilenceMs: { min: 96, max: 5000 },
    endpointTrailingMs: { min: 96, max: 8000 },
    maxUtteranceMs: { min: 1000, max: 60000 },
    asrMinConfidence: { min: 0, max: 1 },
    mergeWindowMs: { min: 0, max: 10000 },
    resumeMinRms: { min: 0, max: 1 },
    playbackAudibleRms: { min: 0, max: 1 },
    echoCalibFrames: { min: 1, max: 100, integer: true },
    bargeMinRms: { min: 0, max: 1 },
    bargeRatio: { min: 1, max: 20 },
    bargeFrames: { min: 1, max: 50, integer: true },
    echoTailMs: { min: 0, max: 2000 },
    bargePreRollMs: { min: 0, max: 5000 },
    stallMs: { min: 1000, max: 120000 },
    deliverAfterSilenceMs: { min: 0, max: 10000 },
    historyMessages: { min: 0, max: 64, integer: true },
  },
);

// text: sentence chunking for TTS (core/text).
export const textTunables = registerTunables(
  'text',
  {
    /** The first chunk of a reply may flush at a clause break (, ; : —) once it has this many words … */
    firstClauseMinWords: 4,
    /** … and this many characters. */
    firstClauseMinChars: 18,
    /** Hard cap for a run-on chunk without punctuation. */
    maxChunkChars: 200,
  },
  {
    firstClauseMinWords: { min: 1, max: 50, integer: true },
    firstClauseMinChars: { min: 1, max: 500, integer: true },
    maxChunkChars: { min: 40, max: 2000, integer: true },
  },
);

// tts: Pocket TTS driver (models/tts/pocket, core/tts). Frame = one latent = 1920 samples at 24 kHz = 80 ms.
export const ttsTunables = registerTunables(
  'tts',
  {
    /** `eos_logit` above this marks end of speech (upstream default −4.0). */
    eosThreshold: -4.0,
    /** Sampling temperature; noise std is √temperature (upstream 0.7; the english_2026-09 model prefers 0.3). */
    temperature: 0.7,
    /** LSD flow steps per frame (upstream default 1; 10 made an early web port ~10× slower). */
    lsdSteps: 1,
    /** Hard cap on generated frames per chunk (on top of upstream's tokens/3 + 2 s estimate). */
    maxFramesPerChunk: 500,
    /** Tokens per chunk fed to the text conditioner (upstream MAX_TOKEN_PER_CHUNK). */
    maxTokensPerChunk: 50,
    /** Latents decoded per mimi_decoder call; 1 = every 80 ms frame leaves as soon as it exists. */
    decodeBatchFrames: 1,
    /** Longest reference clip used for cloning, seconds (upstream export-voice uses the first 30 s). */
    cloneMaxSeconds: 30,
    /** Self-test: peak |sample| above this is an overflow (real speech stays within ±1). */
    selfTestMaxPeak: 1.5,
    /** Self-test: RMS below this is silence (a dead kernel returning zeros). */
    selfTestMinRms: 0.001,
    /** Self-test: share of energy in sample-to-sample differences above this looks like noise, not speech. */
    selfTestMaxHighFreqShare: 0.6,
    /** Self-test: minimum SNR (dB) of the candidate backend's first frame against the WASM reference. */
    selfTestMinSnrDb: 20,
  },
  {
    eosThreshold: { min: -20, max: 20 },
    temperature: { min: 0, max: 2 },
    lsdSteps: { min: 1, max: 16, integer: true },
    maxFramesPerChunk: { min: 1, max: 2000, integer: true },
    maxTokensPerChunk: { min: 4, max: 200, integer: true },
    decodeBatchFrames: { min: 1, max: 16, integer: true },
    cloneMaxSeconds: { min: 1, max: 60 },
    selfTestMaxPeak: { min: 0.5, max: 100 },
    selfTestMinRms: { min: 0, max: 0.5 },
    selfTestMaxHighFreqShare: { min: 0.05, max: 1 },
    selfTestMinSnrDb: { min: 0, max: 80 },
  },
);

// weights: model downloads (core/weights). Bytes, ms.
export const weightsTunables = registerTunables(
  'weights',
  {
    /** Bytes buffered before a part is persisted; a restart loses at most this much (plus what is in flight). */
    partBytes: 8 * 1024 * 1024,
    /** Automatic resume attempts (with Range) after a dropped connection or 5xx, per file, per download call. */
    networkRetries: 3,
    /** Back-off before retry n is retryBaseDelayMs × 2^(n-1). */
    retryBaseDelayMs: 1000,
    /** Progress events are emitted at most this often (the first and last of a file always are). */
    progressIntervalMs: 250,
    /** Weight of the newest sample in the speed moving average (0..1]. */
    speedEmaAlpha: 0.3,
    /** Files up to this size are hashed with WebCrypto in one buffer; larger ones with the streaming hash. */
    webCryptoMaxBytes: 64 * 1024 * 1024,
  },
  {
    partBytes: { min: 64 * 1024, max: 256 * 1024 * 1024, integer: true },
    networkRetries: { min: 0, max: 20, integer: true },
    retryBaseDelayMs: { min: 0, max: 60000 },
    progressIntervalMs: { min: 0, max: 10000 },
    speedEmaAlpha: { min: 0.01, max: 1 },
    webCryptoMaxBytes: { min: 0, max: 2 * 1024 * 1024 * 1024, integer: true },
  },
);
