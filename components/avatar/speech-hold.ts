/**
 * Holding a reply while the engine decides whether speech over it is an interruption (docs/echo.md, "Holding the
 * reply"). The reply's AudioContext is suspended, so the audio stops where it is and nothing of it is skipped: a
 * backchannel lets it go on from the same sample, an interruption stops it with the words heard so far counted on the
 * context's clock (which stood still while held). The mouth must wait with the voice: the lip shapes already
 * scheduled are taken off TalkingHead's animation queue and put back, later by the time held, on release.
 */

/** One of TalkingHead's animation items (the fields used here). */
export interface TimedAnim {
  template: { name: string };
  /** Times on TalkingHead's animation clock (ms). */
  ts: number[];
}

/** The TalkingHead internals a hold moves. */
export interface HoldableHead {
  animQueue: TimedAnim[];
  animClock: number;
  /** rAF timestamp of the last drawn frame (animClock's value at that moment). */
  animTimeLast: number;
  /** Animation-clock time at which the utterance's audio started, or null. */
  streamAudioStartTime: number | null;
}

/**
 * After the fade, the held context runs this long before it is suspended (ms). A context at another rate than the
 * device (the reply's 24 kHz) leaves the last few milliseconds it rendered in Chrome's output path, and they play when
 * it runs again: suspended at once, that was the reply at full level, 4–5 ms of it heard after the cut. Rendered after
 * the fade, they are silence (docs/echo.md, "Holding the reply").
 */
export const SUSPEND_AFTER_FADE_MS = 30;
/** After a cut while held, the context resumes muted this long (s), so nothing it still had is heard. */
const CUT_MUTE_S = 0.05;
/** Time constant of a gain change back to full volume (s): no click, and well within one microphone frame. */
export const GAIN_TIME_CONSTANT_S = 0.01;
/** Fade time constant when a reply is held or let go (s): gone before the context stops, no click. */
export const HOLD_FADE_S = 0.003;

/** Items that belong to the speech's time line; the rest (moods, gestures, blinks) keeps its own time. */
const SPEECH_ANIMS = new Set(['viseme', 'subtitles']);

/** TalkingHead's animation clock now: it advances on drawn frames, so add the time since the last one. */
export function animNow(head: HoldableHead, nowMs: number): number {
  return head.animClock + Math.max(0, nowMs - head.animTimeLast);
}

export class SpeechHold {
  private heldAt: number | null = null;
  private parked: TimedAnim[] = [];
  private waiting: (() => void)[] = [];

  get held(): boolean {
    return this.heldAt !== null;
  }

  /** Takes the speech's animations off the queue; `nowMs`: performance.now(). False when already held. */
  hold(head: HoldableHead, nowMs: number): boolean {
    if (this.heldAt !== null) return false;
    this.heldAt = animNow(head, nowMs);
    this.parked = head.animQueue.filter((a) => SPEECH_ANIMS.has(a.template.name));
    head.animQueue = head.animQueue.filter((a) => !SPEECH_ANIMS.has(a.template.name));
    return true;
  }

  /**
   * Puts the speech's animations back, later by the time held, and moves the utterance's start with them (so chunks
   * queued after this line up with the audio). `ranMs`: how long of the hold the audio clock still ran (the fade
   * before the context stood still). Returns the time the animations moved (ms), or null when it was not held.
   */
  release(head: HoldableHead, nowMs: number, ranMs = 0): number | null {
    if (this.heldAt === null) return null;
    const heldMs = Math.max(0, animNow(head, nowMs) - this.heldAt - ranMs);
    for (const a of this.parked) a.ts = a.ts.map((t) => t + heldMs);
    head.animQueue.push(...this.parked);
    if (head.streamAudioStartTime !== null) head.streamAudioStartTime += heldMs;
    this.clear();
    return heldMs;
  }

  /** The reply was cut while held: its parked animations are dropped with it. */
  drop(): void {
    this.clear();
  }

  /** Resolves once the reply is not held (at once when it is not). */
  whenPlaying(): Promise<void> {
    return this.heldAt === null ? Promise.resolve() : new Promise((resolve) => this.waiting.push(resolve));
  }

  private clear(): void {
    this.heldAt = null;
    this.parked = [];
    const waiting = this.waiting;
    this.waiting = [];
    for (const resolve of waiting) resolve();
  }
}

