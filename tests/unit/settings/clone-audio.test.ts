import { describe, expect, it } from 'vitest';
import { bytesToBase64, CLONE_SAMPLE_RATE, prepareClip } from '../../../components/voices/clone-audio';
import { decodeWav, encodeWav } from '../../../core/tts/wav';
import { base64ToBytes } from '../../../entrypoints/offscreen/voices';

const tone = (seconds: number, rate: number, amp = 0.5) =>
  Float32Array.from({ length: Math.round(seconds * rate) }, (_, i) => amp * Math.sin((2 * Math.PI * 220 * i) / rate));

describe('clone audio from the side panel to the offscreen document', () => {
  it('base64 round-trips bytes exactly (also large ones)', () => {
    const bytes = Uint8Array.from({ length: 200_001 }, (_, i) => (i * 31) & 255);
    expect(base64ToBytes(bytesToBase64(bytes))).toEqual(bytes);
  });

  it('resamples to 24 kHz mono 16-bit WAV that the offscreen side decodes', () => {
    const clip = prepareClip({ sampleRate: 48_000, samples: tone(2, 48_000) });
    expect(clip.truncated).toBe(false);
    expect(clip.seconds).toBeCloseTo(2, 2);
    const back = decodeWav(base64ToBytes(clip.wavBase64));
    expect(back.sampleRate).toBe(CLONE_SAMPLE_RATE);
    expect(back.samples.length).toBe(48_000);
    expect(Math.max(...back.samples.subarray(1000, 2000))).toBeGreaterThan(0.45);
  });

  it('cuts a long recording at 30 s and says so', () => {
    const clip = prepareClip({ sampleRate: 16_000, samples: tone(45, 16_000) });
    expect(clip.truncated).toBe(true);
    expect(clip.seconds).toBeCloseTo(30, 3);
    expect(clip.wavBase64.length).toBeLessThan(2_000_000);
  });

  it('refuses empty and silent recordings with a sentence', () => {
    expect(() => prepareClip({ sampleRate: 24_000, samples: new Float32Array(0) })).toThrow('The recording is empty.');
    expect(() => prepareClip({ sampleRate: 24_000, samples: new Float32Array(24_000) })).toThrow(/silent/);
    expect(() => prepareClip({ sampleRate: 24_000, samples: Float32Array.of(0.5, Number.NaN) })).toThrow(/invalid/);
  });

  it('a WAV file passes through unchanged when already 24 kHz', () => {
    const samples = tone(1, 24_000);
    const clip = prepareClip(decodeWav(encodeWav(samples, 24_000)));
    expect(decodeWav(base64ToBytes(clip.wavBase64)).samples.length).toBe(24_000);
  });
});
