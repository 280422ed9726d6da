/**
 * The user's side while a turn is active, and the reply's echo: speech before the reply's audio (merge both halves
 * or start over), speech over the reply (duck, backchannel, barge-in; core/engine/barge-detector.ts), the player's
 * events, and whether an utterance right after a reply was that reply coming back (docs/echo.md). The listening
 * policy and the turn's answer build on it in core/engine/duplex-engine.ts.
 */
import { engineTunables as T } from '../tunables';
import { FRAME_MS, FRAME_SAMPLES, VAD_SAMPLE_RATE } from './audio-frames';
import { readBurstWords, type BurstVerdict } from './backchannel';
import type { BargeDecision } from './barge-detector';
import { bargeTrack, crossCheckTracks, jointClear, mergeBargeDecisions, rawGateTrace, unprocessed } from './barge-tracks';
import { burstEcho, burstReferenceRange } from './burst-echo';
import { gateFrameRow, GateFrameLog } from './gate-frames';
import { replyEchoVerdict, type ReplyEchoVerdict } from './echo-match';
import type { Speculation } from './speculation';
import { TurnKeeper, type ActiveTurn } from './turn-keeper';
import type { MicFrame, PlaybackEvent } from './types';
import { UtteranceTracker } from './utterance-tracker';

const NONE: BargeDecision = { kind: 'none' };

export abstract class OverTheReply extends TurnKeeper {
  protected readonly tracker = new UtteranceTracker();
  /** The turn a merged continuation replaces: its partial user line gives way to the merged one (docs/onboarding.md). */
  protected mergedFrom: string | null = null;
  protected lastAudibleAt = -Infinity;
  private lastLevelHeardAt = -Infinity;
  /** How long the current mic frame took from capture to the engine (VAD queue included), for the trace. */
  protected frameLagMs = 0;
  /** When the current mic frame was heard: the echo path's clock. */
  protected frameAt = 0;
  /** The last frame during a reply came with the unprocessed microphone (trace). */
  private unprocessedMic = false;
  /** The unprocessed track's own gate saw a frame of this session (trace). */
  private rawGateUsed = false;
  /** How long after the last audible playback the current utterance opened (Infinity: not right after a reply). */
  protected onsetAfterAudibleMs = Infinity;
  /** Both gates' frames while `traceGateFrames` is on (the room sweep's, gate-frames.ts). */
  readonly gateFrames = new GateFrameLog();
  /** The turn whose long burst over the reply ASR is reading now (checkLongBurst). */
  private readingLong: ActiveTurn | null = null;

  /** Speech over the reply lowered it and is not decided yet, on either track. */
  private get deciding(): boolean {
    return this.barge.deciding || this.rawGate.deciding;
  }

  /** The user pressed stop, or the player cut the audio: the current reply ends. */
  abstract interrupt(): void;
  /** The utterance so far is dropped (its audio and whatever was transcribed of it). */
  protected abstract resetUtterance(): void;

  onPlayback(event: PlaybackEvent): void {
    const now = this.options.clock.now();
    if (event.type === 'level') {
      // Placed when it was heard (never before the last one: the output clock may step back a little).
      const heardAt = Math.max(this.lastLevelHeardAt, event.at ?? now);
      this.lastLevelHeardAt = heardAt;
      this.barge.onPlaybackLevel(now, event.rms, heardAt);
      this.rawGate.onPlaybackLevel(now, event.rms, heardAt);
      // On arrival, as the windows after a reply measure it from the frames' processing (the later of the two).
      if (event.rms > T.playbackAudibleRms) {
        this.lastAudibleAt = now;
        // A reply being heard is progress: TTS may finish long before its audio does (a long story on a fast GPU).
        if (this.active?.turn.phase === 'speaking') this.lastProgressAt = now;
      }
      return;
    }
    const active = this.active;
    // The player's report on a reply already cut (barge-in, stop) says how much of it was heard.
    if (!active || event.turnId !== active.turn.id) return this.heard.played(event);
    this.lastProgressAt = now;
    if (event.type === 'started') {
      active.turn.audioOutstanding = true;
      this.heardFirstAudio(active);
    } else if (event.interrupted) {
      // The player cut the audio (the panel closed, or a stop reached it first): nobody hears the rest of the reply.
      this.interrupt();
      this.heard.played(event);
    } else {
      // A run that drained was heard, also when its start never arrived (docs/echo.md, "A start the player lost").
      this.heardFirstAudio(active);
      active.turn.stage('echo-path', {
        ...this.barge.replyTrace(),
        unprocessedMic: this.unprocessedMic,
        ...(this.rawGateUsed ? { ...rawGateTrace(this.rawGate), ...this.jointRun.trace() } : {}),
      });
      // A run that ran dry while more of the reply was on its way to the player is not its end, also when the last
      // sentence was already handed over: its audio plays next, and may be talked over (docs/echo.md, "A drain is
      // not the end").
      active.turn.audioOutstanding = event.audioInFlight === true;
      if (active.turn.generationComplete && !active.turn.audioOutstanding) this.finish(active);
    }
  }

