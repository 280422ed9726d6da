/**
 * Barge-in while the assistant talks. The mic hears the assistant too (capture is in the offscreen document,
 * playback in the side panel, so the browser's echo canceller may not see the far end), and Silero calls that echo
 * speech. So a barge needs VAD AND energy above what the echo alone would produce.
 *
 * The expected echo is estimated from the playback level the side panel reports: over the first few frames on which
 * playback is audible (never during the silent gap before the first audio — calibrating on silence made a peer
 * assistant interrupt itself), we learn the coupling mic/playback. Afterwards a frame is a barge candidate when
 * P(speech) > vadOn and mic RMS > max(bargeMinRms, bargeRatio × coupling × recent playback level).
 *
 * That look-back only covers `echoTailMs`. The echo path (echo-path.ts) also learns the real delay and coupling from
 * the two envelopes; where it knows them, the threshold is the larger of both estimates, and the same gate keeps the
 * delayed tail of a finished reply from opening an utterance (`heldByEcho`).
 */
import { engineTunables } from '../tunables';
import { FRAME_MS } from './audio-frames';
import { EchoPath, echoFields, type EchoLikeness } from './echo-path';
import { GateTrace } from './gate-trace';
import { ResidualFloor } from './residual-floor';
import type { TurnStageFields } from './types';

/** Playback levels are kept this long (ms): a frame may reach the engine a second or more after it was heard. */
const LEVEL_KEEP_MS = 3000;
/** Longer than this without a level from the side panel during a reply (its page is starved): assume it still plays. */
const LEVEL_STALE_MS = 250;

/**
 * What one microphone frame during a reply decides. Speech over the reply first only lowers it (`duck`); it
 * interrupts (`barge`) once it has lasted `bargeConfirmFrames` and its words so far are not a backchannel (`long`,
 * asked until `bargeBackchannelMaxFrames`); a burst that stops before that is `release`d for the engine to decide by
 * its words: a backchannel ("mm-hm", a cough) lets the reply go on at full volume, a short "stop"
 * still interrupts (core/engine/backchannel.ts, docs/echo.md "Backchannels").
 */
export type BargeDecision =
  | { kind: 'none' }
  | { kind: 'duck'; onsetAt: number }
  | { kind: 'release'; onsetAt: number; voicedFrames: number }
  /** Long enough to interrupt unless its words so far are a backchannel; the reply stays held while they are read. */
  | { kind: 'long'; onsetAt: number; voicedFrames: number }
  | { kind: 'barge'; onsetAt: number };

const NONE: BargeDecision = { kind: 'none' };

export class BargeDetector {
  private levels: { at: number; rms: number }[] = [];
  private calibFrames = 0;
  private coupling = 0;
  protected run = 0;
  private runStart = 0;
  /** This reply's frames as the gate judged them, for its `echo-path` mark. */
  private readonly trace = new GateTrace();
  /** Speech over the reply that ducked it and is not decided yet: its onset, voiced frames, and quiet run since. */
  protected tentative: { onsetAt: number; voiced: number; quiet: number } | null = null;
  /** The loudest playback level of this reply, and when the side panel last reported one. */
  private replyPeak = 0;
  private lastLevelAt = -Infinity;
  /** The panel's player ran dry since its last level (between sentences): its silence is the reply's, not a starved page. */
  private drained = false;
  /** The last frame fed was a barge candidate (the other track's gate reads it for a run both heard). */
  protected candidateNow = false;
  /** The gate the last frame fed was judged against (NaN while calibrating). */
  private judgedAgainst = Number.NaN;
  /** Learned across replies: the speakers, the room and the microphone stay the same from one reply to the next. */
  readonly echo = new EchoPath();
  /** The gate's floor, measured on the replies nobody talked over (kept across replies, as the path). */
  readonly residual: ResidualFloor;

  /**
   * `measuredOnly`: this gate decides nothing until its floor has been measured on a reply. The fixed floor is the
   * canceller's residual's; on the unprocessed track the echo itself is that loud at −10 dB, and a fresh session's
   * first reply in such a room ducked and cut itself through it (docs/echo.md, "Both tracks gate a barge-in").
   * `behindCanceller`: the track comes out of the browser's echo canceller (residual-floor.ts).
   */
  constructor(
    private readonly measuredOnly = false,
    { behindCanceller = false }: { behindCanceller?: boolean } = {},
  ) {
    this.residual = new ResidualFloor(behindCanceller);
  }

