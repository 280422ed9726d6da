// The offscreen document's reference of what the speakers played (docs/echo-canceller.md, "The reference"): which
// reported blocks it takes. Runs on Node's own performance clock, as the document runs on its own.
import { describe, expect, it } from 'vitest';
import { PlayedReference } from '../../../entrypoints/offscreen/played-reference';

const heardAgo = (ms: number) => performance.timeOrigin + performance.now() - ms;
const block = (at: number) => ({ type: 'played' as const, at, sampleRate: 16_000, samples: new Float32Array(512).fill(0.1) });

describe('PlayedReference', () => {
  it('takes a block a busy panel sent seconds after it was heard, while the reference still covers that time', () => {
    // CI saw one block arrive more than 2 s late (a software-rendered frame held the panel's thread).
    const ref = new PlayedReference();
    ref.add(block(heardAgo(3_000)));
    ref.add(block(heardAgo(20)));
    expect({ taken: ref.taken, dropped: ref.dropped }).toEqual({ taken: 2, dropped: 0 });
  });
  it('drops a block older than what it keeps, or heard in the future beyond output latency (clocks that disagree)', () => {
    const ref = new PlayedReference();
    ref.add(block(heardAgo(5_000)));
    ref.add(block(heardAgo(-3_000)));
    expect({ taken: ref.taken, dropped: ref.dropped }).toEqual({ taken: 0, dropped: 2 });
  });
});
