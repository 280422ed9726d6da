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
    /**
     * A bundle load (fetch from cache + session creation + self-test) taking longer than this is treated as hung:
     * multi-threaded WASM session creation hangs in some environments (pocket-tts.md §6), so the worker is replaced
     * and the load retried on one thread. Real weights load in seconds; 90 s leaves room for a slow disk.
     */
    loadTimeoutMs: 90_000,
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
    loadTimeoutMs: { min: 1_000, max: 600_000, integer: true },
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
    /** A hub listing that has not answered by then is skipped (the downloader still checks every byte). */
    preflightTimeoutMs: 15000,
  },
  {
    partBytes: { min: 64 * 1024, max: 256 * 1024 * 1024, integer: true },
    networkRetries: { min: 0, max: 20, integer: true },
    retryBaseDelayMs: { min: 0, max: 60000 },
    progressIntervalMs: { min: 0, max: 10000 },
    speedEmaAlpha: { min: 0.01, max: 1 },
    webCryptoMaxBytes: { min: 0, max: 2 * 1024 * 1024 * 1024, integer: true },
    preflightTimeoutMs: { min: 1000, max: 120000, integer: true },
  },
);

/** Model runtimes (models/llm, models/asr). */
export const llmTunables = registerTunables(
  'llm',
  {
    /** Longest answer per turn, tokens. Voice answers are short; the cap bounds a runaway generation. */
    maxNewTokens: 256,
    /** Prompt + answer budget in tokens; older exchanges are dropped beyond it (compaction). */
    contextTokenBudget: 4096,
    /** Compaction drops history down to this share of the budget so it happens rarely (each one re-prefills). */
    compactTargetRatio: 0.7,
    /** LFM2.5's recommended repetition penalty; greedy decoding otherwise (voice wants determinism). */
    repetitionPenalty: 1.05,
  },
  {
    maxNewTokens: { min: 1, max: 4096, integer: true },
    contextTokenBudget: { min: 256, max: 32768, integer: true },
    compactTargetRatio: { min: 0.2, max: 1 },
    repetitionPenalty: { min: 1, max: 2 },
  },
);

export const asrTunables = registerTunables(
  'asr',
  {
    /** Decoder token cap per second of audio (Moonshine paper: ~6; a little slack for fast speakers). */
    maxTokensPerSecond: 6.5,
    /** Floor for the cap: transformers' own Moonshine rule floor(seconds)·6 gives 0 tokens for clips under 1 s. */
    minNewTokens: 12,
  },
  {
    maxTokensPerSecond: { min: 1, max: 30 },
    minNewTokens: { min: 1, max: 448, integer: true },
  },
);

// remoteLlm: the optional bring-your-own OpenAI-compatible model server (core/remote-llm).
export const remoteLlmTunables = registerTunables(
  'remoteLlm',
  {
    /** No first streamed data within this long ends the turn as `timeout` (a cold Ollama load can take ~10 s). */
    firstTokenTimeoutMs: 20_000,
    /** Silence between streamed chunks after the first one; a stalled stream is as bad as a dead one in a voice turn. */
    idleTimeoutMs: 15_000,
    /** GET /v1/models for the settings dropdown and "test connection". */
    modelsTimeoutMs: 8_000,
    /** Cap on one assembled tool call's argument text; a runaway stream is cut off as malformed. */
    maxToolArgumentChars: 16_000,
    /** After the server was unreachable or timed out, turns go straight to the local model (if allowed) this long. */
    skipAfterFailureMs: 60_000,
  },
  {
    firstTokenTimeoutMs: { min: 1_000, max: 300_000, integer: true },
    idleTimeoutMs: { min: 1_000, max: 300_000, integer: true },
    modelsTimeoutMs: { min: 500, max: 60_000, integer: true },
    maxToolArgumentChars: { min: 256, max: 1_000_000, integer: true },
    skipAfterFailureMs: { min: 0, max: 3_600_000, integer: true },
  },
);

