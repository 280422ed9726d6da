import { registerTunables } from './registry';

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
    /**
     * Largest share of the side panel's main thread the avatar may spend rendering; a slower renderer gets fewer
     * frames so audio and playback messages are handled promptly (components/avatar/render-governor.ts). 1 = off.
     */
    renderShareMax: 0.5,
    /**
     * On a software WebGL renderer (SwiftShader, llvmpipe) the avatar draws this many pixels per CSS pixel, and its
     * frame rates are scaled by `softwareFpsScale`: there a frame costs the CPU the models need (docs/avatar.md).
     */
    softwarePixelRatio: 0.5,
    softwareFpsScale: 0.2,
    /**
     * The offscreen document's microphone feed runs behind real time (its frames handled more than `feedBehindMs`
     * after capture): it shares the side panel's renderer thread, so the avatar's frame rates are scaled by
     * `feedBehindFpsScale` until the feed has been back under `feedCaughtUpMs` for `feedCaughtUpHoldMs`
     * (core/lifecycle/feed-lag.ts; docs/avatar.md, "When the microphone falls behind").
     */
    feedBehindMs: 200,
    feedCaughtUpMs: 80,
    feedCaughtUpHoldMs: 2000,
    feedBehindFpsScale: 0.5,
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
    renderShareMax: { min: 0.05, max: 1 },
    softwarePixelRatio: { min: 0.25, max: 2 },
    softwareFpsScale: { min: 0.05, max: 1 },
    feedBehindMs: { min: 20, max: 10_000 },
    feedCaughtUpMs: { min: 0, max: 10_000 },
    feedCaughtUpHoldMs: { min: 0, max: 60_000 },
    feedBehindFpsScale: { min: 0.05, max: 1 },
  },
);
