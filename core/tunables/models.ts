import { registerTunables } from './registry';

// Sections of the model runtimes: Pocket TTS, weights downloads, the local LLM and ASR, the remote LLM server.

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
    /**
     * WASM with the Mimi decoder in its own ORT instance (docs/tts.md, "Overlapped decode"): latents the flow LM may
     * run ahead of the decoder. The utterance's first frame is always awaited before the next step.
     */
    decodeAheadFrames: 2,
    /** The separate decoder's start (its own WASM runtime + session) longer than this falls back to one instance. */
    decoderStartTimeoutMs: 30_000,
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
    /** Longest wait before a sentence starts playing, to let a voice slower than real time get ahead (docs/tts.md). */
    jitterMaxHoldMs: 800,
    /** Frames measured (after a sentence's first) before a generation rate is taken. */
    jitterRateMinFrames: 6,
  },
  {
    eosThreshold: { min: -20, max: 20 },
    jitterMaxHoldMs: { min: 0, max: 5000 },
    jitterRateMinFrames: { min: 2, max: 100, integer: true },
    temperature: { min: 0, max: 2 },
    lsdSteps: { min: 1, max: 16, integer: true },
    maxFramesPerChunk: { min: 1, max: 2000, integer: true },
    maxTokensPerChunk: { min: 4, max: 200, integer: true },
    decodeBatchFrames: { min: 1, max: 16, integer: true },
    decodeAheadFrames: { min: 1, max: 8, integer: true },
    decoderStartTimeoutMs: { min: 1_000, max: 600_000, integer: true },
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
    /**
     * A model job (LLM, ASR, end of turn, embeddings) that fails on WebGPU waits this long for the device's loss
     * signal, so a GPU loss is reported as one and not as the model failing (docs/architecture.md).
     */
    deviceLossWaitMs: 500,
    /**
     * Decode through the static-KV graph with graph capture on WebGPU when the graph is recognised (read at load;
     * docs/llm-static-kv.md). Off: always transformers.js on the plain graph.
     */
    staticKvDecode: true,
    /** Greedy steps the load-time check runs through both decode paths from one prefill. */
    staticKvGuardSteps: 8,
    /**
     * Largest |Δ logit| between the paths in that check, as a share of the largest |logit|; above it (or any token
     * that differs) the product stays on the plain path. Why this value: docs/llm-static-kv.md, "Fallback".
     */
    staticKvGuardMaxRelDiff: 0.02,
  },
  {
    maxNewTokens: { min: 1, max: 4096, integer: true },
    contextTokenBudget: { min: 256, max: 32768, integer: true },
    compactTargetRatio: { min: 0.2, max: 1 },
    repetitionPenalty: { min: 1, max: 2 },
    deviceLossWaitMs: { min: 0, max: 5000, integer: true },
    staticKvGuardSteps: { min: 1, max: 64, integer: true },
    staticKvGuardMaxRelDiff: { min: 0, max: 1 },
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
