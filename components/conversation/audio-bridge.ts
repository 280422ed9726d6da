import {
  AUDIO_CHANNEL_NAME,
  AudioChannelMessageSchema,
  deliverAudioMessage,
  PLAYBACK_CHANNEL_NAME,
  type AudioSink,
  type AudioSinkChunk,
  type PlaybackMessage,
} from '../../core/protocol';
import type { AvatarHandle } from '../avatar/Avatar';
import type { ChunkQueued } from '../avatar/avatar-controller';
import { PanelTrace } from './panel-trace';
import { TEST_HOOKS } from '../../core/build-flags';
import { engineTunables } from '../../core/tunables';

/** RMS at the player's analyser above which the reply counts as audible (the turn trace's first audible level). */
const AUDIBLE_RMS = 1e-3;

/**
 * The side-panel end of the audio channel: messages arrive validated and are handed to this player, the same
 * `AudioSink` the offscreen document spoke into, so a stop there is a stop here. Playback events go back tagged with
 * the turn whose audio is playing (the avatar reports started/level/ended without one).
 */
export class AudioBridge implements AudioSink {
  private readonly audioIn = new BroadcastChannel(AUDIO_CHANNEL_NAME);
  private readonly playbackOut = new BroadcastChannel(PLAYBACK_CHANNEL_NAME);
  private handle: AvatarHandle | null = null;
  private turnId: string | null = null;
  /** Audio of `turnId` the player rendered, over its playback runs so far (a long underrun ends a run). */
  private playedMs = 0;
  /**
   * The player has played all it was given of `turnId` and is idle (a voice slower than real time drains between
   * chunks): a stop then cuts nothing in the player, so this side reports the interrupted end itself. `null` when the
   * last run's end did not say how much it played.
   */
  private drained: { playedKnown: boolean } | null = null;
  private readonly stopped = new Set<string>();
  /**
   * The newest chunk of `received.turnId` that arrived, played or not (its channel sequence number): each end of a run
   * says it, so the engine can tell a player that ran dry mid-reply from the reply's end (docs/echo.md, "A drain is
   * not the end").
   */
  private received: { turnId: string; seq: number } | null = null;
  /** A run of the current turn is playing (started, not ended). */
  private playing = false;
  /** Lets a held reply go on should the engine's word never come. */
  private holdTimer: ReturnType<typeof setTimeout> | undefined;
  /** Counts chunks played, for tests and the debug panel. */
  chunksPlayed = 0;
  /** The turn trace (test builds with the debug panel on): sentence count of the traced turn, audible not yet seen. */
  private trace: PanelTrace | null = null;
  private traced = { turnId: '', sentences: 0, awaitingAudible: false, queuedAt: 0 };

  constructor(private readonly onSpeechText?: (text: string) => void) {
    this.audioIn.onmessage = (e: MessageEvent) => {
      const parsed = AudioChannelMessageSchema.safeParse(e.data);
      if (!parsed.success) return console.warn('[sidetalk] rejected audio message:', parsed.error.issues[0]?.message);
      deliverAudioMessage(parsed.data, this);
    };
  }

  attach(handle: AvatarHandle): void {
    this.handle = handle;
  }

  chunk(turnId: string, chunk: AudioSinkChunk): void {
    if (chunk.seq !== undefined) this.received = { turnId, seq: chunk.seq };
    if (this.stopped.has(turnId) || !this.handle) return;
    if (this.turnId !== turnId) {
      this.playedMs = 0;
      // A new reply is never held by the last one's undecided speech.
      clearTimeout(this.holdTimer);
      this.handle.pause(false);
    }
    this.turnId = turnId;
    this.drained = null;
    if (chunk.text) this.onSpeechText?.(chunk.text);
    this.chunksPlayed += 1;
    // A chunk the player could not take is lost, not fatal: the player starts its stream again with the next one.
    const queued = this.handle.speakChunk(chunk.samples, chunk.text ?? '').catch((e: unknown) => {
      console.warn('[sidetalk] a chunk of the reply was not played:', e instanceof Error ? e.message : String(e));
      // The engine waits for this chunk after a run that ran dry: with nothing playing, say the run is over again.
      if (!this.playing && this.turnId === turnId && !this.stopped.has(turnId)) this.ended(false);
    });
    if (this.trace && chunk.text) this.traceSentence(this.trace, turnId, queued);
  }

