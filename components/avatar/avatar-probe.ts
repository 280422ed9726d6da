/**
 * Frame-by-frame measurements of the running avatar, for the e2e tests and the frame-time bench: how long each drawn
 * frame took, how open the rendered mouth is, and how loud the audio leaving TalkingHead's worklet is right now.
 * Nothing is measured until `start()`; the controller installs its frame hook only then, so users pay nothing.
 */
import { mouthOpenness, type MorphMesh } from './mouth-morphs';

export interface AvatarFrame {
  /** performance.now() when the frame started. */
  at: number;
  /** Main-thread time TalkingHead's animate() took for this frame (update, morphs, render submission). */
  frameMs: number;
  /** Sum of the rendered mouth morph influences (visemes except silence, jawOpen, mouthOpen); 0 = closed/at rest. */
  mouth: number;
  /** RMS of the newest ~10 ms at the analyser after the playback worklet (the audio about to reach the speakers). */
  audible: number;
  /** The controller believes audio is playing. */
  speaking: boolean;
  /** The speech gain after the analyser (1: full volume; lower while speech over the reply ducks it). */
  gain: number;
  /** TalkingHead's utterance clock (ms since the stream's audio started), or -1 between utterances. */
  clockMs: number;
  /** The AudioContext's clock (ms): it stands still while the context renders nothing (a held reply). */
  audioMs: number;
}

export interface AvatarProbeSnapshot {
  frames: AvatarFrame[];
  /**
   * Controller events with their performance.now() times: interrupt, timebase (a new utterance clock), started, ended,
   * hold and release (speech over the reply held it; components/avatar/speech-hold.ts).
   * `audioMs`: the AudioContext's clock at the same moment (ms), the clock the player counts played audio on.
   */
  events: ProbeEvent[];
  /** AudioContext latency estimates (s): what the analyser sees reaches the ears this much later. */
  baseLatency: number;
  outputLatency: number;
  /** The playback context's rate and whether its worklet is loaded (components/avatar/stream-start.ts readies both). */
  stream?: { sampleRate: number; workletLoaded: boolean };
}

export type AvatarProbeEvent = 'interrupt' | 'timebase' | 'started' | 'ended' | 'hold' | 'release';
export interface ProbeEvent {
  name: AvatarProbeEvent;
  at: number;
  audioMs?: number;
}

export function rms(buf: Float32Array): number {
  let s = 0;
  for (const x of buf) s += x * x;
  return buf.length ? Math.sqrt(s / buf.length) : 0;
}

/** A bounded log of frames and controller events (the newest `capacity` of each). */
export class AvatarProbe {
  private frames: AvatarFrame[] = [];
  private events: ProbeEvent[] = [];

  constructor(
    private readonly latency: () => Pick<AvatarProbeSnapshot, 'baseLatency' | 'outputLatency' | 'stream'>,
    private readonly capacity = 6000,
    /** The audio clock in seconds, when there is one. */
    private readonly audioNowS: () => number | undefined = () => undefined,
  ) {}

  record(frame: AvatarFrame): void {
    this.frames.push(frame);
    if (this.frames.length > this.capacity) this.frames.splice(0, this.frames.length - this.capacity);
  }

  mark(name: AvatarProbeEvent, at = performance.now()): void {
    const audioS = this.audioNowS();
    this.events.push(audioS === undefined ? { name, at } : { name, at, audioMs: audioS * 1000 });
    if (this.events.length > this.capacity) this.events.shift();
  }

  clear(): void {
    this.frames = [];
    this.events = [];
  }

  snapshot(): AvatarProbeSnapshot {
    return { frames: this.frames.slice(), events: this.events.slice(), ...this.latency() };
  }
}

/** What the <Avatar> container exposes to tests and benches (`element.sidetalkAvatar`). */
export interface AvatarProbeHost {
  /** Starts measuring (idempotent) and returns the probe. */
  probe(): AvatarProbe;
}

/** The TalkingHead members the probe reads. */
export interface ProbedHead {
  animClock: number;
  animate: (t: number) => void;
  morphs?: MorphMesh[];
  streamAudioStartTime: number | null;
  audioCtx?: AudioContext;
  workletLoaded?: boolean;
  audioAnalyzerNode?: AnalyserNode;
  audioSpeechGainNode?: GainNode;
}

/**
 * Hooks a probe into TalkingHead's frame loop. TalkingHead schedules `this.animate` by property lookup on every frame,
 * so wrapping the property times exactly the frames it draws; throttled (skipped) frames leave its clock alone.
 */
export function attachAvatarProbe(head: ProbedHead, isPlaying: () => boolean): AvatarProbe {
  const probe = new AvatarProbe(
    () => ({
      baseLatency: head.audioCtx?.baseLatency ?? 0,
      outputLatency: head.audioCtx?.outputLatency ?? 0,
      stream: { sampleRate: head.audioCtx?.sampleRate ?? 0, workletLoaded: head.workletLoaded === true },
    }),
    6000,
    () => head.audioCtx?.currentTime,
  );
  const original = head.animate;
  let buf = new Float32Array(256);
  head.animate = (t: number) => {
    const clock = head.animClock;
    const t0 = performance.now();
    original(t);
    if (head.animClock === clock) return;
    const frameMs = performance.now() - t0;
    // Looked up every frame: TalkingHead rebuilds its audio graph when the stream's sample rate changes.
    const analyser = head.audioAnalyzerNode;
    let audible = 0;
    if (analyser) {
      // The analyser returns its newest fftSize samples oldest first; the last 256 (~10 ms at 24 kHz) are "now".
      if (buf.length !== analyser.fftSize) buf = new Float32Array(analyser.fftSize);
      analyser.getFloatTimeDomainData(buf);
      audible = rms(buf.subarray(Math.max(0, buf.length - 256)));
    }
    const clockMs = head.streamAudioStartTime === null ? -1 : head.animClock - head.streamAudioStartTime;
    const gain = head.audioSpeechGainNode?.gain.value ?? 1;
    const audioMs = (head.audioCtx?.currentTime ?? 0) * 1000;
    probe.record({
      at: t0,
      frameMs,
      mouth: mouthOpenness(head.morphs ?? []),
      audible,
      speaking: isPlaying(),
      clockMs,
      gain,
      audioMs,
    });
  };
  return probe;
}