  private heardFirstAudio(active: ActiveTurn): void {
    active.firstAudioAt ??= this.options.clock.now();
    // Speech heard since the audio was queued was over the reply: the barge gates judge what follows of it.
    if (active.pendingResume) {
      active.pendingResume = undefined;
      this.resetUtterance();
    }
    if (!active.turn.advance('speaking')) return;
    active.turn.stage('first-audio', {});
    this.setState('speaking');
  }

  /** Whether the utterance (with `silenceMs` of quiet at its end) is the last reply's audio come back (echo-match.ts). */
  protected replyEcho(audio: Float32Array, silenceMs: number): ReplyEchoVerdict | null {
    const id = this.lastSpokenTurnId;
    const reference = id && T.echoMatchMinScore > 0 ? this.options.stages.replyAudio?.(id) : null;
    if (!reference) return null;
    const speechEnd = audio.length - Math.round((silenceMs / 1000) * 16_000);
    return replyEchoVerdict(audio, speechEnd, reference, T.echoMatchMinScore, T.echoMatchOverrunMs);
  }

  /** The utterance was the reply's own echo: no turn, and a speculative reply already started for it is dropped unheard. */
  protected dropOwnEcho(active: ActiveTurn, spec: Speculation | null): void {
    spec?.replyController?.abort();
    const likeness = active.echoLikeness;
    active.turn.stage('discarded', {
      reason: 'own-echo',
      ...(likeness != null ? { likeness: Math.round(likeness * 100) / 100 } : {}),
    });
    this.finish(active);
  }

  /** Before any reply audio was heard: the user resumed. Merge both halves, or start over with the new speech. */
  protected beforeAudio(active: ActiveTurn, now: number, frame: MicFrame, level: number): void {
    if (active.saved) active.gap.push(frame.pcm);
    const event = this.tracker.onFrame(now, frame.pcm, frame.prob);
    if (active.pendingResume) return this.confirmResume(active, now, active.pendingResume);
    if (event.kind !== 'onset') return;
    if (level < T.resumeMinRms) return this.resetUtterance();
    // The reply's audio is at the player and may already be in the room: its start may come after its echo.
    if (this.audioHandedOver(active) && T.resumeGraceMs > 0) {
      active.pendingResume = { heardAt: now, onsetAt: event.at };
      return;
    }
    this.resume(active, now, event.at);
  }

  /**
   * Some of the reply's audio went to the player: a whole sentence queued, or (streaming TTS) its first chunk, which
   * the reply's audio log has as soon as it is sent (reply-audio.ts).
   */
  private audioHandedOver(active: ActiveTurn): boolean {
    if (active.turn.audioOutstanding) return true;
    return (this.options.stages.replyAudio?.(active.turn.id, { fromSeconds: 0, toSeconds: 0.05 }) ?? null) !== null;
  }

  /**
   * Speech that began while the reply's audio was queued and not reported started: after `resumeGraceMs` without a
   * start, it is the user resuming if it is still speech enough for a turn, and nothing if it was not.
   */
  private confirmResume(active: ActiveTurn, now: number, pending: NonNullable<ActiveTurn['pendingResume']>): void {
    if (now - pending.heardAt < T.resumeGraceMs) return;
    active.pendingResume = undefined;
    if (this.tracker.voicedFrames < T.minVoicedFrames) return this.resetUtterance();
    this.resume(active, pending.heardAt, pending.onsetAt);
  }

