import { describe, expect, it } from 'vitest';
import { DuplexEngine } from '../../../core/engine/duplex-engine';
import type { EngineEvent } from '../../../core/engine/types';

function engine() {
  let t = 0;
  const spoken: { sentence: string; turnId: string }[] = [];
  const aborted: string[] = [];
  const events: EngineEvent[] = [];
  const e = new DuplexEngine({
    clock: { now: () => t },
    stages: {
      transcribe: async () => ({ text: '', confidence: 1 }),
      respond: async function* (_turn, signal) {
        yield 'A long answer that keeps going. ';
        await new Promise((r) => setTimeout(r, 50));
        if (signal.aborted) aborted.push('reply');
        yield 'And more.';
      },
      speak: async (sentence, _signal, meta) => {
        t += 10;
        spoken.push({ sentence, turnId: meta.turnId });
      },
    },
  });
  e.on((ev) => events.push(ev));
  return { e, spoken, events, aborted };
}

const settle = () => new Promise((r) => setTimeout(r, 80));

describe('DuplexEngine.say (a character’s greeting)', () => {
  it('speaks and captions the line, ends the turn on playback end, and remembers it as the assistant’s words', async () => {
    const { e, spoken, events } = engine();
    e.say('  Good day, Marius here.  ');
    await settle();
    expect(spoken.map((s) => s.sentence)).toEqual(['Good day, Marius here.']);
    const turnId = spoken[0]!.turnId;
    expect(events.some((ev) => ev.type === 'caption' && ev.role === 'assistant' && ev.text.includes('Marius here'))).toBe(true);
    e.onPlayback({ type: 'started', turnId });
    e.onPlayback({ type: 'ended', turnId });
    expect(events.some((ev) => ev.type === 'turn' && ev.stage === 'done' && ev.turnId === turnId)).toBe(true);
    expect(e.messages).toEqual([{ role: 'assistant', text: 'Good day, Marius here.' }]);
    expect(e.state).toBe('idle');
  });

  it('interrupts a reply in flight, and ignores an empty line', async () => {
    const { e, spoken, aborted } = engine();
    e.submitText('tell me a story');
    await new Promise((r) => setTimeout(r, 10));
    e.say('Hello again.');
    await settle();
    expect(aborted).toEqual(['reply']);
    expect(spoken.at(-1)!.sentence).toBe('Hello again.');
    const count = spoken.length;
    e.say('   ');
    await settle();
    expect(spoken).toHaveLength(count);
  });
});