/** Moves a gain to `value` from now on, dropping whatever was scheduled on it. */
export function rampGain(ctx: BaseAudioContext, gain: AudioParam, value: number, timeConstantS = GAIN_TIME_CONSTANT_S): void {
  gain.cancelScheduledValues(ctx.currentTime);
  gain.setTargetAtTime(value, ctx.currentTime, timeConstantS);
}

/**
 * Holding an AudioContext: the gain fades, and the context stands still once the fade has reached the speakers
 * (`SUSPEND_AFTER_FADE_MS`). A release or a cut before then stops the suspend from coming.
 */
export class ContextPause {
  private timer: ReturnType<typeof setTimeout> | null = null;
  private heldAt = 0;
  private ranS = 0;

  hold(ctx: AudioContext, gain: AudioParam): void {
    this.cancel();
    rampGain(ctx, gain, 0, HOLD_FADE_S);
    this.heldAt = ctx.currentTime;
    this.ranS = 0;
    // A context that renders nothing (already suspended, or closed) has no fade to wait for and its clock stands still.
    if (ctx.state !== 'running') return;
    // By the audio clock: a timer can fire before the audio thread has rendered that far.
    const suspendOnceFaded = (): void => {
      const ranS = ctx.currentTime - this.heldAt;
      if (ranS < SUSPEND_AFTER_FADE_MS / 1000) {
        this.timer = setTimeout(suspendOnceFaded, 5);
        return;
      }
      this.timer = null;
      this.ranS = ranS;
      void ctx.suspend();
    };
    this.timer = setTimeout(suspendOnceFaded, SUSPEND_AFTER_FADE_MS);
  }

  /** Lets the context go on from where it stood; returns how long it ran after the hold began (ms). */
  release(ctx: AudioContext, gain: AudioParam): number {
    const ranS = this.timer === null ? this.ranS : ctx.currentTime - this.heldAt;
    this.cancel();
    rampGain(ctx, gain, 1, HOLD_FADE_S);
    void ctx.resume();
    return Math.max(0, ranS * 1000);
  }

  /**
   * The held reply was cut: its context runs again (the next reply needs it), muted until the player has dropped what
   * it still had, then at full volume.
   */
  cut(ctx: AudioContext, gain: AudioParam): void {
    this.cancel();
    const t = ctx.currentTime;
    gain.cancelScheduledValues(t);
    gain.setValueAtTime(0, t);
    gain.setValueAtTime(1, t + CUT_MUTE_S);
    void ctx.resume();
  }

  private cancel(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }
}

/** The parts of TalkingHead a held reply touches; the audio nodes are read on every call (streamStart rebuilds them). */
export interface HoldableTalkingHead extends HoldableHead {
  audioCtx: AudioContext;
  audioSpeechGainNode: GainNode;
}

/**
 * A hold on TalkingHead's reply: the speech gain fades, the context stands still and the shapes wait (SpeechHold);
 * `closeMouth` rests the lips, `mark` names each step for the probe.
 */
export class TalkingHeadHold {
  private readonly speech = new SpeechHold();
  private readonly context = new ContextPause();

  constructor(
    private readonly head: HoldableTalkingHead,
    private readonly closeMouth: () => void,
    private readonly mark: (name: 'hold' | 'release') => void,
  ) {}

  get held(): boolean {
    return this.speech.held;
  }

  whenPlaying(): Promise<void> {
    return this.speech.whenPlaying();
  }

  /** `playing`: audio is queued. Nothing queued (the reply drained just before the word came) is nothing to hold. */
  pause(paused: boolean, playing: boolean): void {
    const head = this.head;
    if (paused) {
      if (!playing || !this.speech.hold(head, performance.now())) return;
      this.mark('hold');
      this.context.hold(head.audioCtx, head.audioSpeechGainNode.gain);
      this.closeMouth();
    } else {
      if (!this.speech.held) return;
      const ranMs = this.context.release(head.audioCtx, head.audioSpeechGainNode.gain);
      this.speech.release(head, performance.now(), ranMs);
      this.mark('release');
    }
  }

  /** Full volume for what plays next, unless the reply is held (its release brings the volume back). */
  restoreVolume(): void {
    if (!this.speech.held) rampGain(this.head.audioCtx, this.head.audioSpeechGainNode.gain, 1);
  }

  /** The reply was cut: a held one's context runs again, muted until the cut reaches it; otherwise full volume. */
  cut(): void {
    const head = this.head;
    if (!this.speech.held) return this.restoreVolume();
    this.speech.drop();
    this.context.cut(head.audioCtx, head.audioSpeechGainNode.gain);
  }
}