  /** `heardAt`: when the resumption was heard (the merge window's clock); `onsetAt`: where its speech began. */
  private resume(active: ActiveTurn, heardAt: number, onsetAt: number): void {
    const { turn, saved } = active;
    if (saved && this.mergesLeft > 0 && heardAt - active.endpointAt <= T.mergeWindowMs) {
      this.mergesLeft--;
      turn.stage('merge', { afterEndpointMs: heardAt - active.endpointAt });
      turn.cancel('resumed');
      this.mergedFrom = turn.id;
      const frames = saved.frames.concat(active.gap);
      this.tracker.adopt(frames, saved.speechStart, saved.voiced + this.tracker.voicedFrames);
    } else {
      turn.cancel('resumed');
      this.mergedFrom = null;
      this.stageOf(this.upcomingId(), 'speech-start', { beforeAudio: true }, onsetAt);
    }
    this.active = null;
    if (active.historyIndex !== null) this.history.splice(active.historyIndex, 1);
    this.setState('listening');
  }

  protected duringPlayback(active: ActiveTurn, now: number, frame: MicFrame, level: number): void {
    this.tracker.observe(frame.pcm);
    // The echo path learns only while the reply plays: then the microphone hears the echo and (until a barge) nobody
    // else. Frames from the rest of the conversation would correlate the user's turns with the assistant's.
    // The echo's side of the microphone: unprocessed where it is available (docs/echo.md, "The unprocessed microphone").
    const raw = unprocessed(frame);
    const echoLevel = raw?.rms ?? level;
    this.unprocessedMic = raw !== undefined;
    this.barge.observeMic(this.frameAt, echoLevel);
    const wasDeciding = this.deciding;
    const second = bargeTrack(frame);
    if (second) this.rawGate.observeMic(this.frameAt, second.rms);
    this.rawGateUsed ||= second !== undefined;
    // Judged on the unprocessed track, whose echo is the speakers' through the room (the processed residual's level
    // follows the canceller, not the playback): a frame louder than its echo explains is not learned as residual.
    const judge = second ? this.rawGate : raw ? this.barge : null;
    const nearEnd = judge?.louderThanEcho(this.frameAt, second?.rms ?? echoLevel) ?? false;
    const { confirmed, rawConfirmed } = crossCheckTracks(this.barge, this.rawGate, echoLevel, second?.rms);
    const own = this.barge.onFrame(now, raw?.prob ?? frame.prob, echoLevel, this.frameAt, nearEnd, confirmed);
    const other = second ? this.rawGate.onFrame(now, second.prob, second.rms, this.frameAt, nearEnd, rawConfirmed) : NONE;
    const both = this.barge.candidate && this.rawGate.candidate && this.barge.floorHolds && this.rawGate.floorHolds;
    const clear = both && second !== undefined && jointClear(this.barge, echoLevel, this.rawGate, second.rms);
    const jointOnset = this.jointRun.frame(now, both, clear);
    const merged = mergeBargeDecisions(own, other, wasDeciding, this.deciding);
    const together = merged.kind === 'none' && jointOnset !== null && !this.deciding;
    const decision = together ? this.barge.duckTogether(jointOnset) : merged;
    if (T.traceGateFrames > 0) {
      const judged = { rms: echoLevel, prob: raw?.prob ?? frame.prob };
      this.gateFrames.push(gateFrameRow(this.frameAt, judged, this.barge, second, this.rawGate, decision.kind));
    }
    if (decision.kind === 'duck') {
      const track = second ? { unprocessedTrack: decision === other, ...(together ? { bothTracks: true } : {}) } : {};
      return active.turn.stage('barge-tentative', { onsetMs: now - decision.onsetAt, lagMs: this.frameLagMs, ...track });
    }
    if (decision.kind === 'release') return this.checkBurst(active, decision.onsetAt, decision.voicedFrames);
    if (decision.kind === 'long') return this.checkLongBurst(active, decision.onsetAt);
    if (decision.kind === 'barge') this.bargeIn(active, decision.onsetAt, now, echoLevel, false);
  }

  /**
   * What the speech over the reply since its onset was: the reply's own audio come back (burst-echo.ts), or, read by
   * ASR with the pre-roll, the reply's own words, a backchannel, or the user asking for the floor.
   */
  private readBurst(active: ActiveTurn, onsetAt: number): Promise<BurstVerdict> {
    const sinceOnset = Math.round((this.options.clock.now() - onsetAt) / FRAME_MS);
    const heard = this.tracker.recent(sinceOnset + Math.round(T.preRollMs / FRAME_MS));
    const burst = heard.subarray(Math.max(0, heard.length - sinceOnset * FRAME_SAMPLES));
    if (this.burstIsEcho(active, burst)) return Promise.resolve('own-echo');
    const transcribe = (pcm: Float32Array) => this.options.stages.transcribe(pcm, active.turn.signal);
    return readBurstWords(heard, transcribe, active.reply?.spoken);
  }

