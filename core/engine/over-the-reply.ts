/**
 * The user's side while a turn is active, and the reply's echo: speech before the reply's audio (merge both halves
 * or start over), speech over the reply (hold, backchannel, barge-in; the interruption detector decides,
 * interruption-detector.ts), the player's events, and whether an utterance right after a reply was that reply coming
 * back (docs/echo.md). The engine (duplex-engine.ts) routes each frame of an active turn here.
 */
import { engineTunables as T } from '../tunables';
import { FRAME_MS, FRAME_SAMPLES, VAD_SAMPLE_RATE } from './audio-frames';
import type { Answers } from './answers';
import { readBurstWords, type BurstVerdict } from './backchannel';
import { burstEcho, burstReferenceRange } from './burst-echo';
import { replyEchoVerdict, type ReplyEchoVerdict } from './echo-match';
import type { FrameTiming, InterruptionDetector } from './interruption-detector';
import type { ActiveTurn, TurnController } from './turn-controller';
import type { EngineOptions, MicFrame, PlaybackEvent } from './types';
import type { UserSpeech } from './user-speech';

export interface OverTheReplyParts {
  options: EngineOptions;
  turns: TurnController;
  detector: InterruptionDetector;
  speech: UserSpeech;
  answers: Answers;
  timing: FrameTiming;
  /** The player cut the audio: the current reply ends as if the user pressed stop. */
  interrupt(): void;
}

export class OverTheReply {
  /** The turn whose long burst over the reply ASR is reading now (checkLongBurst). */
  private readingLong: ActiveTurn | null = null;

  constructor(private readonly parts: OverTheReplyParts) {}

  onPlayback(event: PlaybackEvent): void {
    const { turns, answers } = this.parts;
    const now = this.parts.options.clock.now();
    if (event.type === 'level') {
      // A reply being heard is progress: TTS may finish long before its audio does (a long story on a fast GPU).
      if (this.parts.detector.playbackLevel(now, event.rms, event.at) && turns.active?.turn.phase === 'speaking')
        turns.lastProgressAt = now;
      return;
    }
    const active = turns.active;
    // The player's report on a reply already cut (barge-in, stop) says how much of it was heard.
    if (!active || event.turnId !== active.turn.id) return answers.heard.played(event);
    turns.lastProgressAt = now;
    if (event.type === 'started') {
      active.turn.audioOutstanding = true;
      this.heardFirstAudio(active);
    } else if (event.interrupted) {
      // The player cut the audio (the panel closed, or a stop reached it first): nobody hears the rest of the reply.
      this.parts.interrupt();
      answers.heard.played(event);
    } else {
      // A run that drained was heard, also when its start never arrived (docs/echo.md, "A start the player lost").
      this.parts.detector.playbackDrained();
      this.heardFirstAudio(active);
      active.turn.stage('echo-path', this.parts.detector.replyTrace());
      // A run that ran dry while more of the reply was on its way to the player is not its end, also when the last
      // sentence was already handed over: its audio plays next, and may be talked over (docs/echo.md, "A drain is
      // not the end").
      active.turn.audioOutstanding = event.audioInFlight === true;
      if (active.turn.generationComplete && !active.turn.audioOutstanding) answers.finish(active);
    }
  }

  private heardFirstAudio(active: ActiveTurn): void {
    active.firstAudioAt ??= this.parts.options.clock.now();
    // Speech heard since the audio was queued was over the reply: the barge gates judge what follows of it.
    if (active.pendingResume) {
      active.pendingResume = undefined;
      this.parts.speech.reset();
    }
    if (!this.parts.turns.speaking(active)) return;
    active.turn.stage('first-audio', {});
    this.parts.turns.setState('speaking');
  }

  /** Whether the utterance (with `silenceMs` of quiet at its end) is the last reply's audio come back (echo-match.ts). */
  replyEcho(audio: Float32Array, silenceMs: number): ReplyEchoVerdict | null {
    const id = this.parts.answers.lastSpokenTurnId;
    const reference = id && T.echoMatchMinScore > 0 ? this.parts.options.stages.replyAudio?.(id) : null;
    if (!reference) return null;
    const speechEnd = audio.length - Math.round((silenceMs / 1000) * 16_000);
    return replyEchoVerdict(audio, speechEnd, reference, T.echoMatchMinScore, T.echoMatchOverrunMs);
  }

  /** Before any reply audio was heard: the user resumed. Merge both halves, or start over with the new speech. */
  beforeAudio(active: ActiveTurn, now: number, frame: MicFrame, level: number): void {
    const { speech } = this.parts;
    if (active.saved) active.gap.push(frame.pcm);
    const event = speech.tracker.onFrame(now, frame.pcm, frame.prob);
    if (active.pendingResume) return this.confirmResume(active, now, active.pendingResume);
    if (event.kind !== 'onset') return;
    if (level < T.resumeMinRms) return speech.reset();
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
    return (this.parts.options.stages.replyAudio?.(active.turn.id, { fromSeconds: 0, toSeconds: 0.05 }) ?? null) !== null;
  }

  /**
   * Speech that began while the reply's audio was queued and not reported started: after `resumeGraceMs` without a
   * start, it is the user resuming if it is still speech enough for a turn, and nothing if it was not.
   */
  private confirmResume(active: ActiveTurn, now: number, pending: NonNullable<ActiveTurn['pendingResume']>): void {
    if (now - pending.heardAt < T.resumeGraceMs) return;
    active.pendingResume = undefined;
    if (this.parts.speech.tracker.voicedFrames < T.minVoicedFrames) return this.parts.speech.reset();
    this.resume(active, pending.heardAt, pending.onsetAt);
  }

