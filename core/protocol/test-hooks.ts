import { z } from 'zod';
import { TunablesSnapshotSchema, OFFSCREEN_TUNABLE_CONTEXTS } from './tunables';
import { traceSchemas } from './trace';

/**
 * Requests that exist for tests, benches and the debug panel only: probes (microphone, VAD, GPU buffers, the engine's
 * timeline, live tunables), fault injection and the scripted model stand-in. They are built by a function so that
 * the release build, where `TEST_HOOKS` is false (core/build-flags.ts), drops them and their names: a release
 * context answers them `unknown_type` like any made-up name. docs/security.md, "Test hooks and the release build".
 */
const Empty = z.object({}).strict();

const MicProbeResultSchema = z.object({
  sampleRate: z.number(),
  frames: z.number().int().nonnegative(),
  peakRms: z.number().nonnegative(),
  meanRms: z.number().nonnegative(),
  /** Each frame's RMS in order (32 ms apart): how a level changes over the probe, e.g. an echo's tail. */
  frameRms: z.array(z.number().nonnegative()),
});
export type MicProbeResult = z.infer<typeof MicProbeResultSchema>;

/**
 * One rule of the scripted model stand-in: when the prompt (every message's text) contains `match`, the model's
 * output is `reply` instead of what the model would say. Tests use it to make "the model" do what a hostile page
 * asks (docs/tools.md, tests/e2e/tools-page.e2e.ts).
 */
export const LlmScriptRuleSchema = z
  .object({
    match: z.string().min(1).max(2000),
    reply: z.string().min(1).max(4000),
    /** Wait this long before the first piece, like a slow model (timing tests). */
    firstTokenDelayMs: z.number().int().min(0).max(30_000).optional(),
  })
  .strict();
export type LlmScriptRule = z.infer<typeof LlmScriptRuleSchema>;