  /** The burst (from its onset: the pre-roll holds the echo also when the user speaks) matched against the reply. */
  private burstIsEcho(active: ActiveTurn, burst: Float32Array): boolean {
    if (active.firstAudioAt === undefined || !this.options.stages.replyAudio) return false;
    const sinceFirstAudio = this.options.clock.now() - active.firstAudioAt;
    const range = burstReferenceRange(sinceFirstAudio, burst.length / VAD_SAMPLE_RATE);
    const match = burstEcho(burst, this.options.stages.replyAudio(active.turn.id, range));
    if (match) active.burstEchoScore = Math.round(match.score * 10) / 10;
    return match?.own ?? false;
  }

  /**
   * Speech over the reply that has lasted long enough to interrupt: it does, unless its words so far are a backchannel
   * (a long "mm-hm", "yeah, yeah, right"), which keeps the reply held until the burst ends or runs too long
   * (barge-detector.ts). One reading at a time; a reading still running when the next is due is not repeated.
   */
  private checkLongBurst(active: ActiveTurn, onsetAt: number): void {
    if (this.readingLong === active) return;
    this.readingLong = active;
    void this.readBurst(active, onsetAt).then((verdict) => {
      if (this.readingLong === active) this.readingLong = null;
      if (this.active !== active || active.turn.signal.aborted || verdict !== 'interrupt') return;
      this.bargeIn(active, onsetAt, this.options.clock.now(), 0, true);
    });
  }

  /** A short burst over the reply: a backchannel lets the reply go on, words that want the floor interrupt it. */
  private checkBurst(active: ActiveTurn, onsetAt: number, voicedFrames: number): void {
    void this.readBurst(active, onsetAt).then((verdict) => {
      if (this.active !== active || active.turn.signal.aborted) return;
      if (verdict === 'interrupt') return this.bargeIn(active, onsetAt, this.options.clock.now(), 0, true);
      this.barge.burstReleased(verdict === 'own-echo');
      this.rawGate.burstReleased(verdict === 'own-echo');
      // Newer speech over the reply keeps it lowered until that is decided.
      if (!this.deciding) active.turn.stage('barge-released', { voicedFrames, ...this.echoScoreOf(active) });
    });
  }

  /** The last burst's match against the reply, for a mark (and forgotten: the next burst is matched afresh). */
  private echoScoreOf(active: ActiveTurn): { echoScore?: number } {
    const score = active.burstEchoScore;
    active.burstEchoScore = undefined;
    return score === undefined ? {} : { echoScore: score };
  }

  private bargeIn(active: ActiveTurn, onsetAt: number, now: number, level: number, byWords: boolean): void {
    const { turn } = active;
    this.onsetAfterAudibleMs = Infinity; // the user spoke over the reply: what follows is theirs
    // The speech began at its onset on whichever track heard it first: the other measured the voice since, not echo.
    const since = Math.round((now - onsetAt) / FRAME_MS) + 1;
    this.barge.interrupted(since);
    this.rawGate.interrupted(since);
    turn.stage('barge-onset', {}, onsetAt);
    turn.stage('barge-in', { latencyMs: now - onsetAt, byWords: byWords ? 1 : 0, ...this.echoScoreOf(active) });
    turn.cancel('barge-in');
    this.active = null;
    this.heard.cut(turn.id, active.reply?.spoken ?? '', active.recordAsAssistant, active.fromPage);
    // The new utterance starts with pre-roll before the onset (the first syllable rose before the VAD did).
    const runFrames = Math.round((now - onsetAt) / FRAME_MS);
    this.tracker.startUtterance(onsetAt, runFrames + Math.round(T.bargePreRollMs / FRAME_MS), runFrames);
    this.mergesLeft = 1;
    const trace = this.barge.bargeTrace(now, this.frameAt, this.frameLagMs, level);
    this.stageOf(this.upcomingId(), 'speech-start', trace, onsetAt);
    this.setState('listening');
  }
}
