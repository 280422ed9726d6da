import { describe, expect, it } from 'vitest';
import { createTimeTool } from '../../../core/tools/time';
import { fakeClock } from './fake-clock';

// 2026-03-03 13:15 UTC
const clock = fakeClock(Date.UTC(2026, 2, 3, 13, 15));

describe('time tool', () => {
  it('tells local time in the default zone', async () => {
    const t = createTimeTool({ clock, defaultTimeZone: 'Europe/Berlin' });
    const r = await t.getTime({ locale: 'en-US' });
    expect(r).toMatchObject({
      ok: true,
      card: { timeZone: 'Europe/Berlin', place: null, time: '2:15 PM', date: 'Tuesday, March 3, 2026' },
    });
    expect(r.ok && r.speech).toBe("It's 2:15 PM, Tuesday, March 3, 2026.");
  });

  it('tells the time in a named city from the table, crossing midnight', async () => {
    const t = createTimeTool({ clock, defaultTimeZone: 'UTC' });
    const r = await t.getTime({ location: 'Tokyo', locale: 'en-US' });
    expect(r).toMatchObject({ ok: true, card: { timeZone: 'Asia/Tokyo', time: '10:15 PM' } });
    const ny = await t.getTime({ location: 'new york', locale: 'en-GB' });
    expect(ny).toMatchObject({ ok: true, card: { timeZone: 'America/New_York', time: '8:15', date: 'Tuesday, 3 March 2026' } });
    // Auckland is UTC+13 in March: already the next day.
    const akl = await t.getTime({ location: 'Auckland', locale: 'en-US' });
    expect(akl).toMatchObject({ ok: true, card: { time: '2:15 AM', date: 'Wednesday, March 4, 2026' } });
  });

  it('uses the geocoder for other places and reports unknown ones', async () => {
    const asked: string[] = [];
    const t = createTimeTool({
      clock,
      defaultTimeZone: 'UTC',
      geocode: async (place) => {
        asked.push(place);
        return place === 'Reykjavik'
          ? { ok: true, place: { name: 'Reykjavík', timezone: 'Atlantic/Reykjavik' } }
          : { ok: false, kind: 'not_found' };
      },
    });
    expect(await t.getTime({ location: 'Reykjavik', locale: 'en-US' })).toMatchObject({
      ok: true,
      card: { place: 'Reykjavík', time: '1:15 PM' },
    });
    expect(await t.getTime({ location: 'Atlantis', locale: 'en-US' })).toMatchObject({ ok: false, kind: 'not_found' });
    expect(asked).toEqual(['Reykjavik', 'Atlantis']);
  });
});
