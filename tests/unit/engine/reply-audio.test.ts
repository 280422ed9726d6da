/**
 * The reply's audio as handed to the player (core/engine/reply-audio.ts) and the stretch of it a burst over the reply
 * is matched against (core/engine/burst-echo.ts): positions are seconds of the reply's own audio, also after its
 * oldest audio was dropped.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { burstReferenceRange } from '../../../core/engine/burst-echo';
import { ReplyAudioLog } from '../../../core/engine/reply-audio';
import { engineTunables as T, resetTunables } from '../../../core/tunables';

afterEach(() => resetTunables('engine'));

/** `seconds` of 16 kHz audio whose every sample is the second it lies in (from `first`). */
function seconds(first: number, count: number): Float32Array {
  return Float32Array.from({ length: count * 16_000 }, (_, i) => first + Math.floor(i / 16_000));
}

describe('ReplyAudioLog', () => {
  it('returns a stretch by its place in the reply, across chunks and after the oldest were dropped', () => {
    const log = new ReplyAudioLog(4);
    for (let s = 0; s < 10; s += 2) log.push('t1', seconds(s, 2), 16_000);
    // Kept: seconds 6..9 (4 s); 2..3.5 is gone, 5.5..7.5 is half gone.
    expect(log.span('t1', 2, 3.5)).toBeNull();
    const span = log.span('t1', 5.5, 7.5)!;
    expect(span.length).toBe(1.5 * 16_000);
    expect(span[0]).toBe(6);
    expect(span.at(-1)).toBe(7);
    // Past what was handed over: clipped to its end.
    expect(log.span('t1', 8.5, 20)!.length).toBe(1.5 * 16_000);
    expect(log.audio('t1', { fromSeconds: 7, toSeconds: 8 })![0]).toBe(7);
  });

  it('its tail is the newest 4 s, also with more kept', () => {
    const log = new ReplyAudioLog(30);
    log.push('t1', seconds(0, 10), 16_000);
    const tail = log.tail('t1')!;
    expect(tail.length).toBe(4 * 16_000);
    expect(tail[0]).toBe(6);
    expect(log.audio('t1')).toEqual(tail);
    expect(log.tail('t2')).toBeNull();
  });

  it('resamples a 24 kHz chunk to 16 kHz', () => {
    const log = new ReplyAudioLog();
    log.push('t1', new Float32Array(24_000).fill(0.5), 24_000);
    expect(log.tail('t1')!.length).toBe(16_000);
  });
});

describe('the reply audio a burst is matched against', () => {
  it('ends a little past the time since the first audio, and reaches back the burst, the longest delay and the slack', () => {
    const range = burstReferenceRange(12_000, 0.5);
    expect(range.toSeconds).toBeCloseTo(12.5, 6);
    expect(range.fromSeconds).toBeCloseTo(12 - 0.5 - (T.echoMaxDelayMs + T.bargeEchoSlackMs) / 1000, 6);
    expect(burstReferenceRange(1000, 0.5).fromSeconds).toBe(0);
  });
});
