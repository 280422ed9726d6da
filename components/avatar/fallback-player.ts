/**
 * Audio-only playback for when WebGL (and so TalkingHead) is unavailable: the assistant still talks and the engine
 * still gets started / level / ended. Chunks are scheduled back to back on one 24 kHz AudioContext.
 */
import type { AvatarEvents } from './avatar-controller';
import { LevelReporter } from './level-reporter';
import { PlayedTap } from './played-tap';
import { PlayedAudio } from '../../core/tts/played-audio';
import { ContextPause, HOLD_FADE_S, rampGain } from './speech-hold';

export class FallbackPlayer {
  private ctx: AudioContext | null = null;
  private analyser: AnalyserNode | null = null;
  private gain: GainNode | null = null;
  private sources = new Set<AudioBufferSourceNode>();
  private nextAt = 0;
  private raf = 0;
  /** The audio scheduled since the last end, to report how much of it played (core/tts/played-audio.ts). */
  private readonly played = new PlayedAudio();
  /** Speech over the reply holds it: the context stands still (docs/echo.md, "Holding the reply"). */
  private held = false;
  private readonly pauser = new ContextPause();

  constructor(
    private events: AvatarEvents,
    private sampleRate = 24000,
  ) {}

  async speakChunk(pcm: Float32Array): Promise<void> {
    if (!this.ctx) {
      this.ctx = new AudioContext({ sampleRate: this.sampleRate });
      this.analyser = this.ctx.createAnalyser();
      // After the analyser: the level the engine sees stays the reply's own, at any gain.
      this.gain = this.ctx.createGain();
      this.analyser.connect(this.gain).connect(this.ctx.destination);
      // What the speakers get, after the gain: the echo canceller's reference.
      if (this.events.onPlayed) void new PlayedTap(this.events.onPlayed).attach(this.gain);
    }
    const ctx = this.ctx;
    if (ctx.state === 'suspended' && !this.held) await ctx.resume();
    const buf = ctx.createBuffer(1, pcm.length, this.sampleRate);
    buf.copyToChannel(new Float32Array(pcm), 0);
    const src = ctx.createBufferSource();
    src.buffer = buf;
    src.connect(this.analyser!);
    const first = this.sources.size === 0;
    // Full volume before the chunk starts (20 ms from now), after a cut that left the gain down.
    if (first && !this.held) this.setGain(1, HOLD_FADE_S);
    this.nextAt = Math.max(this.nextAt, ctx.currentTime + 0.02);
    src.start(this.nextAt);
    this.played.queue(this.nextAt, buf.duration);
    this.nextAt += buf.duration;
    this.sources.add(src);
    src.onended = () => {
      this.sources.delete(src);
      if (this.sources.size === 0) this.finish(false);
    };
    if (first) {
      this.events.onStarted?.();
      this.pollLevel();
    }
  }

  private setGain(gain: number, timeConstantS?: number): void {
    if (this.ctx && this.gain) rampGain(this.ctx, this.gain.gain, gain, timeConstantS);
  }

  /** Holds the reply where it is (`paused`), or lets it go on from there: chunks are scheduled on the context's clock. */
  pause(paused: boolean): void {
    // Nothing scheduled (the reply drained just before the word came): nothing to hold.
    if (paused === this.held || !this.ctx || (paused && this.sources.size === 0)) return;
    this.held = paused;
    if (!this.gain) return;
    if (paused) this.pauser.hold(this.ctx, this.gain.gain);
    else this.pauser.release(this.ctx, this.gain.gain);
  }

  /** Nothing to flush: each chunk is already scheduled; ended fires when the last one finishes. */
  endOfSpeech(): void {}

  interrupt(): void {
    const had = this.sources.size > 0;
    for (const s of this.sources) {
      s.onended = null;
      try {
        s.stop();
      } catch {
        /* not started yet */
      }
    }
    this.sources.clear();
    if (had) this.finish(true);
    if (this.held && this.ctx && this.gain) {
      this.held = false;
      this.pauser.cut(this.ctx, this.gain.gain);
    }
  }

  private finish(interrupted: boolean): void {
    cancelAnimationFrame(this.raf);
    this.nextAt = 0;
    const playedMs = this.ctx ? this.played.playedMs(this.ctx.currentTime) : undefined;
    this.played.reset();
    this.events.onEnded?.({ interrupted, ...(playedMs === undefined ? {} : { playedMs }) });
  }

  private pollLevel(): void {
    const a = this.analyser;
    if (!a || !this.events.onLevel) return;
    const levels = new LevelReporter(this.events.onLevel);
    const tick = (): void => {
      if (this.sources.size === 0) return;
      levels.report(a, this.held);
      this.raf = requestAnimationFrame(tick);
    };
    this.raf = requestAnimationFrame(tick);
  }

  dispose(): void {
    this.interrupt();
    void this.ctx?.close();
    this.ctx = null;
  }
}
