import { afterEach, describe, expect, it } from 'vitest';
import { FactMemory } from '../../../core/memory/fact-memory';
import { formatLocalDateTime } from '../../../core/engine/time-context';
import { engineTunables, getTunable, resetTunables, setTunable } from '../../../core/tunables';

afterEach(() => resetTunables());

describe('FactMemory', () => {
  it('extracts stated facts, latest wins, and selects the relevant ones', () => {
    const m = new FactMemory();
    m.observe('Hi, my name is Ana and I live in Porto.', 1);
    m.observe("I love jazz. I'm flying to Rome on Friday.", 2);
    m.observe('My dog is called Biscuit.', 3);
    m.observe('Actually I live in Lisbon now.', 4);
    const byKind = Object.fromEntries(m.all().map((f) => [f.kind, f.value]));
    expect(byKind).toEqual({
      name: 'Ana',
      location: 'Lisbon',
      preference: 'jazz',
      plan: 'flying to Rome on Friday',
      pet: 'Biscuit',
    });
    expect(m.select("What's the weather like where I live?").map((f) => f.kind)).toContain('location');
    expect(m.select('What should I pack for the trip?').map((f) => f.kind)).toEqual(['plan']);
    expect(m.select('Can you recommend some music?')[0]!.value).toBe('jazz');
    expect(m.select('Tell me about volcanoes.')).toEqual([]);
    expect(FactMemory.describe(m.select('what is my name')[0]!)).toBe("The user's name is Ana.");
  });

  it('ignores non-facts', () => {
    const m = new FactMemory();
    m.observe("I'm not sure. I like that. I'd like to know the time. Call me later maybe", 1);
    expect(m.all().filter((f) => f.kind !== 'name')).toEqual([]);
    m.observe("I'm a bit tired", 2);
    expect(m.all().some((f) => f.kind === 'work')).toBe(false);
  });

  it('is bounded and round-trips through JSON, dropping malformed data', () => {
    const m = new FactMemory(3);
    ['jazz', 'tea', 'chess', 'rain'].forEach((x, i) => m.observe(`I like ${x}.`, i));
    expect(m.all().map((f) => f.value)).toEqual(['tea', 'chess', 'rain']);
    const back = FactMemory.fromJSON(JSON.parse(JSON.stringify(m.toJSON())), 3);
    expect(back.all()).toEqual(m.all());
    expect(FactMemory.fromJSON({ version: 1, facts: [{ kind: 'bogus', key: '', value: 'x', at: 0 }] }).all()).toEqual([]);
  });
});

describe('tunables', () => {
  it('validates type and limits, applies at use time, and resets', () => {
    expect(setTunable('engine.endpointSilenceMs', 500)).toEqual({ ok: true });
    expect(engineTunables.endpointSilenceMs).toBe(500);
    expect(setTunable('engine.endpointSilenceMs', 'fast').ok).toBe(false);
    expect(setTunable('engine.vadOn', 2).ok).toBe(false);
    expect(setTunable('engine.onsetFrames', 2.5).ok).toBe(false);
    expect(setTunable('engine.nope', 1).ok).toBe(false);
    expect(setTunable('nosection.x', 1).ok).toBe(false);
    expect(setTunable('engine.bargeRatio', Number.NaN).ok).toBe(false);
    resetTunables('engine');
    expect(getTunable('engine.endpointSilenceMs')).toBe(640);
  });
});

describe('time awareness', () => {
  it('formats the local date and time for the prompt', () => {
    const text = formatLocalDateTime(new Date(Date.UTC(2026, 2, 3, 14, 5)), 'en-GB', 'UTC');
    // ICU versions differ in commas; the parts the model needs must be there.
    for (const part of ['Tuesday', '3 March 2026', '14:05', '(UTC)']) expect(text).toContain(part);
  });
});
