/** The avatar's frame rate by state and conditions (components/avatar/frame-rate.ts). */
import { afterEach, describe, expect, it } from 'vitest';
import { avatarFps } from '../../../components/avatar/frame-rate';
import { lipsyncTunables as T, resetTunables } from '../../../core/tunables';

afterEach(() => resetTunables('lipsync'));

const plain = { reducedMotion: false, softwareRenderer: false, feedBehind: false };

describe('avatarFps', () => {
  it('a state gets its own rate on a GPU with nothing behind', () => {
    expect(avatarFps(30, plain)).toBe(30);
  });

  it('a microphone feed behind real time scales the rate down, on top of the other conditions', () => {
    expect(avatarFps(30, { ...plain, feedBehind: true })).toBeCloseTo(30 * T.feedBehindFpsScale, 9);
    const software = avatarFps(30, { ...plain, softwareRenderer: true });
    expect(avatarFps(30, { ...plain, softwareRenderer: true, feedBehind: true })).toBeCloseTo(software * T.feedBehindFpsScale, 9);
    expect(T.feedBehindFpsScale).toBeLessThan(1);
  });

  it('never under one frame a second', () => {
    expect(avatarFps(2, { reducedMotion: true, softwareRenderer: true, feedBehind: true })).toBe(1);
  });
});
