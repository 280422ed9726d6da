/**
 * The interruption detector: speech over the reply weighed against its echo on both microphone tracks (the
 * Chrome-processed one and the unprocessed one), and the echo after the reply that must not open an utterance. The
 * rules are the barge gates' (barge-detector.ts, barge-tracks.ts; docs/echo.md); this part feeds them and merges
 * their decisions, and the engine acts on the decision (hold, release, read the burst, barge in).
 */
import { engineTunables as T } from '../tunables';
import type { BargeDecision } from './barge-detector';
import { bargeTrack, crossCheckTracks, JointRun, mergeBargeDecisions, rawGateTrace, TrackGate } from './barge-tracks';
import type { EchoLikeness } from './echo-path';
import { gateFrameRow, GateFrameLog } from './gate-frames';
import type { MicFrame, TurnStageFields } from './types';

const NONE: BargeDecision = { kind: 'none' };

/** One frame over the reply, judged: the decision, and which track made it (for the trace). */
export interface OverReplyJudgement {
  decision: BargeDecision;
  /** The level the echo handling read (the unprocessed track's where present). */
  echoLevel: number;
  /** Both tracks gate a barge-in on this frame: whether the unprocessed one decided, and whether both did together. */
  track: { unprocessedTrack: boolean; bothTracks?: boolean } | null;
}

/** When a mic frame was heard, and how long it took to reach the engine. */
export interface FrameTiming {
  /** Capture time on the engine's clock: the echo path's clock. */
  at: number;
  lagMs: number;
}

export interface InterruptionDetector {
  /** Speech over the reply paused it and is not decided yet, on either track. */
  readonly deciding: boolean;
  /** When the playback was last audible (on arrival of its level): the engine's processing clock. */
  readonly lastAudibleAt: number;
  /**
   * When that audible playback was heard from the speakers (the level's own time where the panel gave one): the
   * microphone frames' capture clock, on which its echo arrives.
   */
  readonly lastAudibleHeardAt: number;
  /** Both gates' frames while `traceGateFrames` is on (gate-frames.ts): diagnostics. */
  readonly gateFrames: GateFrameLog;
  /** A new turn: the gates forget the last reply's speech. */
  reset(): void;
  /** A playback level from the panel; true when it was audible. */
  playbackLevel(now: number, rms: number, at: number | undefined): boolean;
  /** The panel's player ran dry between sentences: no level until it plays again is silence. */
  playbackDrained(): void;
  /** A mic frame while the reply plays. */
  judge(now: number, frame: MicFrame, level: number, timing: FrameTiming): OverReplyJudgement;
  /** A burst over the reply was let go: a backchannel, or (`ownEcho`) the reply's own audio. */
  released(ownEcho: boolean): void;
  /** The user barged in; their speech began `sinceFrames` frames ago. */
  interrupted(sinceFrames: number): void;
  /** The echo path and gates as the reply ends (the `echo-path` stage). */
  replyTrace(): TurnStageFields['echo-path'];
  bargeTrace(now: number, timing: FrameTiming, level: number): TurnStageFields['speech-start'];
  /** After the reply: its tail, which the mic still hears, learned for the echo path. */
  recordListening(frameAt: number, echoLevel: number): void;
  /** After the reply: the echo the unprocessed track's path expects now (0 when that rule is off or cannot say). */
  releasedEcho(frameAt: number): number;
  /** After the reply: the frame is explained by the reply's echo, so it opens no utterance. */
  heldByEcho(frameAt: number, sinceAudibleMs: number, echoLevel: number, released: number): boolean;
  onsetTrace(lagMs: number, sinceAudibleMs: number, echoLevel: number, released: number): TurnStageFields['speech-start'];
  /** How much the utterance between capture times `from` and `to` followed the reply's envelope. */
  echoLikeness(from: number, to: number): EchoLikeness;
}

/** The two tracks' barge gates (barge-tracks.ts), as the detector. */
export class TwoTrackDetector implements InterruptionDetector {
  private readonly barge = new TrackGate(false, { behindCanceller: true });
  /** The unprocessed track's own gate, where it also opens a barge-in (`bargeFromUnprocessed`; barge-tracks.ts). */
  private readonly rawGate = new TrackGate(true);
  /** A run both tracks' gates heard (barge-tracks.ts). */
  private readonly jointRun = new JointRun();
  readonly gateFrames = new GateFrameLog();
  lastAudibleAt = -Infinity;
  lastAudibleHeardAt = -Infinity;
  private lastLevelHeardAt = -Infinity;
  /** The unprocessed track's own gate saw a frame of this session (trace). */
  private rawGateUsed = false;