  /** A new reply: learn the last one's residual, forget its calibration (volume or device may have changed). */
  reset(): void {
    this.residual.endReply();
    this.levels = [];
    this.calibFrames = 0;
    this.coupling = 0;
    this.run = 0;
    this.tentative = null;
    this.trace.reset();
    this.replyPeak = 0;
    this.drained = false;
  }

  /** `at`: when the level is heard (the echo's clock); `arrivedAt`: when the report came (its staleness). */
  onPlaybackLevel(arrivedAt: number, rms: number, at = arrivedAt): void {
    this.echo.onPlayback(at, rms);
    this.levels.push({ at, rms });
    this.replyPeak = Math.max(this.replyPeak, rms);
    this.lastLevelAt = arrivedAt;
    this.drained = false;
    // Kept long enough for a microphone frame that reached the engine late (a busy VAD queue) to find its playback.
    const horizon = at - Math.max(engineTunables.echoTailMs, LEVEL_KEEP_MS) - FRAME_MS;
    while (this.levels.length > 0 && this.levels[0]!.at < horizon) this.levels.shift();
  }

  /**
   * The panel's player ran dry (a sentence ended before the next one arrived) and sends no levels until it plays again:
   * no report since is silence, not a starved page.
   */
  playbackDrained(): void {
    this.drained = true;
  }

  /** Loudest playback within the echo tail: what may be arriving at the mic now. */
  expectedPlayback(now: number): number {
    let max = 0;
    const from = now - engineTunables.echoTailMs - FRAME_MS;
    for (const l of this.levels) if (l.at >= from && l.rms > max) max = l.rms;
    return max;
  }

  get calibrated(): boolean {
    return this.calibFrames >= engineTunables.echoCalibFrames;
  }

  /** Trace fields of a user onset while listening: how late the frame was, how long since playback was audible. */
  onsetTrace(lagMs: number, sinceAudibleMs: number, micRms: number, released: number): TurnStageFields['speech-start'] {
    const tail = released > 0 ? { micRms, releasedEchoRms: released } : {};
    return { lagMs, sinceAudibleMs: Math.round(Math.min(1e6, sinceAudibleMs)), ...echoFields(this.echo.estimate), ...tail };
  }

  /** Trace fields of a barge-in's onset: the gate it passed and what it was made of. */
  bargeTrace(now: number, capturedAt: number, lagMs: number, micRms: number): TurnStageFields['speech-start'] {
    const last = this.levels[this.levels.length - 1];
    return {
      barge: true,
      lagMs,
      // Since the side panel last reported a playback level (its reports follow the avatar's frames).
      levelGapMs: Math.round(Math.min(10_000, last ? now - last.at : Infinity)),
      micRms,
      thresholdRms: this.threshold(now, capturedAt),
      coupling: this.coupling,
      ...echoFields(this.echo.estimate),
    };
  }

  /** Trace fields when a reply's playback ends: the echo path as learned, and how close the echo came to a barge. */
  replyTrace(): TurnStageFields['echo-path'] {
    const e = this.echo.estimate;
    const windows = this.residual.windowLevels;
    return {
      ...(e ? { delayMs: e.delayMs, coupling: e.coupling, correlation: e.correlation } : {}),
      ...this.trace.fields(),
      residualRunRms: this.residual.replyRunLevel,
      // The second and fourth loudest windows' levels (docs/echo.md, "A missed voice"): how far the loudest stands
      // out of the reply, for checking `residualPeakOverRank` against the room sweep.
      residualRank2Rms: windows[1] ?? 0,
      residualRank4Rms: windows[3] ?? 0,
      floorRms: this.floor,
      ...(this.residual.followsCut ? { followsCut: true } : {}),
    };
  }

  /** The gate's floor: measured once a reply nobody talked over has been (residual-floor.ts), else `bargeMinRms`. */
  get floor(): number {
    return this.residual.floor ?? engineTunables.bargeMinRms;
  }

