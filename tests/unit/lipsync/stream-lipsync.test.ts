import { describe, expect, it } from 'vitest';
import { rmsEnvelope, voicedSpan } from '../../../core/lipsync/envelope';
import { StreamingLipsync } from '../../../core/lipsync/stream-lipsync';
import { textWeight } from '../../../core/lipsync/viseme-track';
import { lipsyncTunables } from '../../../core/tunables';
import { SAMPLE_RATE as SR, silence, speech } from '../../fixtures/audio/make-audio';

const FRAME = Math.round(SR * 0.08); // Pocket TTS frames: 80 ms
const SENTENCE = 'Maybe bring a jacket: it will be about twelve degrees and windy in Berlin tomorrow.';

interface Released {
  viseme: string;
  time: number;
  duration: number;
  /** Audio received (ms on the utterance time base) when this viseme was released. */
  audioAt: number;
}

/** Feeds `pcm` as 80 ms frames, the text with the first frame only (as the offscreen document sends it). */
function stream(lips: StreamingLipsync, pcm: Float32Array, text: string, out: Released[] = []): Released[] {
  for (let i = 0; i < pcm.length; i += FRAME) {
    const r = lips.chunk(pcm.subarray(i, i + FRAME), SR, i === 0 ? text : '');
    r.track.visemes.forEach((v, k) =>
      out.push({ viseme: v, time: r.track.vtimes[k]!, duration: r.track.vdurations[k]!, audioAt: lips.elapsedMs }),
    );
  }
  return out;
}

function concat(...parts: Float32Array[]): Float32Array {
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) out.set(p, (o += p.length) - p.length);
  return out;
}

describe('streaming lip-sync (text on the first 80 ms frame, audio after)', () => {
  it('spreads the sentence over its voiced audio instead of cramming it into the first frame', () => {
    const pcm = concat(silence(200), speech(SENTENCE, { wordsPerMinute: 160 }), silence(300));
    const voiced = voicedSpan(rmsEnvelope(pcm, SR))!;
    const out = stream(new StreamingLipsync(), pcm, SENTENCE);
    expect(out.length).toBeGreaterThan(12);
    expect(out[0]!.time).toBeGreaterThanOrEqual(voiced.start - lipsyncTunables.roundLeadMs);
    expect(out[0]!.time).toBeLessThan(voiced.start + 200);
    const last = out.at(-1)!;
    // The estimate (90 ms per weight unit) lands the last shape near the real end of speech.
    expect(last.time).toBeGreaterThan(voiced.start + 0.7 * (voiced.end - voiced.start));
    expect(last.time + last.duration).toBeLessThan(voiced.end + 400);
    const spanS = (voiced.end - voiced.start) / 1000;
    expect(out.length / spanS).toBeLessThanOrEqual(lipsyncTunables.maxChangesPerSec + 0.5);
    expect(out.length / spanS).toBeGreaterThan(3);
  });

  it('never releases a shape before audio covering its start has arrived, nor places it in an earlier chunk', () => {
    const pcm = speech('Please pass the big blue book to me.', { wordsPerMinute: 170 });
    const out = stream(new StreamingLipsync(), pcm, 'Please pass the big blue book to me.');
    for (const r of out) {
      expect(r.time).toBeLessThan(r.audioAt);
      expect(r.time).toBeGreaterThanOrEqual(r.audioAt - 80 - 1);
    }
    // Lips close on p/b/m long enough to be seen.
    const closures = out.filter((r) => r.viseme === 'PP');
    expect(closures.length).toBeGreaterThanOrEqual(3);
    for (const c of closures) expect(c.duration).toBeGreaterThanOrEqual(lipsyncTunables.closureMinMs);
  });

  it('stops releasing shapes when the voice stops early (the mouth does not run on)', () => {
    const full = speech(SENTENCE, { wordsPerMinute: 160 });
    const cut = full.subarray(0, Math.round(full.length * 0.4));
    const out = stream(new StreamingLipsync(), cut, SENTENCE);
    const audioMs = (cut.length / SR) * 1000;
    for (const r of out) expect(r.time).toBeLessThan(audioMs);
  });

  it('learns a slow voice from finished sentences and fits the next one better', () => {
    const text = 'Tidal pools are rocky pools on the sea shore, filled with seawater at low tide.';
    const slow = speech(text, { wordsPerMinute: 100 });
    const lips = new StreamingLipsync();
    const first = stream(lips, slow, text);
    expect(lips.pace).toBe(lipsyncTunables.msPerWeight); // learnt only once the sentence is over
    lips.reset(); // TalkingHead drained: a new time base, and the sentence is finished
    const paceAfterOne = lips.pace;
    expect(paceAfterOne).toBeGreaterThan(lipsyncTunables.msPerWeight);
    const second = stream(lips, slow, text);
    const spoken = (slow.length / SR) * 1000;
    const coverage = (r: Released[]) => r.at(-1)!.time / spoken;
    // With the default pace the shapes finish well before the slow speech does; after learning they reach further.
    expect(coverage(second)).toBeGreaterThan(coverage(first) + 0.1);
    expect(lips.pace).toBeGreaterThan(paceAfterOne - 1);
    expect(lips.pace).toBeLessThanOrEqual(lipsyncTunables.msPerWeight * 1.8);
  });

  it('an interrupted sentence does not teach the pace', () => {
    const lips = new StreamingLipsync();
    const pcm = speech(SENTENCE, { wordsPerMinute: 160 });
    stream(lips, pcm.subarray(0, Math.round(pcm.length * 0.3)), SENTENCE);
    lips.interrupt();
    expect(lips.pace).toBe(lipsyncTunables.msPerWeight);
    expect(lips.elapsedMs).toBe(0);
  });

  it('a chunk holding the whole sentence is fitted exactly to its voiced span', () => {
    const text = 'Twelve times twelve is one hundred and forty four.';
    const pcm = concat(silence(300), speech(text, { wordsPerMinute: 160 }), silence(300));
    const voiced = voicedSpan(rmsEnvelope(pcm, SR))!;
    const lips = new StreamingLipsync();
    lips.chunk(new Float32Array(FRAME), SR, ''); // earlier audio on the same time base
    const r = lips.chunk(pcm, SR, text);
    const first = r.track.vtimes[0]!;
    const lastEnd = r.track.vtimes.at(-1)! + r.track.vdurations.at(-1)!;
    expect(Math.abs(first - (80 + voiced.start))).toBeLessThan(lipsyncTunables.roundLeadMs + 1);
    expect(Math.abs(lastEnd - (80 + voiced.end))).toBeLessThan(60);
    expect(textWeight(text)).toBeGreaterThan(10);
  });
});