export function testHookRequests() {
  return {
    'vad/probe': {
      target: 'offscreen',
      payload: z.object({ durationMs: z.number().int().min(100).max(20_000) }).strict(),
      result: z.object({
        frames: z.number().int(),
        framesInWindow: z.number().int(),
        speechFrames: z.number().int(),
        firstSpeechMs: z.number().nullable(),
        msPerFrame: z.number(),
      }),
    },
    /** Live GPU buffers of the model worker (long-session leak checks). */
    'debug/gpu-stats': {
      target: 'offscreen',
      payload: Empty,
      result: z.object({ backend: z.enum(['webgpu', 'wasm']), buffers: z.number().int(), bytes: z.number() }),
    },
    /**
     * Transcribes a clip in the model worker as a turn would (a tone of `toneHz`, or silence), reporting the text or
     * the error: speech recognition checked on whichever backend the worker runs. Refused unless the debug panel is on.
     */
    'debug/asr-probe': {
      target: 'offscreen',
      payload: z
        .object({
          seconds: z.number().min(0.2).max(10),
          toneHz: z.number().min(20).max(8000).nullable(),
          /** Ask the end-of-turn model about the same clip at the same moment, as the engine does at a pause. */
          withTurnCheck: z.boolean().optional(),
        })
        .strict(),
      result: z.object({
        backend: z.enum(['webgpu', 'wasm']),
        text: z.string().nullable(),
        error: z.string().nullable(),
        ms: z.number(),
        turn: z.object({ probability: z.number().nullable(), error: z.string().nullable() }).optional(),
      }),
    },
    /**
     * Runs the LLM in the model worker on a fixed question and times every text piece it streams, as a turn would
     * (benches: the model's own speed on the device the product chose, apart from the turn around it). Refused unless
     * the debug panel is on.
     */
    'debug/llm-probe': {
      target: 'offscreen',
      payload: z.object({ question: z.string().min(1).max(2000) }).strict(),
      result: z.object({
        backend: z.enum(['webgpu', 'wasm']),
        error: z.string().nullable(),
        /** Request → first piece (prefill and the first decode step, with the worker hop). */
        firstPieceMs: z.number().nullable(),
        /** Every piece after the request, in ms since it (a piece is one token or a few). */
        pieceAtMs: z.array(z.number()),
        totalMs: z.number(),
        /** The answer's first characters, special tokens included: whether the device computes words or garbage. */
        sample: z.string().max(160),
      }),
    },
    /** Fault injection for reliability tests; refused unless the user turned the debug panel on. */
    'debug/fault': {
      target: 'offscreen',
      payload: z.object({ fault: z.enum(['lose-gpu', 'hold-model-worker', 'end-mic', 'end-camera']) }).strict(),
      result: Empty,
    },
    /** The engine's timeline (stage marks with clock times) for tests and benches. */
    'conversation/marks': {
      target: 'offscreen',
      payload: Empty,
      result: z.array(
        z.object({
          name: z.string(),
          at: z.number(),
          /** `at` on the wall clock (ms since the epoch). */
          wallAt: z.number(),
          turnId: z.string(),
          /** The stage's numeric and boolean fields (e.g. a speech start's capture lag). */
          fields: z.record(z.string(), z.union([z.number(), z.boolean()])).optional(),
        }),
      ),
    },
    /**
     * Both barge gates' frames during replies since the last call, while `engine.traceGateFrames` is on
     * (core/engine/gate-frames.ts: `columns` names each row's values); `clockToWallMs` maps their capture times onto
     * the wall clock. Refused unless the debug panel is on.
     */
    'debug/gate-frames': {
      target: 'offscreen',
      payload: Empty,
      result: z.object({
        columns: z.array(z.string()),
        rows: z.array(z.array(z.number())),
        clockToWallMs: z.number(),
      }),
    },
    /**
     * Every turn's stamps across contexts on the offscreen clock (docs/benchmarks.md, "What the user hears"); the
     * side panel adds its stamps only while the debug panel is on, and this is refused unless it is.
     */
    'debug/turn-trace': { target: 'offscreen', payload: Empty, result: traceSchemas().TurnTraceExportSchema },
    /**
     * The echo canceller's reference as the side panel reported it (docs/echo-canceller.md, "The reference"), against
     * the turn's audio as it was sent to the player: blocks taken and dropped, the sound and span kept, and how well
     * the two match (GCC-PHAT peak, lag, correlation). Refused unless the debug panel is on.
     */
    /**
     * The last `seconds` of the microphone as the engine got it, beside the reference over the same samples (16 kHz,
     * Float32 as base64), the first frame's time and every frame's capture time on the offscreen clock: the echo
     * canceller run offline on real browser audio (bench/echo/room-offline.ts). Refused unless the debug panel is on.
     */
    'debug/echo-recording': {
      target: 'offscreen',
      payload: z.object({ seconds: z.number().min(0.1).max(30) }).strict(),
      result: z.object({
        firstAt: z.number(),
        frameAt: z.array(z.number()),
        mic: z.string(),
        reference: z.string(),
        /** Adds to an offscreen time to give the wall clock's (Date.now()). */
        clockToWallMs: z.number(),
      }),
    },
    'debug/played-reference': {
      target: 'offscreen',
      payload: z.object({ turnId: z.string().min(1).max(64) }).strict(),
      result: z.object({
        taken: z.number().int().nonnegative(),
        dropped: z.number().int().nonnegative(),
        heardMs: z.number(),
        spanMs: z.number(),
        matchScore: z.number().nullable(),
        atMs: z.number().nullable(),
        correlation: z.number().nullable(),
      }),
    },
    'mic/probe': {
      target: 'offscreen',
      payload: z.object({ durationMs: z.number().int().min(100).max(10_000) }).strict(),
      result: MicProbeResultSchema,
    },
    /** Live values inside the offscreen document or one of its workers; refused unless the debug panel is on. */
    'debug/tunables-live': {
      target: 'offscreen',
      payload: z.object({ context: z.enum(OFFSCREEN_TUNABLE_CONTEXTS) }).strict(),
      result: TunablesSnapshotSchema,
    },
    /** Installs the scripted model stand-in's rules (an empty list removes it); refused unless the debug panel is on. */
    'debug/llm-script': {
      target: 'offscreen',
      payload: z.object({ rules: z.array(LlmScriptRuleSchema).max(20) }).strict(),
      result: Empty,
    },
    /**
     * Sets the scripted recogniser stand-in: every transcription in the next `forMs` reports `text` (the recogniser
     * still runs); `text` null removes it. Refused unless the debug panel is on. The result says how many
     * transcriptions the previous script replaced.
     */
    'debug/asr-script': {
      target: 'offscreen',
      payload: z
        .object({
          text: z.string().max(500).nullable(),
          forMs: z.number().int().min(0).max(120_000),
          /** What it reports once `forMs` has passed (absent or null: the recogniser's own). */
          otherwise: z.string().max(500).nullable().optional(),
        })
        .strict(),
      result: z.object({ replaced: z.number().int().nonnegative() }).strict(),
    },
    /**
     * The last generations at the LLM boundary: the prompt the engine built, what was streamed back (raw), and who
     * produced it (local model, server, script).
     */
    'debug/llm-log': {
      target: 'offscreen',
      payload: Empty,
      result: z.array(
        z.object({
          source: z.enum(['local', 'remote', 'scripted']),
          prompt: z.string(),
          text: z.string(),
          tokens: z.object({ prompt: z.number(), cached: z.number(), generated: z.number() }).optional(),
        }),
      ),
    },
  } as const;
}

export type TestHookRequests = ReturnType<typeof testHookRequests>;
