/**
 * The pipeline bench's Node stand-ins for what is DOM-bound in the offscreen document: the microphone (a WAV played
 * into 32 ms frames at real time on the wall clock, each frame stamped with when its last sample would have been
 * captured, so a feed that falls behind is seen as the product sees it) and the side panel's player (the conversation
 * simulator's player, tests/fixtures/audio/sim-player.ts, fed the reply's PCM at 16 kHz and reporting playback as the
 * panel does). Each turn's first PCM handed to the player is stamped: the moment its first audio is ready to play.
 */
import { FRAME_MS, FRAME_SAMPLES, rms } from '../../core/engine/audio-frames';
import type { PlaybackEvent } from '../../core/engine/types';
import type { AudioSink, AudioSinkChunk } from '../../core/protocol';
import { engineTunables } from '../../core/tunables';
import type { MicFrame, MicFrameListener } from '../../models/audio/mic-capture';
import { Player } from '../../tests/fixtures/audio/sim-player';
import { resampleTo16k } from '../../core/engine/reply-audio';

/** The side panel's player as the engine hears from it; `firstAudio` holds each turn's first PCM on `now()`. */
export class NodeAudioSink implements AudioSink {
  private readonly player = new Player();
  readonly firstAudio = new Map<string, number>();
  readonly ended = new Set<string>();

  constructor(private readonly now: () => number) {}

  chunk(turnId: string, chunk: AudioSinkChunk): void {
    if (!this.firstAudio.has(turnId)) this.firstAudio.set(turnId, this.now());
    this.player.enqueue(resampleTo16k(chunk.samples, chunk.sampleRate), turnId);
  }

  /** How often the microphone feed fell behind real time (mic-feed.ts's watch). */
  fellBehind = 0;

  feedBehind(behind: boolean): void {
    if (behind) this.fellBehind += 1;
  }

  end(turnId: string): void {
    this.ended.add(turnId);
  }

  stop(turnId: string): void {
    this.player.stop(turnId);
  }

  pause(turnId: string, paused: boolean): void {
    this.player.pause(turnId, paused, Math.round(engineTunables.bargeHoldMaxMs / FRAME_MS));
  }

  /** One frame of playback: the events the panel would send for it. */
  step(): PlaybackEvent[] {
    return this.player.step().events;
  }
}

/** The microphone: `samples` (16 kHz) in frames at real time from `start()`; `onTick` runs before each frame. */
export class WavMic {
  private readonly listeners = new Set<MicFrameListener>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  /** Frames delivered, and how late the latest was against its capture time (ms). */
  frames = 0;
  maxLateMs = 0;

  constructor(
    private readonly samples: Float32Array,
    private readonly onTick: (frame: number, capturedAt: number) => void,
  ) {}

  onFrame(listener: MicFrameListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves when the last frame was delivered. */
  play(): Promise<void> {
    const total = Math.floor(this.samples.length / FRAME_SAMPLES);
    const start = performance.now();
    return new Promise((resolve) => {
      const next = () => {
        // Every frame whose capture time has passed goes out now (a feed that fell behind catches up in a burst).
        while (this.frames < total && start + (this.frames + 1) * FRAME_MS <= performance.now()) this.deliver(start);
        if (this.frames >= total) return resolve();
        this.timer = setTimeout(next, Math.max(0, start + (this.frames + 1) * FRAME_MS - performance.now()));
      };
      next();
    });
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
  }

  private deliver(start: number): void {
    const i = this.frames++;
    const capturedAt = start + (i + 1) * FRAME_MS;
    this.maxLateMs = Math.max(this.maxLateMs, performance.now() - capturedAt);
    this.onTick(i, capturedAt);
    const samples = this.samples.slice(i * FRAME_SAMPLES, (i + 1) * FRAME_SAMPLES);
    const frame: MicFrame = { samples, rms: rms(samples), time: capturedAt / 1000, capturedAt };
    for (const l of this.listeners) l(frame);
  }
}

/**
 * Cache Storage as the model worker finds it with nothing downloaded: every look-up misses and nothing is kept, so
 * each file comes over HTTP from the local hub (models/pinned-hub.ts and transformers.js read the weights cache
 * first; Node has none).
 */
export function installEmptyCaches(): void {
  const g = globalThis as { caches?: unknown };
  g.caches ??= {
    open: async () => ({ match: async () => undefined, put: async () => undefined }),
    match: async () => undefined,
  };
}

/**
 * One retry for a request the local hub's server reset: while a model's session is created the event loop can stay
 * blocked past the server's keep-alive timeout, and Node's fetch then reuses the socket the server has closed.
 */
export function installFetchRetry(): void {
  const g = globalThis as { fetch: typeof fetch; __sidetalkFetchRetry?: boolean };
  if (g.__sidetalkFetchRetry) return;
  g.__sidetalkFetchRetry = true;
  const inner = g.fetch.bind(globalThis);
  g.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    try {
      return await inner(input, init);
    } catch (error) {
      if ((error as { cause?: { code?: string } }).cause?.code !== 'ECONNRESET') throw error;
      return inner(input, init);
    }
  }) as typeof fetch;
}

/**
 * Every model run first lets the event loop turn once. The product runs the models in two workers, off the thread that
 * feeds the microphone; here they share it, and on WASM a loop of runs (a sentence of speech, a reply's tokens)
 * settles each run as a microtask and would hold the microphone's timers until it ends.
 */
export function yieldBeforeRuns(InferenceSession: { prototype: object }): void {
  const proto = InferenceSession.prototype as { run: (...args: unknown[]) => Promise<unknown>; __yields?: true };
  if (proto.__yields) return;
  const run = proto.run;
  proto.run = async function (this: unknown, ...args: unknown[]) {
    await new Promise((resolve) => setImmediate(resolve));
    return run.apply(this, args);
  };
  proto.__yields = true;
}
