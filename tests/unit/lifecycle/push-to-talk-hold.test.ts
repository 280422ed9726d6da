import { afterEach, describe, expect, it } from 'vitest';
import { PushToTalkHold, type PttReleaseReason } from '../../../core/lifecycle/push-to-talk-hold';
import { listeningTunables, resetTunables } from '../../../core/tunables';
import { FakeTimers } from '../helpers/fake-timers';

function hold() {
  const timers = new FakeTimers();
  const released: PttReleaseReason[] = [];
  return { timers, released, ptt: new PushToTalkHold(timers, (r) => released.push(r)) };
}

afterEach(() => resetTunables());

describe('a push-to-talk hold', () => {
  it('ends at the cap when no key-up ever comes', () => {
    const { timers, released, ptt } = hold();
    expect(ptt.press()).toBe(true);
    timers.advance(listeningTunables.pttMaxHoldMs - 1);
    expect(ptt.held).toBe(true);
    expect(released).toEqual([]);
    timers.advance(1);
    expect(ptt.held).toBe(false);
    expect(released).toEqual(['cap']);
  });

  it('reads the cap from the tunables at each press', () => {
    const { timers, released, ptt } = hold();
    listeningTunables.pttMaxHoldMs = 5_000;
    ptt.press();
    timers.advance(5_000);
    expect(released).toEqual(['cap']);
  });

  it('a release before the cap ends it once, and the cap no longer fires', () => {
    const { timers, released, ptt } = hold();
    ptt.press();
    timers.advance(1_000);
    expect(ptt.release('blur')).toBe(true);
    expect(ptt.release('released')).toBe(false);
    timers.advance(listeningTunables.pttMaxHoldMs * 2);
    expect(released).toEqual(['blur']);
    expect(timers.pending).toBe(0);
  });

  it('a second press while held is not a new hold, and does not move the cap', () => {
    const { timers, released, ptt } = hold();
    ptt.press();
    timers.advance(40_000);
    expect(ptt.press()).toBe(false);
    timers.advance(listeningTunables.pttMaxHoldMs - 40_000);
    expect(released).toEqual(['cap']);
  });

  it('a release with nothing held does nothing; clear forgets a hold without a release', () => {
    const { timers, released, ptt } = hold();
    expect(ptt.release('hidden')).toBe(false);
    ptt.press();
    ptt.clear();
    expect(ptt.held).toBe(false);
    timers.advance(listeningTunables.pttMaxHoldMs);
    expect(released).toEqual([]);
    // A new hold after the clear gets its own cap.
    ptt.press();
    timers.advance(listeningTunables.pttMaxHoldMs);
    expect(released).toEqual(['cap']);
  });
});