// ---------------------------------------------------------------------------------------------------------------
// tools and page context (core/tools, core/page). Small local models have 2–8k usable tokens, so page context is
// budgeted by tokens; the tool APIs are free public services whose etiquette asks for serial requests, caching and
// polite back-off.
// ---------------------------------------------------------------------------------------------------------------
export const toolTunables = registerTunables(
  'tools',
  {
    /** Whole-request timeout for one tool look-up (the user is waiting on voice). */
    requestTimeoutMs: 6_000,
    /** Retries after HTTP 429 / 503 before giving up. */
    maxRetries: 2,
    /** A Retry-After longer than this is not waited out; we report rate_limited instead. */
    maxRetryWaitMs: 8_000,
    /** Back-off when a 429/503 carries no usable Retry-After (doubles per retry). */
    defaultRetryWaitMs: 1_000,
    /** Wikipedia summaries are stable; cache them this long. */
    wikipediaCacheTtlMs: 30 * 60_000,
    wikipediaCacheMaxEntries: 200,
    /** Spoken Wikipedia answers: first sentence, at most this many characters. */
    maxSpokenChars: 240,
    /** Days of forecast fetched for the weather card. */
    forecastDays: 3,
  },
  {
    requestTimeoutMs: { min: 500, max: 60_000, integer: true },
    maxRetries: { min: 0, max: 5, integer: true },
    maxRetryWaitMs: { min: 0, max: 120_000, integer: true },
    defaultRetryWaitMs: { min: 0, max: 60_000, integer: true },
    wikipediaCacheTtlMs: { min: 0, integer: true },
    wikipediaCacheMaxEntries: { min: 1, max: 10_000, integer: true },
    maxSpokenChars: { min: 40, max: 1_000, integer: true },
    forecastDays: { min: 2, max: 16, integer: true },
  },
);

export const pageTunables = registerTunables(
  'page',
  {
    /** Extracted text cap inside the page (keeps the executeScript result small). */
    maxExtractChars: 400_000,
    /** Selections shorter than this are ignored (a stray click-drag). */
    minSelectionChars: 2,
    /** Below this many non-space characters the page counts as empty (e.g. an SPA that has not rendered). */
    minReadableChars: 80,
    /** Target size of one retrieval chunk, estimated tokens. */
    chunkTokens: 180,
    /** Token budget for quoted page text in one prompt. */
    contextTokens: 1_500,
    /** Pages beyond this many estimated tokens are only partly indexed, and the user is told so. */
    maxIndexedTokens: 60_000,
    /** BM25 parameters (classic defaults). */
    bm25K1: 1.2,
    bm25B: 0.75,
  },
  {
    maxExtractChars: { min: 1_000, integer: true },
    minSelectionChars: { min: 1, integer: true },
    minReadableChars: { min: 0, integer: true },
    chunkTokens: { min: 20, max: 4_000, integer: true },
    contextTokens: { min: 100, max: 32_000, integer: true },
    maxIndexedTokens: { min: 1_000, integer: true },
    bm25K1: { min: 0, max: 5 },
    bm25B: { min: 0, max: 1 },
  },
);

// vision: webcam object detection (core/vision, models/vision). Times in ms, scores are sigmoid probabilities, boxes
// are normalised to [0, 1] of the frame. Defaults and their sources: docs/vision.md.
export const visionTunables = registerTunables(
  'vision',
  {
    /** A query/class pair whose sigmoid score is below this is not a detection at all. */
    scoreThreshold: 0.45,
    /** Most detections kept per frame (top scores first). */
    maxDetections: 40,
    /** Frame interval while nobody is established in view: look often so a person is found quickly. */
    searchIntervalMs: 700,
    /** Frame interval once a person is established: the scene changes slowly; spare the GPU. */
    establishedIntervalMs: 2200,
    /** Retry delay after a frame was skipped for speech or dropped as stale. */
    retryAfterSkipMs: 250,
    /** Vision waits this long after the last speech stage ended: a follow-up question often comes right away. */
    resumeAfterSpeechMs: 600,
    /** A grabbed frame older than this when the detector could start is dropped (it no longer shows "now"). */
    maxFrameAgeMs: 800,
    /** Weight of the newest frame in the per-label score EMA (frames missing a label count as score 0). */
    emaAlpha: 0.5,
    /** Hysteresis: a label appears once its EMA reaches `presentOn` and disappears only below `presentOff`. */
    presentOn: 0.5,
    presentOff: 0.25,
    /** Per-frame counts are stabilised as the median over this many recent frames. */
    countWindow: 3,
    /** A box must score at least this to be counted (person count, object count). */
    countMinScore: 0.6,
    /** Same-label boxes whose intersection over the smaller box exceeds this are one object. */
    mergeIoMin: 0.7,
    /** Most object kinds named in one spoken answer. */
    maxSpokenObjects: 4,
    /** With no frame for this long the scene is unknown (camera stalled, or vision paused by a long reply). */
    staleSceneMs: 10000,
    /** Preview frames sent to the side panel: longer side in pixels and JPEG quality. */
    previewMaxSide: 320,
    previewJpegQuality: 0.7,
    /** Frames handed to the detector are downscaled so the longer side is at most this (the model resizes to 640). */
    detectMaxSide: 640,
  },
  {
    scoreThreshold: { min: 0.01, max: 0.99 },
    maxDetections: { min: 1, max: 300, integer: true },
    searchIntervalMs: { min: 100, max: 60000 },
    establishedIntervalMs: { min: 100, max: 60000 },
    retryAfterSkipMs: { min: 50, max: 10000 },
    resumeAfterSpeechMs: { min: 0, max: 10000 },
    maxFrameAgeMs: { min: 50, max: 10000 },
    emaAlpha: { min: 0.05, max: 1 },
    presentOn: { min: 0.05, max: 0.99 },
    presentOff: { min: 0.01, max: 0.99 },
    countWindow: { min: 1, max: 15, integer: true },
    countMinScore: { min: 0.01, max: 0.99 },
    mergeIoMin: { min: 0.1, max: 1 },
    maxSpokenObjects: { min: 1, max: 10, integer: true },
    staleSceneMs: { min: 1000, max: 600000 },
    previewMaxSide: { min: 64, max: 1280, integer: true },
    previewJpegQuality: { min: 0.1, max: 1 },
    detectMaxSide: { min: 64, max: 1920, integer: true },
  },
);