  /**
   * Current energy threshold for a barge candidate. `capturedAt` is when the frame was heard (the echo path's clock
   * for the microphone); `now` is when the engine sees it.
   */
  threshold(now: number, capturedAt = now): number {
    // Until the echo path had a chance to show itself (the session's first seconds of playback), any echo up to the
    // playback's own level may still arrive: only a voice well above that interrupts.
    const pathKnown = this.echo.evaluated || this.echo.estimate !== null;
    const unknown = pathKnown ? 0 : this.echo.recentPlayback(capturedAt);
    // The panel stopped reporting mid-reply (its page is starved, not silent): the reply's loudest level, at the
    // largest coupling known, may be what the microphone hears. Not after its player said it ran dry: in the room
    // test's gaps between sentences that put the reply's loudest echo over a voice that came in the gap.
    const stale =
      !this.drained && now - this.lastLevelAt > LEVEL_STALE_MS
        ? this.replyPeak * (pathKnown ? Math.max(this.coupling, this.echo.estimate?.coupling ?? 0) : 1)
        : 0;
    const heard = this.coupling * this.expectedPlayback(capturedAt);
    const echo = Math.max(heard, this.echo.expected(capturedAt), unknown, stale);
    return Math.max(this.floor, engineTunables.bargeRatio * echo);
  }

  /** A microphone frame while the reply plays: the echo path learns from these. */
  observeMic(capturedAt: number, micRms: number): void {
    this.echo.onMic(capturedAt, micRms);
  }

  /** A microphone frame while listening: kept for `echoLikeness`, learned from by nothing. */
  recordListeningMic(capturedAt: number, micRms: number): void {
    this.echo.recordMic(capturedAt, micRms);
  }

  /** How much the microphone over [from, to] (capture times) follows the reply's playback (EchoPath.likeness). */
  echoLikeness(from: number, to: number): EchoLikeness {
    return this.echo.likeness(from, to);
  }

  /**
   * After a reply, while its echo may still be arriving, a frame may not open an utterance unless it is louder than
   * the barge gate would allow over that echo. Two measures of "may still be arriving": the learned path (its delay,
   * however long) expects echo at this frame; or it is within the path's delay plus `echoDecayMs` of the last
   * audible playback, and no louder than `bargeRatio` × the echo the measured coupling gives for its last level.
   * `released`: the echo the unprocessed track's path expects at this frame: once the far end stops, the canceller lets
   * the tail through about as loud as it is in the room (docs/echo.md, "The tail as loud as the room").
   */
  heldByEcho(capturedAt: number, sinceAudibleMs: number, micRms: number, released = 0): boolean {
    const { bargeMinRms, bargeRatio, echoDecayMs, echoTailMs } = engineTunables;
    const echo = Math.max(this.echo.expected(capturedAt), released);
    // Never under the fixed floor: the measured one comes from the residual while the reply plays, and once it stops
    // the canceller lets the tail through much louder (docs/echo.md, "The echo of the reply's end").
    if (echo > 0 && micRms <= Math.max(bargeMinRms, this.floor, bargeRatio * echo)) return true;
    const tail = Math.max(echoTailMs, this.echo.longestDelayMs + echoDecayMs);
    // The coupling measured at the reply's start (before anyone would talk over it) or by the path, whichever is
    // larger, times the last playback level: no floor, so with no echo left after the canceller (headphones) a soft first syllable still opens a turn.
    const last = this.levels.reduce((max, l) => Math.max(max, l.rms), 0);
    const coupling = Math.max(this.coupling, this.echo.estimate?.coupling ?? 0);
    return sinceAudibleMs < tail && micRms <= bargeRatio * coupling * last;
  }

