import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  animNow,
  ContextPause,
  SpeechHold,
  SUSPEND_AFTER_FADE_MS,
  type HoldableHead,
  type TimedAnim,
} from '../../../components/avatar/speech-hold';

function head(): HoldableHead {
  return {
    animClock: 1000,
    animTimeLast: 5000, // performance.now() of the last drawn frame
    streamAudioStartTime: 400,
    animQueue: [
      { template: { name: 'viseme' }, ts: [1100, 1150, 1200] },
      { template: { name: 'blink' }, ts: [1050] },
      { template: { name: 'subtitles' }, ts: [1300] },
    ],
  };
}
const names = (q: TimedAnim[]) => q.map((a) => a.template.name);

describe('holding a reply: the lips wait with the voice', () => {
  it('the animation clock runs on between drawn frames', () => {
    expect(animNow(head(), 5030)).toBe(1030);
    expect(animNow(head(), 4990)).toBe(1000); // a read before the frame's own timestamp is not earlier
  });

  it('held, the speech shapes leave the queue; released, they come back later by the time held', () => {
    const h = head();
    const hold = new SpeechHold();
    expect(hold.hold(h, 5000)).toBe(true);
    expect(hold.held).toBe(true);
    expect(names(h.animQueue)).toEqual(['blink']); // gestures keep their own time
    expect(hold.hold(h, 5100)).toBe(false); // one hold at a time: the first one's time counts
    h.animClock = 1500; // frames drawn while held
    h.animTimeLast = 5500;
    expect(hold.release(h, 5600)).toBe(600);
    expect(hold.held).toBe(false);
    expect(names(h.animQueue)).toEqual(['blink', 'viseme', 'subtitles']);
    expect(h.animQueue[1]!.ts).toEqual([1700, 1750, 1800]);
    expect(h.animQueue[2]!.ts).toEqual([1900]);
    expect(h.animQueue[0]!.ts).toEqual([1050]);
    // Chunks queued after the release start on the utterance clock the audio is on.
    expect(h.streamAudioStartTime).toBe(1000);
    expect(hold.release(h, 5700)).toBeNull();
  });

  it('chunks wait while held and go on at the release, or at a cut (which drops the parked shapes)', async () => {
    const h = head();
    const hold = new SpeechHold();
    await hold.whenPlaying(); // not held: at once
    hold.hold(h, 5000);
    let went = 0;
    void hold.whenPlaying().then(() => went++);
    await new Promise((r) => setTimeout(r, 5));
    expect(went).toBe(0);
    hold.release(h, 5200);
    await new Promise((r) => setTimeout(r, 0));
    expect(went).toBe(1);

    hold.hold(h, 6000);
    void hold.whenPlaying().then(() => went++);
    hold.drop();
    await new Promise((r) => setTimeout(r, 0));
    expect(went).toBe(2);
    expect(hold.held).toBe(false);
    expect(hold.release(h, 6100)).toBeNull(); // nothing parked comes back after a cut
    expect(names(h.animQueue)).toEqual(['blink']);
  });
});

/** An AudioContext's clock and state, moved by the test as the audio thread would. */
function fakeContext() {
  const calls: string[] = [];
  const gainEvents: [string, number][] = [];
  const ctx = {
    currentTime: 10,
    state: 'running',
    suspend: async () => void calls.push(`suspend@${ctx.currentTime.toFixed(3)}`),
    resume: async () => void calls.push('resume'),
  };
  const gain = {
    cancelScheduledValues: () => gainEvents.push(['cancel', 0]),
    setTargetAtTime: (v: number) => gainEvents.push(['target', v]),
    setValueAtTime: (v: number) => gainEvents.push(['value', v]),
  };
  return { ctx: ctx as unknown as AudioContext, gain: gain as unknown as AudioParam, clock: ctx, calls, gainEvents };
}

describe('holding the reply’s AudioContext: it stands still only once its fade has been rendered', () => {
  afterEach(() => vi.useRealTimers());

  it('fades at once and suspends once the audio clock has run SUSPEND_AFTER_FADE_MS past the hold', () => {
    vi.useFakeTimers();
    const { ctx, gain, clock, calls, gainEvents } = fakeContext();
    const pause = new ContextPause();
    pause.hold(ctx, gain);
    expect(gainEvents.at(-1)).toEqual(['target', 0]);
    // The timer fires, but the audio thread has rendered only 10 ms since: the fade may not be out yet.
    clock.currentTime = 10.01;
    vi.advanceTimersByTime(SUSPEND_AFTER_FADE_MS);
    expect(calls).toEqual([]);
    clock.currentTime = 10.032;
    vi.advanceTimersByTime(5);
    expect(calls).toEqual(['suspend@10.032']);
    // Released: the clock ran 32 ms of the hold (the lips move by the rest), and the gain comes back.
    expect(pause.release(ctx, gain)).toBeCloseTo(32, 5);
    expect(calls.at(-1)).toBe('resume');
    expect(gainEvents.at(-1)).toEqual(['target', 1]);
  });

  it('a context that renders nothing is not waited on: no timer runs while it is held', () => {
    vi.useFakeTimers();
    const { ctx, gain, clock, calls } = fakeContext();
    clock.state = 'suspended';
    new ContextPause().hold(ctx, gain);
    expect(vi.getTimerCount()).toBe(0);
    expect(calls).toEqual([]);
  });

  it('a release or a cut before the suspend stops it from coming', () => {
    vi.useFakeTimers();
    const a = fakeContext();
    const pause = new ContextPause();
    pause.hold(a.ctx, a.gain);
    a.clock.currentTime = 10.005;
    expect(pause.release(a.ctx, a.gain)).toBeCloseTo(5, 5);
    a.clock.currentTime = 11;
    vi.advanceTimersByTime(100);
    expect(a.calls).toEqual(['resume']);

    const b = fakeContext();
    pause.hold(b.ctx, b.gain);
    pause.cut(b.ctx, b.gain);
    b.clock.currentTime = 11;
    vi.advanceTimersByTime(100);
    expect(b.calls).toEqual(['resume']); // runs again, muted then full: the next reply needs the context
    expect(b.gainEvents.slice(-2)).toEqual([
      ['value', 0],
      ['value', 1],
    ]);
  });

  it('the lips move by the time the audio clock stood still, not by the fade it still ran', () => {
    const h = head();
    const hold = new SpeechHold();
    hold.hold(h, 5000);
    h.animClock = 1500;
    h.animTimeLast = 5500;
    expect(hold.release(h, 5600, 30)).toBe(570);
    expect(h.animQueue.find((a) => a.template.name === 'viseme')!.ts).toEqual([1670, 1720, 1770]);
  });
});