// lipsync: text → viseme timing for the avatar (core/lipsync). Times in ms; levels are RMS of [-1, 1] audio.
export const lipsyncTunables = registerTunables(
  'lipsync',
  {
    /** Lips stay closed at least this long on m/b/p (a shorter closure is not seen at 30 fps). */
    closureMinMs: 60,
    /** Lower lip on the teeth at least this long on f/v. */
    labiodentalMinMs: 50,
    /** Tongue-only consonants shorter than this take the neighbouring vowel's shape instead of their own. */
    consonantMinMs: 90,
    /** Any other mouth shape is held at least this long (Rhubarb uses 70–80 ms). */
    minHoldMs: 75,
    /** Rounded shapes (O, U) start this much earlier than their sound (anticipation). */
    roundLeadMs: 70,
    /** Upper limit on mouth-shape changes per second; busier tracks lose their least important shapes. */
    maxChangesPerSec: 8,
    /** A silent gap at least this long relaxes the mouth (no viseme; the face returns to its resting smile). */
    pauseRelaxMs: 150,
    /** RMS below this counts as silence when trimming a chunk's audio to its voiced span. */
    silenceRms: 0.012,
    /** Envelope → jaw: RMS at which the jaw reaches 1. */
    jawFullRms: 0.2,
    /** Envelope → jaw: smoothing per 20 ms frame when opening (fast) and closing (slow): "pop open, close slowly". */
    jawAttack: 0.7,
    jawRelease: 0.25,
    /**
     * Streaming: expected speaking time per unit of text sound weight, before the voice's own rate is known. 90 ms
     * fits espeak-ng at 160 wpm (81–97 ms on four sentences) and natural TTS pace.
     */
    msPerWeight: 90,
    /** Streaming: each finished sentence moves the rate estimate this far toward the rate it really had. */
    rateAdapt: 0.5,
    /** A chunk whose speech is at least this share of its text's expected time carries the whole sentence. */
    wholeChunkRatio: 0.6,
  },
  {
    closureMinMs: { min: 20, max: 200 },
    labiodentalMinMs: { min: 20, max: 200 },
    consonantMinMs: { min: 0, max: 300 },
    minHoldMs: { min: 20, max: 300 },
    roundLeadMs: { min: 0, max: 250 },
    maxChangesPerSec: { min: 2, max: 20 },
    pauseRelaxMs: { min: 50, max: 2000 },
    silenceRms: { min: 0, max: 0.5 },
    jawFullRms: { min: 0.01, max: 1 },
    jawAttack: { min: 0.01, max: 1 },
    jawRelease: { min: 0.01, max: 1 },
    msPerWeight: { min: 30, max: 300 },
    rateAdapt: { min: 0, max: 1 },
    wholeChunkRatio: { min: 0.1, max: 1 },
  },
);
