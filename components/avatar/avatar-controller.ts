/**
 * Owns one TalkingHead instance (the maintainer recommends reusing one; dispose is unreliable in 1.7.0) and turns
 * Sidetalk's playback model into TalkingHead's streaming API: 24 kHz Float32 PCM chunks + their text in, audio with
 * lip-sync out, and started / level / ended events back for the conversation engine.
 *
 * Audio graph rules (docs/avatar.md): streamStart({ sampleRate: 24000 }) rebuilds the
 * AudioContext once, so everything we touch is looked up on `head` every time, never cached; the stock graph plays
 * streamed audio twice (+6 dB), so the stream-gain → reverb edge is cut once per context; visemes are cumulative from
 * the first sample of the current utterance, and TalkingHead starts a new time base whenever it is not speaking.
 */
import { TalkingHead } from '@met4citizen/talkinghead/modules/talkinghead.mjs';
import type { EngineState } from '../../core/engine/types';
import { StreamingLipsync } from '../../core/lipsync/stream-lipsync';
import { sampleCurve } from '../../core/lipsync/envelope';
import { validateAvatarGlb } from '../../core/avatar/glb-check';
import { LevelReporter } from './level-reporter';
import { PlayedTap, type PlayedListener } from './played-tap';
import { governRenderShare, longTaskClock, type GovernedHead } from './render-governor';
import { lipsyncTunables } from '../../core/tunables';
import { attachAvatarProbe, type AvatarProbe, type ProbedHead } from './avatar-probe';
import { closeMouth, type MorphMesh, type TalkingHeadMouth } from './mouth-morphs';
import { TEST_HOOKS } from '../../core/build-flags';
import { PlayedAudio } from '../../core/tts/played-audio';
import { PlaybackRun } from './playback-run';
import { detectSoftwareRenderer } from './software-gl';
import { animNow, TalkingHeadHold, type HoldableTalkingHead } from './speech-hold';
import { StreamStarter, type StreamableHead } from './stream-start';
import { AvatarFrameRate } from './frame-rate';
import { showState } from './state-look';
// The same file TalkingHead loads by its own URL (the bundle emits it once, by content).
import playbackWorkletUrl from '@met4citizen/talkinghead/modules/playback-worklet.js?url';

/** The avatar mirrors the engine's state. */
export type AvatarState = EngineState;
export const PCM_SAMPLE_RATE = 24000;

/** What queuing a chunk took: whether it had to start TalkingHead's stream (the turn trace reads it). */
export interface ChunkQueued {
  streamStarted: boolean;
}

export interface AvatarEvents {
  onStarted?: () => void;
  /**
   * RMS of what is audible now, ~every animation frame while speaking; `heardAt` (performance.now() ms) is when the
   * first sound in the analyser's window reaches the speakers, when there is sound; `windowAt`, when the window as a
   * whole does (its middle), the time the level belongs to (audible-onset.ts).
   */
  onLevel?: (rms: number, heardAt?: number, windowAt?: number) => void;
  /**
   * Playback ended or was cut; `playedMs`: how much of the audio queued since the last end the player rendered by
   * then, on the AudioContext clock (core/tts/played-audio.ts).
   */
  onEnded?: (info: { interrupted: boolean; playedMs?: number }) => void;
  onError?: (message: string) => void;
  /** Each block of sound the speakers got, with when it is heard (played-tap.ts): the echo canceller's reference. */
  onPlayed?: PlayedListener;
}

export interface AvatarOptions {
  reducedMotion: boolean;
  /** Mix a loudness-driven jaw under the text visemes. */
  amplitudeJaw: boolean;
  view: 'head' | 'upper';
}

interface JawClip {
  start: number;
  curve: Float32Array;
}

/** TalkingHead internals we read (not in its public surface). */
interface HeadInternals extends HoldableTalkingHead {
  animate: (t: number) => void;
  morphs: MorphMesh[];
  isSpeaking: boolean;
}

