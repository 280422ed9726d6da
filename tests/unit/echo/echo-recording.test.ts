// entrypoints/offscreen/echo-recording: the microphone beside the reference over the same samples (test builds).
import { describe, expect, it } from 'vitest';
import { ReferenceTimeline } from '../../../core/echo/reference-timeline';
import { EchoRecording, float32ToBase64 } from '../../../entrypoints/offscreen/echo-recording';

const decode = (b64: string) => {
  const bytes = Buffer.from(b64, 'base64');
  return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
};
/** A ramp at 16 kHz whose value is its own time in seconds: where a sample came from can be read off it. */
const ramp = (fromMs: number, n: number) => Float32Array.from({ length: n }, (_, i) => (fromMs + (i * 1000) / 16_000) / 1000);

describe('EchoRecording', () => {
  it('base64 round-trips Float32 samples', () => {
    const x = Float32Array.of(0, -1.5, 3.25e-7, 0.1);
    expect(decode(float32ToBase64(x))).toEqual(x);
  });

  it("each frame's reference covers the frame's own 32 ms, read once the panel's late blocks have come", () => {
    const timeline = new ReferenceTimeline(60_000);
    const rec = new EchoRecording(timeline);
    // Frames captured from 1000 ms on; the panel's blocks for the first 100 ms arrive only after three frames.
    for (let k = 0; k < 3; k++) rec.frame({ capturedAt: 1032 + k * 32, samples: new Float32Array(512).fill(k) });
    timeline.add(1000, ramp(1000, 16 * 2000), 16_000);
    for (let k = 3; k < 40; k++) rec.frame({ capturedAt: 1032 + k * 32, samples: new Float32Array(512).fill(k) });
    const took = rec.take(10);
    const mic = decode(took.mic);
    const reference = decode(took.reference);
    expect(took.firstAt).toBe(1000);
    expect(took.frameAt.slice(0, 3)).toEqual([1000, 1032, 1064]);
    expect([mic[0], mic[512], mic[512 * 39]]).toEqual([0, 1, 39]);
    // Sample i of the recording was captured at 1000 ms + i / 16 kHz, and its reference is what played then.
    for (const i of [0, 100, 512 * 2 + 7, 512 * 20]) expect(reference[i]).toBeCloseTo((1000 + i / 16) / 1000, 5);
  });

  it('keeps the last keepSeconds', () => {
    const rec = new EchoRecording(new ReferenceTimeline(), 1);
    for (let k = 0; k < 100; k++) rec.frame({ capturedAt: 32 + k * 32, samples: new Float32Array(512).fill(k) });
    const took = rec.take(30);
    expect(took.frameAt).toHaveLength(32);
    expect(decode(took.mic)[0]).toBe(68);
  });
});
