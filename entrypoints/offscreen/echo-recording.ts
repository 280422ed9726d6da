import type { ReferenceTimeline } from '../../core/echo/reference-timeline';
import type { MicFrame } from '../../models/audio/mic-capture';

const RATE = 16_000;
const FRAME_MS = 32;

/** Float32 samples as base64 (runtime messaging is JSON: a number per sample would be ten times the size). */
export function float32ToBase64(x: Float32Array): string {
  const bytes = new Uint8Array(x.buffer, x.byteOffset, x.byteLength);
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

/**
 * Test builds (`debug/echo-recording`): the microphone as the engine got it (Chrome's canceller in front), frame by
 * frame, beside what the speakers played over the same samples (the reference), so the echo canceller can be run on
 * real browser audio offline (bench/echo/room-offline.ts). A frame's reference is read half a second after the frame:
 * the panel reports a block when it renders it, but a busy panel posts late, and a block read before it arrived would
 * be recorded as silence.
 */
const READ_AFTER_MS = 500;

export class EchoRecording {
  private frames: { at: number; mic: Float32Array; reference: Float32Array | null }[] = [];
  /** Frames before this index have their reference. */
  private read = 0;

  constructor(
    private readonly reference: ReferenceTimeline,
    private readonly keepSeconds = 30,
  ) {}

  /** A microphone frame: its first sample was captured 32 ms before its last (`capturedAt`). */
  frame(frame: Pick<MicFrame, 'samples' | 'capturedAt'>): void {
    const at = frame.capturedAt - FRAME_MS;
    this.frames.push({ at, mic: frame.samples.slice(), reference: null });
    this.readReferences(at - READ_AFTER_MS);
    const keep = Math.ceil((this.keepSeconds * 1000) / FRAME_MS);
    if (this.frames.length > keep) {
      const drop = this.frames.length - keep;
      this.frames.splice(0, drop);
      this.read = Math.max(0, this.read - drop);
    }
  }

  /** Reads the reference of every frame that starts before `until` and has none yet. */
  private readReferences(until: number): void {
    for (; this.read < this.frames.length; this.read++) {
      const f = this.frames[this.read]!;
      if (f.at >= until) break;
      f.reference = this.reference.read(f.at, f.mic.length, RATE);
    }
  }

  /** The last `seconds`: both signals end to end, the first frame's time, and each frame's capture time. */
  take(seconds: number): { firstAt: number; frameAt: number[]; mic: string; reference: string } {
    this.readReferences(Infinity);
    const frames = this.frames.slice(-Math.ceil((seconds * 1000) / FRAME_MS));
    const join = (pick: (f: (typeof frames)[number]) => Float32Array) => {
      const out = new Float32Array(frames.reduce((n, f) => n + pick(f).length, 0));
      let o = 0;
      for (const f of frames) {
        out.set(pick(f), o);
        o += pick(f).length;
      }
      return float32ToBase64(out);
    };
    return {
      firstAt: frames[0]?.at ?? 0,
      frameAt: frames.map((f) => Math.round(f.at * 10) / 10),
      mic: join((f) => f.mic),
      reference: join((f) => f.reference ?? new Float32Array(f.mic.length)),
    };
  }
}