export class AvatarController {
  readonly head: TalkingHead;
  private wired = new WeakSet<AudioContext>();
  private readonly lips = new StreamingLipsync();
  private loaded = false;
  private jaw: JawClip[] = [];
  private readonly run = new PlaybackRun();
  /** Speech over the reply holds it (docs/echo.md, "Holding the reply"). */
  private readonly hold: TalkingHeadHold;
  private readonly stream: StreamStarter;
  private readonly levels: LevelReporter | null;
  private readonly tap: PlayedTap | null;
  private interrupting = false;
  private blobUrl: string | null = null;
  private probe: AvatarProbe | null = null;
  private pending: Promise<void> = Promise.resolve();
  private generation = 0;
  /** Long-task time on this page, part of what a drawn frame costs (render-governor.ts). */
  private readonly longTasks = longTaskClock();
  /** Utterance time (TalkingHead's clock) at which the next chunk's audio will start. */
  private nextStartMs = 0;
  /** The audio handed to the worklet since the last end, on the clock of the context it went to. */
  private readonly played = new PlayedAudio();
  private playedCtx: AudioContext | null = null;
  /** WebGL drawn by the CPU: fewer pixels and frames, so the speech models keep the CPU (software-gl.ts). */
  readonly softwareRenderer: boolean;
  /** The rate the avatar draws at (speaking as soon as audio arrives); the governor may draw fewer. */
  private readonly rate: AvatarFrameRate;

  constructor(
    container: HTMLElement,
    private events: AvatarEvents,
    private opts: AvatarOptions,
  ) {
    this.softwareRenderer = detectSoftwareRenderer();
    this.rate = new AvatarFrameRate({ reducedMotion: opts.reducedMotion, softwareRenderer: this.softwareRenderer });
    this.head = new TalkingHead(container, {
      // Lip-sync modules are imported by a computed path that bundlers break; we supply visemes ourselves.
      lipsyncModules: [],
      lipsyncLang: 'en',
      cameraView: opts.view,
      cameraRotateEnable: false,
      cameraPanEnable: false,
      cameraZoomEnable: false,
      dracoEnabled: false,
      modelPixelRatio: this.softwareRenderer ? lipsyncTunables.softwarePixelRatio : 0.85,
      modelFPS: this.rate.of('speaking'),
      avatarIdleEyeContact: 0.6,
      update: (dt) => this.onFrame(dt),
    });
    this.hold = new TalkingHeadHold(
      this.head as unknown as HoldableTalkingHead,
      () => closeMouth(this.head as unknown as TalkingHeadMouth),
      (name) => this.probe?.mark(name),
    );
    this.levels = events.onLevel ? new LevelReporter(events.onLevel) : null;
    this.tap = events.onPlayed ? new PlayedTap(events.onPlayed) : null;
    this.stream = new StreamStarter(this.head as unknown as StreamableHead, playbackWorkletUrl, PCM_SAMPLE_RATE, (m) =>
      console.warn(`[sidetalk] ${m}`),
    );
    void this.stream.prepare();
    if (opts.reducedMotion) (this.head.opt as { modelMovementFactor?: number }).modelMovementFactor = 0.2;
    const now = () => performance.now();
    governRenderShare(
      this.head as unknown as GovernedHead,
      () => this.rate.current(),
      () => lipsyncTunables.renderShareMax,
      now,
      this.longTasks.blockedMs,
      () => this.reportLevel(),
    );
  }

  /** Loads an avatar from a URL or bytes, validating it first so the user sees a clear error. */
  async load(src: { url: string } | { bytes: ArrayBuffer }): Promise<void> {
    const bytes = 'bytes' in src ? src.bytes : await (await fetch(src.url)).arrayBuffer();
    const check = validateAvatarGlb(bytes);
    if (!check.ok) throw new Error(`This avatar cannot be used: ${check.errors.join(' ')}`);
    if (this.blobUrl) URL.revokeObjectURL(this.blobUrl);
    this.blobUrl = URL.createObjectURL(new Blob([bytes], { type: 'model/gltf-binary' }));
    this.loaded = false;
    await this.head.showAvatar({ url: this.blobUrl, body: 'F', lipsyncLang: 'en' });
    this.loaded = true;
  }

  /**
   * Queues one TTS chunk (24 kHz mono Float32) with the text it speaks. Chunks are handled strictly in arrival order:
   * the first one waits for the stream (and AudioContext) to start, and the next must not overtake it. An interrupt
   * drops the chunks still waiting.
   */
  speakChunk(pcm: Float32Array, text: string): Promise<ChunkQueued | void> {
    const generation = this.generation;
    // A held reply takes no new audio: it would be scheduled on a clock that moves while the audio does not.
    const run = this.pending
      .then(() => this.hold.whenPlaying())
      .then(() => (generation === this.generation ? this.playChunk(pcm, text) : undefined));
    this.pending = run.then(
      () => {},
      () => {},
    );
    return run;
  }

