/**
 * Microphone capture in the offscreen document: 16 kHz mono frames of 512 samples (32 ms) from an AudioWorklet.
 * The capture context is never suspended while listening (a MediaStream source can stay silent after resume);
 * stopping closes the context and the tracks so the browser's mic indicator goes off.
 */
export interface MicFrame {
  samples: Float32Array;
  rms: number;
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
      this.stream = await navigator.mediaDevices.getUserMedia({
        audio: { channelCount: 1, echoCancellation: true, noiseSuppression: false, autoGainControl: false },
      });
      const context = new AudioContext({ sampleRate: MIC_SAMPLE_RATE, latencyHint: 'interactive' });
      await context.audioWorklet.addModule(this.workletUrl);
      const source = context.createMediaStreamSource(this.stream);
      const framer = new AudioWorkletNode(context, 'mic-framer', { numberOfInputs: 1, numberOfOutputs: 1, channelCount: 1 });
      const sink = context.createGain();
      sink.gain.value = 0; // the worklet must be pulled by the graph, but the mic must never reach the speakers
      source.connect(framer).connect(sink).connect(context.destination);
      framer.port.onmessage = (event: MessageEvent<{ frame: Float32Array; rms: number; time: number }>) => {
        // The worklet stamps context time; its distance from the context's current time maps it onto performance.now().
        const capturedAt = performance.now() - Math.max(0, context.currentTime - event.data.time) * 1000;
        const frame: MicFrame = { samples: event.data.frame, rms: event.data.rms, time: event.data.time, capturedAt };
        for (const listener of this.listeners) listener(frame);
      };
      if (context.state !== 'running') await context.resume();
      this.context = context;
      this.lastError = undefined;
      const stream = this.stream;
      for (const track of stream.getAudioTracks()) track.addEventListener('ended', () => void this.lost(stream), { once: true });
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
    this.stream = null;
  }
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