  /** Turns the turn trace on or off (test builds with the debug panel on; docs/benchmarks.md, "What the user hears"). */
  setTracing(on: boolean): void {
    if (!TEST_HOOKS) return; // the release build drops the trace (core/build-flags.ts)
    if (on && !this.trace) this.trace = new PanelTrace();
    else if (!on && this.trace) {
      this.trace.close();
      this.trace = null;
    }
  }

  /** The first chunk of a sentence arrived (the offscreen document attaches the sentence's text to it). */
  private traceSentence(trace: PanelTrace, turnId: string, queued: Promise<ChunkQueued | void>): void {
    if (this.traced.turnId !== turnId) this.traced = { turnId, sentences: 0, awaitingAudible: true, queuedAt: performance.now() };
    const index = this.traced.sentences++;
    trace.stamp('panel-chunk', turnId, index);
    void queued.then((info) =>
      trace.stamp('panel-queued', turnId, index, info ? { streamStarted: info.streamStarted ? 1 : 0 } : undefined),
    );
  }

  feedBehind(behind: boolean): void {
    this.handle?.feedBehind?.(behind);
  }

  end(turnId: string): void {
    if (this.turnId === turnId) this.handle?.endOfSpeech();
  }

  pause(turnId: string, paused: boolean): void {
    if (this.turnId !== turnId || !this.handle) return;
    clearTimeout(this.holdTimer);
    this.handle.pause(paused);
    // The engine lets a hold go or cuts the reply within a second; should its word never come (the microphone died
    // mid-decision), the reply goes on rather than hang.
    if (paused) this.holdTimer = setTimeout(() => this.handle?.pause(false), engineTunables.bargeHoldMaxMs);
  }

  stop(turnId: string): void {
    const first = !this.stopped.has(turnId);
    this.stopped.add(turnId);
    if (this.turnId !== turnId) return;
    clearTimeout(this.holdTimer);
    const drained = this.drained;
    this.handle?.interrupt();
    // The engine keeps only the words heard once it has the interrupted end (docs/interruptions.md).
    if (drained && first) this.ended(true, drained.playedKnown ? 0 : undefined);
  }

  private report(message: PlaybackMessage): void {
    this.playbackOut.postMessage(message);
  }

  started(): void {
    this.playing = true;
    if (this.turnId) this.trace?.stamp('panel-started', this.turnId);
    if (this.turnId) this.report({ type: 'started', turnId: this.turnId });
  }

  /**
   * `heardAt`: when the first sound in the player's analyser window is heard; `windowAt`: when the window is, which is
   * sent as `at` on the epoch clock the offscreen document shares (components/avatar/audible-onset.ts; docs/echo.md).
   */
  level(rms: number, heardAt?: number, windowAt?: number): void {
    if (this.trace && this.traced.awaitingAudible && rms > AUDIBLE_RMS && this.traced.turnId === this.turnId) {
      this.traced.awaitingAudible = false;
      // Never before this turn's first chunk arrived: the window may still hold the previous reply's tail.
      const at = Math.min(performance.now(), Math.max(heardAt ?? performance.now(), this.traced.queuedAt));
      this.trace.stamp('panel-audible', this.traced.turnId, undefined, undefined, at);
    }
    const at = windowAt !== undefined && Number.isFinite(windowAt) ? { at: performance.timeOrigin + windowAt } : {};
    this.report({ type: 'level', rms: Math.min(10, Math.max(0, rms)), ...at });
  }

  /** A block of sound the speakers got, heard at `heardAt` (performance.now() ms): the echo canceller's reference. */
  played(samples: Float32Array<ArrayBuffer>, heardAt: number, sampleRate: number): void {
    if (!Number.isFinite(heardAt)) return;
    this.report({ type: 'played', at: performance.timeOrigin + heardAt, sampleRate, samples });
  }

  /** `playedMs`: the player's account of this playback run (docs/interruptions.md); the report adds up the turn's. */
  ended(interrupted: boolean, playedMs?: number): void {
    this.playing = false;
    if (!this.turnId) return;
    this.drained = interrupted ? null : { playedKnown: playedMs !== undefined };
    const seq = this.received?.turnId === this.turnId ? { lastSeq: this.received.seq } : {};
    if (playedMs === undefined) return this.report({ type: 'ended', turnId: this.turnId, interrupted, ...seq });
    this.playedMs += playedMs;
    this.report({ type: 'ended', turnId: this.turnId, interrupted, playedMs: Math.round(this.playedMs), ...seq });
  }

  close(): void {
    this.setTracing(false);
    this.audioIn.close();
    this.playbackOut.close();
  }
}
