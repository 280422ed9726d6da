/**
 * Webcam capture in the offscreen document (it has the USER_MEDIA reason; side panel and popup cannot prompt). Frames
 * are grabbed on demand, never continuously: the caller (vision-loop.ts) asks only when the scheduler wants one.
 * stop() stops every track at once, so the camera light goes off immediately. An unplugged camera ends its track:
 * that becomes the typed error state 'ended' and everything is released. No frame is stored or sent anywhere; the
 * only thing leaving is a small preview JPEG to the side panel on the same device (frame-channel.ts).
 */
import type { RgbaFrame } from './detector';

export type CameraErrorCode = 'permission-denied' | 'not-found' | 'in-use' | 'ended' | 'unknown';

export type CameraState =
  | { kind: 'off' }
  | { kind: 'starting' }
  | { kind: 'on'; width: number; height: number }
  | { kind: 'error'; code: CameraErrorCode; message: string };

/** The DOM pieces capture needs, injectable so tests run in Node with fakes. */
export interface CameraDeps {
  getUserMedia(constraints: MediaStreamConstraints): Promise<MediaStream>;
  createVideo(): HTMLVideoElement;
  createCanvas(width: number, height: number): OffscreenCanvas;
  now(): number;
}

export interface GrabbedFrame {
  frame: RgbaFrame;
  capturedAt: number;
  /** Encodes a downscaled JPEG of exactly this frame for the preview (only called when a preview is wanted). */
  jpeg(maxSide: number, quality: number): Promise<Blob>;
}

export function cameraErrorCode(error: unknown): CameraErrorCode {
  const name = (error as { name?: string } | null)?.name;
  if (name === 'NotAllowedError' || name === 'SecurityError') return 'permission-denied';
  if (name === 'NotFoundError' || name === 'OverconstrainedError') return 'not-found';
  if (name === 'NotReadableError' || name === 'AbortError') return 'in-use';
  return 'unknown';
}

export function defaultCameraDeps(): CameraDeps {
  return {
    getUserMedia: (c) => navigator.mediaDevices.getUserMedia(c),
    createVideo: () => document.createElement('video'),
    createCanvas: (w, h) => new OffscreenCanvas(w, h),
    now: () => performance.now(),
  };
}

/** Scales (w, h) so the longer side is at most maxSide (never up). */
export function fitWithin(width: number, height: number, maxSide: number): { width: number; height: number } {
  const scale = Math.min(1, maxSide / Math.max(width, height));
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

export class CameraCapture {
  private stream: MediaStream | null = null;
  private video: HTMLVideoElement | null = null;
  private stateValue: CameraState = { kind: 'off' };
  /** Bumped by stop() so a start() that resolves after stop() releases its stream instead of keeping it. */
  private generation = 0;

  constructor(
    private readonly onState: (state: CameraState) => void,
    private readonly deps: CameraDeps = defaultCameraDeps(),
  ) {}

  get state(): CameraState {
    return this.stateValue;
  }

  private set(state: CameraState): void {
    this.stateValue = state;
    this.onState(state);
  }

  async start(): Promise<void> {
    if (this.stream) return;
    const generation = ++this.generation;
    this.set({ kind: 'starting' });
    let stream: MediaStream;
    try {
      // A low resolution is enough for a 640×640 detector and keeps the camera's USB bandwidth and power low.
      stream = await this.deps.getUserMedia({
        video: { width: { ideal: 640 }, height: { ideal: 480 }, frameRate: { ideal: 15 } },
        audio: false,
      });
    } catch (error) {
      if (generation === this.generation)
        this.set({ kind: 'error', code: cameraErrorCode(error), message: String((error as Error)?.message ?? error) });
      return;
    }
    if (generation !== this.generation) {
      for (const track of stream.getTracks()) track.stop();
      return;
    }
    this.stream = stream;
    for (const track of stream.getVideoTracks()) {
      track.addEventListener('ended', () => this.fail('ended', 'The camera was disconnected.'));
    }
    const video = this.deps.createVideo();
    video.muted = true;
    video.playsInline = true;
    video.srcObject = stream;
    this.video = video;
    try {
      await video.play();
    } catch (error) {
      this.fail('unknown', `camera video did not start: ${String((error as Error)?.message ?? error)}`);
      return;
    }
    if (generation !== this.generation) return;
    this.set({ kind: 'on', width: video.videoWidth, height: video.videoHeight });
  }

  /** The current picture, downscaled so its longer side is at most maxSide; null when not on or no picture yet. */
  grab(maxSide: number): GrabbedFrame | null {
    const video = this.video;
    if (this.stateValue.kind !== 'on' || !video || video.videoWidth === 0 || video.videoHeight === 0) return null;
    const size = fitWithin(video.videoWidth, video.videoHeight, maxSide);
    const canvas = this.deps.createCanvas(size.width, size.height);
    const ctx = canvas.getContext('2d');
    if (!ctx) return null;
    ctx.drawImage(video, 0, 0, size.width, size.height);
    const capturedAt = this.deps.now();
    const pixels = ctx.getImageData(0, 0, size.width, size.height);
    return {
      frame: { data: pixels.data, width: size.width, height: size.height },
      capturedAt,
      jpeg: async (previewMaxSide, quality) => {
        const p = fitWithin(size.width, size.height, previewMaxSide);
        const small = this.deps.createCanvas(p.width, p.height);
        small.getContext('2d')?.drawImage(canvas, 0, 0, p.width, p.height);
        return small.convertToBlob({ type: 'image/jpeg', quality });
      },
    };
  }

  private release(): void {
    this.generation += 1;
    for (const track of this.stream?.getTracks() ?? []) track.stop();
    this.stream = null;
    if (this.video) {
      this.video.pause();
      this.video.srcObject = null;
    }
    this.video = null;
  }

  private fail(code: CameraErrorCode, message: string): void {
    if (!this.stream && this.stateValue.kind !== 'starting') return;
    this.release();
    this.set({ kind: 'error', code, message });
  }

  /** Stops every track now (camera light off). Safe to call at any time, also during start(). */
  stop(): void {
    const wasActive = this.stream !== null || this.stateValue.kind === 'starting';
    this.release();
    if (wasActive || this.stateValue.kind !== 'off') this.set({ kind: 'off' });
  }
}