  get deciding(): boolean {
    return this.barge.deciding || this.rawGate.deciding;
  }

  reset(): void {
    this.barge.reset();
    this.rawGate.reset();
    this.jointRun.reset();
  }

  playbackLevel(now: number, rms: number, at: number | undefined): boolean {
    // Placed when it was heard (never before the last one: the output clock may step back a little).
    const heardAt = Math.max(this.lastLevelHeardAt, at ?? now);
    this.lastLevelHeardAt = heardAt;
    this.barge.onPlaybackLevel(now, rms, heardAt);
    this.rawGate.onPlaybackLevel(now, rms, heardAt);
    if (rms <= T.playbackAudibleRms) return false;
    this.lastAudibleAt = now;
    this.lastAudibleHeardAt = heardAt;
    return true;
  }

  playbackDrained(): void {
    this.barge.playbackDrained();
    this.rawGate.playbackDrained();
  }

  judge(now: number, frame: MicFrame, level: number, timing: FrameTiming): OverReplyJudgement {
    const echoLevel = level;
    this.barge.observeMic(timing.at, echoLevel);
    const wasDeciding = this.deciding;
    const second = bargeTrack(frame);
    if (second) this.rawGate.observeMic(timing.at, second.rms);
    this.rawGateUsed ||= second !== undefined;
    const { confirmed, rawConfirmed } = crossCheckTracks(this.barge, this.rawGate, echoLevel, second?.rms);
    const own = this.barge.onFrame(now, frame.prob, echoLevel, timing.at, confirmed);
    const other = second ? this.rawGate.onFrame(now, second.prob, second.rms, timing.at, rawConfirmed) : NONE;
    const both = this.barge.candidate && this.rawGate.candidate && this.barge.floorHolds && this.rawGate.floorHolds;
    const jointOnset = this.jointRun.frame(now, both);
    const merged = mergeBargeDecisions(own, other, wasDeciding, this.deciding);
    const together = merged.kind === 'none' && jointOnset !== null && !this.deciding;
    const decision = together ? this.barge.duckTogether(jointOnset) : merged;
    if (T.traceGateFrames > 0) {
      const judged = { rms: echoLevel, prob: frame.prob };
      this.gateFrames.push(gateFrameRow(timing.at, judged, this.barge, second, this.rawGate, decision.kind));
    }
    const track = second ? { unprocessedTrack: decision === other, ...(together ? { bothTracks: true } : {}) } : null;
    return { decision, echoLevel, track };
  }

  released(ownEcho: boolean): void {
    this.barge.burstReleased(ownEcho);
    this.rawGate.burstReleased(ownEcho);
  }

  interrupted(sinceFrames: number): void {
    this.barge.interrupted(sinceFrames);
    this.rawGate.interrupted(sinceFrames);
  }

  replyTrace(): TurnStageFields['echo-path'] {
    return {
      ...this.barge.replyTrace(),
      ...(this.rawGateUsed ? { ...rawGateTrace(this.rawGate), ...this.jointRun.trace() } : {}),
    };
  }

  bargeTrace(now: number, timing: FrameTiming, level: number): TurnStageFields['speech-start'] {
    return this.barge.bargeTrace(now, timing.at, timing.lagMs, level);
  }

  recordListening(frameAt: number, echoLevel: number): void {
    this.barge.recordListeningMic(frameAt, echoLevel);
  }

  releasedEcho(frameAt: number): number {
    return T.echoTailFromUnprocessed > 0 ? this.rawGate.echo.expected(frameAt) : 0;
  }

  heldByEcho(frameAt: number, sinceAudibleMs: number, echoLevel: number, released: number): boolean {
    return this.barge.heldByEcho(frameAt, sinceAudibleMs, echoLevel, released);
  }

  onsetTrace(lagMs: number, sinceAudibleMs: number, echoLevel: number, released: number): TurnStageFields['speech-start'] {
    return this.barge.onsetTrace(lagMs, sinceAudibleMs, echoLevel, released);
  }

  echoLikeness(from: number, to: number): EchoLikeness {
    return this.barge.echoLikeness(from, to);
  }
}
