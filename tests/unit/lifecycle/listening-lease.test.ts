import { describe, expect, it } from 'vitest';
import { ListeningLease } from '../../../core/lifecycle/listening-lease';
import { FakeTimers } from '../helpers/fake-timers';

function lease() {
  const timers = new FakeTimers();
  const log: string[] = [];
  const l = new ListeningLease({
    timers,
    reconnectGraceMs: 2_000,
    stopAll: () => log.push('stop'),
    onOpenChange: (open) => log.push(open ? 'open' : 'closed'),
  });
  return { timers, log, lease: l };
}

describe('the listening lease', () => {
  it('stops everything when the last panel closes, not before', () => {
    const { log, lease: l } = lease();
    l.panelOpened();
    l.panelOpened();
    l.panelClosed();
    expect(log).toEqual(['open']);
    expect(l.open).toBe(true);
    l.panelClosed();
    expect(log).toEqual(['open', 'stop', 'closed']);
    expect(l.open).toBe(false);
  });

  it('may start the microphone or the camera only while a panel is open', () => {
    const { lease: l } = lease();
    expect(l.mayStart()).toBe(false);
    l.panelOpened();
    expect(l.mayStart()).toBe(true);
    l.panelClosed();
    expect(l.mayStart()).toBe(false);
  });

  it('re-creates a dead engine only for an open panel or a pending download', () => {
    const { lease: l } = lease();
    expect(l.mayRecreateEngine(false)).toBe(false);
    expect(l.mayRecreateEngine(true)).toBe(true);
    l.panelOpened();
    expect(l.mayRecreateEngine(false)).toBe(true);
  });

  it('a close with no panel counted does nothing (a port of an earlier worker)', () => {
    const { log, lease: l } = lease();
    l.panelClosed();
    expect(log).toEqual([]);
    l.panelOpened();
    l.panelClosed();
    l.panelClosed();
    expect(log).toEqual(['open', 'stop', 'closed']);
  });

  it('a new worker stops what was left on when no panel reconnects within the grace', () => {
    const { timers, log, lease: l } = lease();
    l.workerStarted();
    timers.advance(1_999);
    expect(log).toEqual([]);
    timers.advance(1);
    expect(log).toEqual(['stop']);
  });

  it('a panel that reconnects within the grace keeps listening', () => {
    const { timers, log, lease: l } = lease();
    l.workerStarted();
    timers.advance(300);
    l.panelOpened();
    timers.advance(10_000);
    expect(log).toEqual(['open']);
    expect(timers.pending).toBe(0);
  });
});