  /**
   * Feed one mic frame (time = end of frame). `otherTrackAgrees`: false
   * when the other track's frame shows no voice over its echo (`overEchoSoFar`): the frame is no candidate.
   * `prob` null: the frame's VAD was skipped (a feed behind real time, the unprocessed track): it decides nothing and
   * the run or burst in progress waits for a judged frame, but its level still measures the echo, as voiced: on the
   * unprocessed track the echo is the reply's own speech (docs/echo.md, "The unprocessed microphone").
   */
  onFrame(now: number, prob: number | null, micRms: number, capturedAt = now, otherTrackAgrees = true): BargeDecision {
    this.candidateNow = false;
    this.judgedAgainst = Number.NaN;
    if (prob === null) {
      this.residual.onFrame(true, micRms, false);
      return NONE;
    }
    const voiced = prob > engineTunables.vadOn;
    this.residual.onFrame(voiced, micRms);
    const playback = this.expectedPlayback(capturedAt);
    const audible = playback > engineTunables.playbackAudibleRms;
    if (audible && !this.calibrated) {
      this.coupling = Math.max(this.coupling, micRms / playback);
      this.calibFrames++;
      this.run = 0;
      return NONE;
    }
    const gate = this.threshold(now, capturedAt);
    this.judgedAgainst = gate;
    const candidate = voiced && micRms > gate && otherTrackAgrees && (!this.measuredOnly || this.residual.floor !== null);
    this.candidateNow = candidate;
    this.trace.frame(voiced, candidate, micRms, gate);
    // Near end: a candidate, or any voiced frame louder than the floor and than the path explains (one the other
    // track vetoed, or under a gate raised by another echo term), lest the path's fit learn the voice as echo.
    const unexplained = voiced && micRms > Math.max(this.floor, engineTunables.bargeRatio * this.echo.expected(capturedAt));
    if (candidate || unexplained) this.echo.markNearEnd(capturedAt);
    if (this.tentative) return this.decide(this.tentative, candidate);
    if (!candidate) {
      this.run = 0;
      return NONE;
    }
    if (this.run === 0) {
      this.runStart = now - FRAME_MS;
      this.residual.runStarted();
    }
    this.run++;
    this.trace.run(this.run);
    if (this.run < engineTunables.bargeFrames) return NONE;
    return this.holdRun(this.runStart);
  }

  /**
   * The current run of candidates holds the reply from `onsetAt` (or interrupts it, when it is already as long as
   * the confirm): its frames count as the burst's first voiced ones, and the floor keeps the burst apart until decided.
   */
  protected holdRun(onsetAt: number): BargeDecision {
    const voiced = this.run;
    this.run = 0;
    this.residual.ducked();
    if (engineTunables.bargeConfirmFrames <= voiced) return { kind: 'barge', onsetAt };
    this.tentative = { onsetAt, voiced, quiet: 0 };
    return { kind: 'duck', onsetAt };
  }

  /**
   * The burst that ducked the reply let it go on. `echo`: it was the reply's own echo (its audio or its words), and
   * counts towards the floor; a listener's backchannel was the user's voice, and does not.
   */
  burstReleased(echo: boolean): void {
    this.residual.released(echo);
  }

  /**
   * Speech interrupted the reply: it was the user (the measured floor learns nothing more from this reply, nor from
   * the last `sinceFrames` frames when the other microphone track heard the speech first).
   */
  interrupted(sinceFrames = 0): void {
    this.tentative = null;
    this.residual.interrupted(sinceFrames);
  }

  /** The gate the last frame fed was judged against (NaN while calibrating): for the frame log (gate-frames.ts). */
  get lastGate(): number {
    return this.judgedAgainst;
  }

  /** True while speech over the reply has lowered it and is not decided yet. */
  get deciding(): boolean {
    return this.tentative !== null;
  }

  /**
   * Speech that ducked the reply: it interrupts once it has lasted, or was a backchannel once it has stopped. Between
   * the confirm and the longest backchannel, its words are asked (`long`) on every `bargeRecheckFrames`-th voiced frame.
   */
  private decide(t: { onsetAt: number; voiced: number; quiet: number }, candidate: boolean): BargeDecision {
    const { bargeConfirmFrames, bargeBackchannelMaxFrames, bargeRecheckFrames, bargeReleaseFrames } = engineTunables;
    if (candidate) {
      t.voiced++;
      t.quiet = 0;
    } else t.quiet++;
    if (t.voiced >= Math.max(bargeConfirmFrames, bargeBackchannelMaxFrames)) {
      this.tentative = null;
      return { kind: 'barge', onsetAt: t.onsetAt };
    }
    if (candidate && t.voiced >= bargeConfirmFrames && (t.voiced - bargeConfirmFrames) % bargeRecheckFrames === 0)
      return { kind: 'long', onsetAt: t.onsetAt, voicedFrames: t.voiced };
    if (t.quiet >= bargeReleaseFrames) {
      this.tentative = null;
      return { kind: 'release', onsetAt: t.onsetAt, voicedFrames: t.voiced };
    }
    return NONE;
  }
}