  private async playChunk(pcm: Float32Array, text: string): Promise<ChunkQueued> {
    this.setFps('speaking'); // lips need the full rate as soon as audio arrives
    const head = this.head;
    const streamStarted = !head.isStreaming;
    if (streamStarted) {
      await this.stream.start(
        { sampleRate: PCM_SAMPLE_RATE, lipsyncType: 'visemes', waitForAudioChunks: true },
        () => this.handleStarted(),
        () => this.handleEnded(false),
      );
    }
    this.wireOnce();
    const internals = head as unknown as HeadInternals;
    // TalkingHead resets its time base when it is not speaking at the moment audio arrives (first chunk, or after
    // it drained for > 1 s): restart our clocks in exactly the same case.
    const fresh = !internals.isSpeaking;
    if (fresh) {
      this.probe?.mark('timebase');
      this.lips.reset();
      this.jaw = [];
      this.nextStartMs = 0;
    }
    // When TTS runs slower than real time the worklet drains and plays silence until this chunk arrives, while
    // TalkingHead's clock keeps running: the chunk plays from "now", not from where the previous one ended. Shapes
    // and jaw are scheduled on that played time line, so the lips wait through the gap with the voice.
    // (A fresh utterance still shows the previous one's start time: streamAudio() clears it below.)
    const startMs = Math.max(this.nextStartMs, fresh ? 0 : this.utteranceNow(internals));
    const audioMs = this.lips.elapsedMs;
    const { track, jaw, durationMs } = this.lips.chunk(pcm, PCM_SAMPLE_RATE, text);
    // What the analyser sees reaches the ears after the output latency; the lips follow what is heard.
    const ctx = head.audioCtx;
    const heardMs = Math.min(200, ((ctx?.baseLatency ?? 0) + (ctx?.outputLatency ?? 0)) * 1000);
    const shift = startMs - audioMs + heardMs;
    this.nextStartMs = startMs + durationMs;
    if (this.opts.amplitudeJaw) this.jaw.push({ start: startMs + heardMs, curve: jaw });
    this.run.queued();
    // streamAudio transfers (detaches) the buffer it converts; hand it a copy so callers keep theirs.
    head.streamAudio({
      audio: pcm.slice(),
      visemes: track.visemes,
      vtimes: track.vtimes.map((t) => t + shift),
      vdurations: track.vdurations,
    });
    // The worklet plays it after what it holds, or from its next render quantum if it had drained.
    if (ctx && this.playedCtx !== ctx) {
      this.played.reset();
      this.playedCtx = ctx;
    }
    if (ctx) this.played.queue(ctx.currentTime, pcm.length / PCM_SAMPLE_RATE);
    return { streamStarted };
  }

  /** TalkingHead's utterance clock right now (0 before playback has started). */
  private utteranceNow(h: HeadInternals): number {
    if (h.streamAudioStartTime === null) return 0;
    return animNow(h, performance.now()) - h.streamAudioStartTime;
  }

  /** No more chunks for this reply: the stream ends when the queued audio drains. */
  endOfSpeech(): void {
    // After the chunks still waiting in the queue, and not for a reply that was interrupted meanwhile.
    const generation = this.generation;
    this.pending = this.pending.then(() => {
      if (generation === this.generation) this.head.streamNotifyEnd();
    });
  }

  /**
   * Holds the reply where it is (`paused`) or lets it go on from there: the audio context stands still, the lips wait
   * with it, chunks that arrive meanwhile wait their turn, and the engine hears a silent player.
   */
  pause(paused: boolean): void {
    this.hold.pause(paused, this.run.isPlaying);
  }

  /** Barge-in: audio and mouth stop now (one call, same frame). */
  interrupt(): void {
    const head = this.head;
    this.probe?.mark('interrupt');
    this.generation++;
    this.interrupting = true; // streamInterrupt calls onAudioEnd synchronously; report that end as an interruption
    head.streamInterrupt(); // posts 'stop' to the worklet, clears viseme animations, resets the lips
    this.interrupting = false;
    this.jaw = [];
    this.lips.interrupt();
    closeMouth(this.head as unknown as TalkingHeadMouth);
    if (this.run.isPlaying) this.handleEnded(true);
    // Full volume for the next reply; a held context runs again (the worklet takes its stop then), muted at first.
    this.hold.cut();
  }

