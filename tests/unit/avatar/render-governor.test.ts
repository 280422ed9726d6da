import { describe, expect, it } from 'vitest';
import { frameIntervalMs, governRenderShare, type GovernedHead } from '../../../components/avatar/render-governor';

/** A stand-in for TalkingHead's animate: it renders (advancing its clock) only when `animFrameDur` has passed. */
function fakeHead(renderMs: number, clock: { now: number }): GovernedHead & { frames: number } {
  const head = {
    animClock: 0,
    animFrameDur: 1000 / 30,
    frames: 0,
    last: -Infinity,
    animate(t: number) {
      if (t - head.last < head.animFrameDur) return;
      head.last = t;
      head.animClock += 1;
      head.frames++;
      clock.now += renderMs; // the render itself takes the main thread this long
    },
  };
  return head;
}

/** Drives animation frames every 16.7 ms of main-thread time for `seconds`; returns the render share. */
function run(renderMs: number, share: number, seconds = 5): { share: number; fps: number } {
  const clock = { now: 0 };
  const head = fakeHead(renderMs, clock);
  governRenderShare(
    head,
    () => 30,
    () => share,
    () => clock.now,
  );
  let busy = 0;
  while (clock.now < seconds * 1000) {
    const before = clock.now;
    head.animate(clock.now);
    busy += clock.now - before;
    clock.now += 1000 / 60;
  }
  return { share: busy / clock.now, fps: head.frames / (clock.now / 1000) };
}

describe('avatar render governor', () => {
  it('a fast renderer keeps its frame rate', () => {
    expect(frameIntervalMs(3, 30, 0.5)).toBeCloseTo(1000 / 30, 6);
    const r = run(3, 0.5);
    expect(r.fps).toBeGreaterThan(18); // TalkingHead's own 30 fps throttle on a 60 Hz frame clock
    expect(r.share).toBeLessThan(0.1);
  });

  it('a slow renderer gets fewer frames, and its share of the main thread stays near the limit', () => {
    const off = run(80, 1);
    expect(off.share).toBeGreaterThan(0.8); // ungoverned: the thread is almost always rendering
    const on = run(80, 0.5);
    expect(on.share).toBeLessThan(0.55);
    expect(on.share).toBeGreaterThan(0.3);
    expect(on.fps).toBeLessThan(off.fps);
    expect(frameIntervalMs(80, 30, 0.5)).toBe(160);
  });

  it('a share of 1 turns it off; the governor never goes below 5 fps', () => {
    expect(frameIntervalMs(500, 30, 1)).toBeCloseTo(1000 / 30, 6);
    expect(frameIntervalMs(500, 30, 0.5)).toBe(200);
    // …unless the state itself asks for fewer (an idle avatar on a software renderer).
    expect(frameIntervalMs(500, 2, 0.5)).toBe(500);
    expect(frameIntervalMs(3, 2, 0.5)).toBe(500);
  });

  it('counts the long tasks after a frame (the browser drawing it) as its cost, not only animate()', () => {
    // animate() takes 3 ms, but each drawn frame is followed by a 60 ms long task (compositing a software GL frame).
    const clock = { now: 0 };
    const head = fakeHead(3, clock);
    let blocked = 0;
    const governor = governRenderShare(
      head,
      () => 30,
      () => 0.5,
      () => clock.now,
      () => blocked,
    );
    let busy = 0;
    let frames = head.frames;
    while (clock.now < 5000) {
      head.animate(clock.now);
      if (head.frames > frames) {
        frames = head.frames;
        blocked += 60;
        clock.now += 60;
        busy += 63;
      }
      clock.now += 1000 / 60;
    }
    expect(governor.costMs()).toBeGreaterThan(55);
    expect(busy / clock.now).toBeLessThan(0.55);
    expect(head.animFrameDur).toBeGreaterThan(100);
  });

  it("follows the rate the avatar's state asks for: a fast renderer idles at the idle rate, not the speaking one", () => {
    const clock = { now: 0 };
    const head = fakeHead(3, clock);
    let fps = 30;
    governRenderShare(
      head,
      () => fps,
      () => 0.5,
      () => clock.now,
    );
    const framesOver = (ms: number) => {
      const from = head.frames;
      const end = clock.now + ms;
      while (clock.now < end) {
        head.animate(clock.now);
        clock.now += 1000 / 60;
      }
      return head.frames - from;
    };
    expect(framesOver(2000)).toBeGreaterThan(35);
    fps = 4;
    framesOver(500); // the first drawn frame after the change picks the new rate up
    expect(framesOver(2000)).toBeLessThanOrEqual(12); // 8 at 4 fps, give or take the 60 Hz frame grid
  });

  it('runs the per-tick work on every animation frame, also those the avatar skips', () => {
    const clock = { now: 0 };
    const head = fakeHead(3, clock);
    let ticks = 0;
    governRenderShare(
      head,
      () => 2,
      () => 0.5,
      () => clock.now,
      () => 0,
      () => ticks++,
    );
    for (let i = 0; i < 120; i++) {
      head.animate(clock.now);
      clock.now += 1000 / 60;
    }
    expect(ticks).toBe(120);
    expect(head.frames).toBeLessThanOrEqual(5);
  });
});
