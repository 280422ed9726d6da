import { describe, expect, it } from 'vitest';
import { animNow, SpeechHold, type HoldableHead, type TimedAnim } from '../../../components/avatar/speech-hold';

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