  /**
   * The side panel shares its renderer's main thread with the offscreen document (model routing, downloads), so the
   * avatar draws only as often as the moment needs: full rate while speaking, a gentle idle otherwise.
   */
  private setFps(state: AvatarState): void {
    this.rate.setState(state);
    // TalkingHead skips a display frame when less than animFrameDur has passed; half a 60 Hz frame of slack makes
    // 30 fps land on every second vsync instead of drifting to every third (20 fps). The render governor sets it
    // again after the next drawn frame, from the rate and what frames cost.
    (this.head as unknown as { animFrameDur: number }).animFrameDur = 1000 / this.rate.current() - 8;
  }

  /** The offscreen document's microphone feed runs behind real time (docs/avatar.md, "When the microphone falls behind"). */
  feedBehind(behind: boolean): void {
    if (this.rate.setFeedBehind(behind)) this.setFps(this.rate.state);
  }

  setState(state: AvatarState): void {
    // TalkingHead's mood animations read the loaded avatar: before it (or while a new one loads) they throw.
    if (!this.loaded) return;
    this.setFps(state);
    showState(this.head, state, this.opts.reducedMotion);
  }

  setMood(mood: string): void {
    if (!this.loaded) return;
    this.head.setMood(mood);
  }

  private wireOnce(): void {
    const head = this.head;
    const ctx = head.audioCtx;
    if (this.wired.has(ctx)) return;
    // The end of the audible path (worklet → analyser → speech gain → reverb → speakers): what the speakers get.
    void this.tap?.attach(head.audioReverbNode);
    try {
      // One audible path: worklet → analyser → speech gain → reverb. The stream-gain edge duplicated the audio.
      head.audioStreamGainNode.disconnect(head.audioReverbNode);
    } catch {
      /* already disconnected */
    }
    this.wired.add(ctx);
  }

  private handleStarted(): void {
    const start = this.run.workletStarted();
    // TalkingHead took the stale start as speaking; left so, the next reply's first chunk would not start a new time base.
    if (start === 'stale') (this.head as unknown as HeadInternals).isSpeaking = false;
    if (start !== 'report') return;
    this.probe?.mark('started');
    this.events.onStarted?.();
  }

  private handleEnded(interrupted: boolean): void {
    if (!this.run.end(interrupted || this.interrupting)) return;
    this.hold.restoreVolume(); // the next reply starts at full volume
    this.probe?.mark('ended');
    const ctx = this.head.audioCtx;
    const playedMs = ctx && this.playedCtx === ctx ? this.played.playedMs(ctx.currentTime) : undefined;
    this.played.reset();
    this.events.onEnded?.({ interrupted: interrupted || this.interrupting, ...(playedMs === undefined ? {} : { playedMs }) });
  }

  /**
   * The playback level, on every animation frame of the page rather than every drawn avatar frame: the echo path
   * learns from these reports, and on a software renderer the avatar draws as few as 2–6 frames a second.
   */
  private reportLevel(): void {
    const analyser = this.head.audioAnalyzerNode;
    if (this.run.isPlaying && analyser) this.levels?.report(analyser, this.hold.held);
  }

  private onFrame(_dt: number): void {
    const head = this.head;
    if (!this.run.isPlaying) return;
    const internals = head as unknown as HeadInternals;
    const jawOpen = head.mtAvatar.jawOpen;
    if (!jawOpen || internals.streamAudioStartTime === null || !this.jaw.length) return;
    if (this.hold.held) {
      jawOpen.newvalue = 0;
      jawOpen.needsUpdate = true;
      return;
    }
    const t = internals.animClock - internals.streamAudioStartTime;
    const clip = this.jaw.find((c) => t >= c.start && t < c.start + c.curve.length * 20);
    jawOpen.newvalue = clip ? 0.3 * sampleCurve(clip.curve, t - clip.start) : 0;
    jawOpen.needsUpdate = true;
  }

  /** Starts per-frame measurement (tests, benches); see avatar-probe.ts. */
  startProbe(): AvatarProbe {
    if (!TEST_HOOKS) throw new Error('not in the release build');
    this.probe ??= attachAvatarProbe(this.head as unknown as ProbedHead, () => this.run.isPlaying);
    return this.probe;
  }

  dispose(): void {
    this.longTasks.stop();
    try {
      this.head.streamStop();
      this.head.stop();
    } catch {
      /* TalkingHead 1.7.0 dispose paths are fragile; stopping is enough when the panel closes */
    }
    if (this.blobUrl) URL.revokeObjectURL(this.blobUrl);
  }
}

/** True when this browser can create a WebGL context (TalkingHead needs one). */
export function webglAvailable(): boolean {
  try {
    const c = document.createElement('canvas');
    return !!(c.getContext('webgl2') ?? c.getContext('webgl'));
  } catch {
    return false;
  }
}
