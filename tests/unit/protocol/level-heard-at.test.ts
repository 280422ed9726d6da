// A playback level's heard time crosses from the side panel to the offscreen document as epoch ms (docs/echo.md,
// "When a level was heard"): validated at the boundary, mapped onto the receiver's clock, refused when implausible.
import { describe, expect, it } from 'vitest';
import { REFERENCE_KEEP_MS } from '../../../core/echo/reference-timeline';
import { levelHeardAt, PlaybackMessageSchema } from '../../../core/protocol/playback';

describe('levelHeardAt', () => {
  const origin = 1_796_000_000_000;
  it('maps the panel’s epoch time onto this document’s clock', () => {
    expect(levelHeardAt({ at: origin + 5_000 - 120 }, origin, 5_000)).toBeCloseTo(4_880, 9);
    // Heard a little after it was read (output latency): believed.
    expect(levelHeardAt({ at: origin + 5_040 }, origin, 5_000)).toBeCloseTo(5_040, 9);
  });
  it('is undefined without a time, or with one seconds away from now (clocks that disagree)', () => {
    expect(levelHeardAt({}, origin, 5_000)).toBeUndefined();
    expect(levelHeardAt({ at: origin + 2_000 }, origin, 5_000)).toBeUndefined();
    expect(levelHeardAt({ at: origin + 7_000 }, origin, 5_000)).toBeUndefined();
  });
  it('a receiver that keeps what was played longer takes a block a busy panel sent seconds late, and no older one', () => {
    // CI: one tapped block reached the offscreen document more than 2 s after it was heard (a SwiftShader frame held
    // the panel's thread); the echo reference keeps 4 s, so it still belongs there.
    expect(levelHeardAt({ at: origin + 5_000 - 3_000 }, origin, 5_000)).toBeUndefined();
    expect(levelHeardAt({ at: origin + 5_000 - 3_000 }, origin, 5_000, REFERENCE_KEEP_MS)).toBeCloseTo(2_000, 9);
    expect(levelHeardAt({ at: origin + 5_000 - 4_001 }, origin, 5_000, REFERENCE_KEEP_MS)).toBeUndefined();
    expect(levelHeardAt({ at: origin + 6_500 }, origin, 5_000, REFERENCE_KEEP_MS)).toBeUndefined();
  });
  it('the message schema takes a level with or without a time, and refuses a time that is not a positive number', () => {
    expect(PlaybackMessageSchema.safeParse({ type: 'level', rms: 0.1 }).success).toBe(true);
    expect(PlaybackMessageSchema.safeParse({ type: 'level', rms: 0.1, at: origin }).success).toBe(true);
    for (const at of [-1, 0, Number.NaN, Number.POSITIVE_INFINITY, '1'])
      expect(PlaybackMessageSchema.safeParse({ type: 'level', rms: 0.1, at }).success, String(at)).toBe(false);
  });
});
