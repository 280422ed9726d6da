/**
 * Microphone capture in the offscreen document: 16 kHz mono frames of 512 samples (32 ms) from an AudioWorklet.
 * The capture context is never suspended while listening (a MediaStream source can stay silent after resume);
 * stopping closes the context and the tracks so the browser's mic indicator goes off.
 *
 * With `engine.bargeFromUnprocessed` on, two tracks of the one microphone: one
 * through Chrome's echo canceller (what speech recognition and turn-taking hear) and one unprocessed, cut into the
 * same frames. While a reply plays, Chrome's canceller can turn the user's voice down to nothing; the unprocessed track
 * keeps it, next to an echo that follows the reply's own level (docs/echo.md, "The unprocessed microphone"). Without
 * the second track (refused, or ended) frames carry no `raw`.
 */
import { engineTunables } from '../../core/tunables';

export interface MicFrame {
  samples: Float32Array;
  rms: number;
  /** The same 32 ms unprocessed, when the second track is live. */
  raw?: { samples: Float32Array; rms: number };
  /** AudioContext time of the frame end, seconds. */
  time: number;
  /** When the frame's last sample was captured, on this document's performance.now() clock (ms). */
  capturedAt: number;
}

export type MicFrameListener = (frame: MicFrame) => void;

export const MIC_SAMPLE_RATE = 16_000;

export class MicCapture {
  private context: AudioContext | null = null;
  private stream: MediaStream | null = null;
  private rawStream: MediaStream | null = null;
  /** The unprocessed track still delivers (a track that ended would feed the worklet silence). */
  private rawLive = false;
  private listeners = new Set<MicFrameListener>();
  private starting: Promise<void> | null = null;
  lastError: string | undefined;
  /** The track ended under us (access revoked, device unplugged): capture has stopped; the message says why. */
  onEnded: ((message: string) => void) | null = null;

  constructor(private readonly workletUrl: string) {}

  get capturing(): boolean {
    return this.context !== null;
  }

  get sampleRate(): number | null {
    return this.context?.sampleRate ?? null;
  }

  onFrame(listener: MicFrameListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  start(): Promise<void> {
    if (this.context) return Promise.resolve();
    this.starting ??= this.open().finally(() => {
      this.starting = null;
    });
    return this.starting;
  }

  private async open(): Promise<void> {
    try {
      // Raw signal: the VAD and the barge-in logic need the real level, not AGC-boosted audio.
      const audio = { channelCount: 1, noiseSuppression: false, autoGainControl: false };
      this.stream = await navigator.mediaDevices.getUserMedia({ audio: { ...audio, echoCancellation: true } });
      // The unprocessed track is a help for the echo handling, not a condition for listening; off unless asked for.
      this.rawStream = engineTunables.bargeFromUnprocessed
        ? await navigator.mediaDevices.getUserMedia({ audio: { ...audio, echoCancellation: false } }).catch(() => null)
        : null;
      const context = new AudioContext({ sampleRate: MIC_SAMPLE_RATE, latencyHint: 'interactive' });
      await context.audioWorklet.addModule(this.workletUrl);
      const withRaw = this.rawStream !== null;
      const framer = new AudioWorkletNode(context, 'mic-framer', {
        numberOfInputs: 1,
        numberOfOutputs: 1,
        channelCount: withRaw ? 2 : 1,
        channelCountMode: 'explicit',
        channelInterpretation: 'discrete',
        processorOptions: { withRaw },
      });
      if (this.rawStream) {
        const merger = context.createChannelMerger(2);
        context.createMediaStreamSource(this.stream).connect(merger, 0, 0);
        context.createMediaStreamSource(this.rawStream).connect(merger, 0, 1);
        merger.connect(framer);
      } else context.createMediaStreamSource(this.stream).connect(framer);
      const sink = context.createGain();
      sink.gain.value = 0; // the worklet must be pulled by the graph, but the mic must never reach the speakers
      framer.connect(sink).connect(context.destination);
      framer.port.onmessage = (event: MessageEvent<WorkletFrame>) => {
        const { data } = event;
        // The worklet stamps context time; its distance from the context's current time maps it onto performance.now().
        const capturedAt = performance.now() - Math.max(0, context.currentTime - data.time) * 1000;
        const frame: MicFrame = { samples: data.frame, rms: data.rms, time: data.time, capturedAt };
        if (data.raw && this.rawLive) frame.raw = { samples: data.raw, rms: data.rawRms ?? 0 };
        for (const listener of this.listeners) listener(frame);
      };
      if (context.state !== 'running') await context.resume();
      this.context = context;
      this.lastError = undefined;
      const stream = this.stream;
      for (const track of stream.getAudioTracks()) track.addEventListener('ended', () => void this.lost(stream), { once: true });
      const raw = this.rawStream;
      this.rawLive = raw !== null;
      for (const track of raw?.getAudioTracks() ?? []) {
        const ended = () => {
          if (raw === this.rawStream) this.rawLive = false;
        };
        track.addEventListener('ended', ended, { once: true });
      }
    } catch (err) {
      this.stopTracks();
      this.lastError = describeMediaError(err);
      throw new Error(this.lastError);
    }
  }

  async stop(): Promise<void> {
    await this.starting?.catch(() => undefined);
    const context = this.context;
    this.context = null;
    this.stopTracks();
    await context?.close().catch(() => undefined);
  }

  private async lost(stream: MediaStream): Promise<void> {
    if (this.stream !== stream) return; // an old stream we stopped ourselves
    const message = 'The microphone stopped: access was revoked or it was unplugged. Listening is off.';
    await this.stop();
    this.lastError = message;
    this.onEnded?.(message);
  }

  private stopTracks(): void {
    this.stream?.getTracks().forEach((t) => t.stop());
    this.rawStream?.getTracks().forEach((t) => t.stop());
    this.stream = null;
    this.rawStream = null;
    this.rawLive = false;
  }
}

/** What the worklet (public/worklets/mic-framer.js) posts per frame. */
interface WorkletFrame {
  frame: Float32Array;
  rms: number;
  time: number;
  raw?: Float32Array;
  rawRms?: number;
}

/** Chrome's messages tell "never asked" (dismissed) from "blocked" (denied); the UI needs to know which. */
export function describeMediaError(err: unknown): string {
  if (err instanceof DOMException) {
    if (err.name === 'NotAllowedError' && /dismissed/i.test(err.message)) return 'Microphone access has not been granted yet.';
    if (err.name === 'NotAllowedError') return 'Microphone access is blocked for Sidetalk.';
    if (err.name === 'NotFoundError') return 'No microphone was found.';
    if (err.name === 'NotReadableError') return 'The microphone is in use by another program or could not be opened.';
    return `${err.name}: ${err.message}`;
  }
  return err instanceof Error ? err.message : String(err);
}