  /** `heardAt`: when the resumption was heard (the merge window's clock); `onsetAt`: where its speech began. */
  private resume(active: ActiveTurn, heardAt: number, onsetAt: number): void {
    const { speech, turns } = this.parts;
    const { turn, saved } = active;
    if (saved && speech.mergesLeft > 0 && heardAt - active.endpointAt <= T.mergeWindowMs) {
      speech.mergesLeft--;
      turn.stage('merge', { afterEndpointMs: heardAt - active.endpointAt });
      turns.end('resumed', active);
      speech.mergedFrom = turn.id;
      const frames = saved.frames.concat(active.gap);
      speech.tracker.adopt(frames, saved.speechStart, saved.voiced + speech.tracker.voicedFrames);
    } else {
      turns.end('resumed', active);
      speech.mergedFrom = null;
      turns.stageOf(turns.upcomingId(), 'speech-start', { beforeAudio: true }, onsetAt);
    }
    if (active.historyIndex !== null) this.parts.answers.history.splice(active.historyIndex, 1);
    turns.setState('listening');
  }

  duringPlayback(active: ActiveTurn, now: number, frame: MicFrame, level: number): void {
    const { speech, detector, timing } = this.parts;
    speech.tracker.observe(frame.pcm);
    // The echo path learns only while the reply plays: then the microphone hears the echo and (until a barge) nobody
    // else. Frames from the rest of the conversation would correlate the user's turns with the assistant's.
    const { decision, echoLevel, track } = detector.judge(now, frame, level, timing);
    if (decision.kind === 'duck') {
      active.turn.stage('barge-tentative', { onsetMs: now - decision.onsetAt, lagMs: timing.lagMs, ...(track ?? {}) });
      return this.parts.turns.hold(active);
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
    const sinceOnset = Math.round((this.parts.options.clock.now() - onsetAt) / FRAME_MS);
    const heard = this.parts.speech.tracker.recent(sinceOnset + Math.round(T.preRollMs / FRAME_MS));
    const burst = heard.subarray(Math.max(0, heard.length - sinceOnset * FRAME_SAMPLES));
    if (this.burstIsEcho(active, burst)) return Promise.resolve('own-echo');
    const transcribe = (pcm: Float32Array) => this.parts.options.stages.transcribe(pcm, active.turn.signal);
    return readBurstWords(heard, transcribe, active.reply?.spoken);
  }

  /** The burst (from its onset: the pre-roll holds the echo also when the user speaks) matched against the reply. */
  private burstIsEcho(active: ActiveTurn, burst: Float32Array): boolean {
    const { stages, clock } = this.parts.options;
    if (active.firstAudioAt === undefined || !stages.replyAudio) return false;
    const sinceFirstAudio = clock.now() - active.firstAudioAt;
    const range = burstReferenceRange(sinceFirstAudio, burst.length / VAD_SAMPLE_RATE);
    const match = burstEcho(burst, stages.replyAudio(active.turn.id, range));
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
      if (this.parts.turns.active !== active || active.turn.signal.aborted || verdict !== 'interrupt') return;
      this.bargeIn(active, onsetAt, this.parts.options.clock.now(), 0, true);
    });
  }

  /** A short burst over the reply: a backchannel lets the reply go on, words that want the floor interrupt it. */
  private checkBurst(active: ActiveTurn, onsetAt: number, voicedFrames: number): void {
    void this.readBurst(active, onsetAt).then((verdict) => {
      const { turns, detector, options } = this.parts;
      if (turns.active !== active || active.turn.signal.aborted) return;
      if (verdict === 'interrupt') return this.bargeIn(active, onsetAt, options.clock.now(), 0, true);
      detector.released(verdict === 'own-echo');
      // Newer speech over the reply keeps it lowered until that is decided.
      if (detector.deciding) return;
      active.turn.stage('barge-released', { voicedFrames, ...this.echoScoreOf(active) });
      turns.resume(active);
    });
  }

  /** The last burst's match against the reply, for a mark (and forgotten: the next burst is matched afresh). */
  private echoScoreOf(active: ActiveTurn): { echoScore?: number } {
    const score = active.burstEchoScore;
    active.burstEchoScore = undefined;
    return score === undefined ? {} : { echoScore: score };
  }

  private bargeIn(active: ActiveTurn, onsetAt: number, now: number, level: number, byWords: boolean): void {
    const { speech, detector, turns, timing } = this.parts;
    const { turn } = active;
    speech.onsetAfterAudibleMs = Infinity; // the user spoke over the reply: what follows is theirs
    // The speech began at its onset on whichever track heard it first: the other measured the voice since, not echo.
    detector.interrupted(Math.round((now - onsetAt) / FRAME_MS) + 1);
    turn.stage('barge-onset', {}, onsetAt);
    turn.stage('barge-in', { latencyMs: now - onsetAt, byWords: byWords ? 1 : 0, ...this.echoScoreOf(active) });
    turns.end('barge-in', active);
    this.parts.answers.cut(active);
    // The new utterance starts with pre-roll before the onset (the first syllable rose before the VAD did).
    const runFrames = Math.round((now - onsetAt) / FRAME_MS);
    speech.tracker.startUtterance(onsetAt, runFrames + Math.round(T.bargePreRollMs / FRAME_MS), runFrames);
    speech.mergesLeft = 1;
    const trace = detector.bargeTrace(now, timing, level);
    turns.stageOf(turns.upcomingId(), 'speech-start', trace, onsetAt);
    turns.setState('listening');
  }
}
