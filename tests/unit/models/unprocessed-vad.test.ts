/**
 * The unprocessed track's VAD (models/vad/unprocessed-vad.ts): run only over a reply, fresh each reply, and dropped
 * for frames the feed handles late, so a busy CPU cannot build a backlog on the offscreen thread.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { resetTunables, setTunable } from '../../../core/tunables';
import { UnprocessedVad, type FrameVad } from '../../../models/vad/unprocessed-vad';

class CountingVad implements FrameVad {
  calls = 0;
  resets = 0;
  processSync(): number {
    this.calls += 1;
    return 0.9;
  }
  reset(): void {
    this.resets += 1;
  }
}

const frame = (capturedAt: number) => ({ raw: { samples: new Float32Array(512), rms: 0.02 }, capturedAt });

afterEach(() => resetTunables('engine'));

describe('the unprocessed track’s VAD', () => {
  it('gives only the level while no reply plays, and does not run', () => {
    const inner = new CountingVad();
    const vad = new UnprocessedVad(inner);
    expect(vad.frame(frame(0), false, 0)).toEqual({ rms: 0.02 });
    expect(inner.calls).toBe(0);
    expect(vad.frame({ capturedAt: 0 }, true, 0)).toBeUndefined();
  });

  it('runs on every frame over a reply, from a fresh state at the start of each reply', () => {
    const inner = new CountingVad();
    const vad = new UnprocessedVad(inner);
    for (let i = 0; i < 3; i++) expect(vad.frame(frame(i * 32), true, i * 32)).toEqual({ rms: 0.02, prob: 0.9 });
    expect([inner.calls, inner.resets]).toEqual([3, 1]);
    vad.frame(frame(200), false, 200);
    vad.frame(frame(232), true, 232);
    expect([inner.calls, inner.resets]).toEqual([4, 2]);
  });

  it('skips frames handled later than the limit after capture, and runs again once on time, without a reset', () => {
    setTunable('engine.unprocessedVadMaxLagMs', 250);
    const inner = new CountingVad();
    const vad = new UnprocessedVad(inner);
    vad.frame(frame(0), true, 10);
    expect(vad.frame(frame(32), true, 300)).toEqual({ rms: 0.02 });
    expect(vad.frame(frame(64), true, 314)).toEqual({ rms: 0.02, prob: 0.9 });
    expect(vad.shed).toBe(1);
    expect([inner.calls, inner.resets]).toEqual([2, 1]);
  });
});
