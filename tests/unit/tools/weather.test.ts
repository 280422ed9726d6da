import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createWeatherClient, placeCandidates, unitsForLocale } from '../../../core/tools/weather';
import { startFakeApiServer, type FakeApiServer } from '../../fixtures/apis/fake-api-server';
import { fakeClock } from './fake-clock';

let server: FakeApiServer;
beforeAll(async () => {
  server = await startFakeApiServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
});

function client(timeoutMs?: number) {
  const clock = fakeClock();
  const c = createWeatherClient({
    fetch: (u, i) => fetch(u, i),
    clock,
    geocodingUrl: `${server.baseUrl}/geo/v1/search`,
    forecastUrl: `${server.baseUrl}/forecast/v1/forecast`,
    timeoutMs,
  });
  return { c, clock };
}

describe('placeCandidates', () => {
  it('never offers bare function words', () => {
    expect(placeCandidates('the')).toEqual([]);
    expect(placeCandidates('it today')).toEqual([]);
    expect(placeCandidates('the weather')).toEqual([]);
  });
  it('backs off trailing tokens, longest first', () => {
    expect(placeCandidates('Berlin Mitte tomorrow please')).toEqual(['Berlin Mitte', 'Berlin']);
    expect(placeCandidates('the Hague')).toEqual(['Hague']);
  });
});

describe('unitsForLocale', () => {
  it('maps regions to units', () => {
    expect(unitsForLocale('en-US')).toEqual({ temperature: 'fahrenheit', windSpeed: 'mph' });
    expect(unitsForLocale('de-DE')).toEqual({ temperature: 'celsius', windSpeed: 'kmh' });
    expect(unitsForLocale('en-GB')).toEqual({ temperature: 'celsius', windSpeed: 'mph' });
    expect(unitsForLocale('fr')).toEqual({ temperature: 'celsius', windSpeed: 'kmh' });
  });
});

describe('weather client against the local Open-Meteo stand-in', () => {
  it('geocodes, fetches and speaks current weather with US units', async () => {
    const { c } = client();
    const r = await c.getWeather({ location: 'Berlin', locale: 'en-US' });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.card.place).toBe('Berlin, Land Berlin, Germany');
    expect(r.card.units).toEqual({ temperature: '°F', windSpeed: 'mph' });
    expect(r.card.current.description).toBe('partly cloudy');
    expect(r.card.daily).toHaveLength(3);
    expect(r.card.attribution).toContain('Open-Meteo');
    expect(r.speech).toBe("In Berlin it's 12 degrees and partly cloudy. Today's high is 15, low 4.");
    const fc = server.requests.find((q) => q.path === '/forecast/v1/forecast')!;
    expect(fc.query.get('temperature_unit')).toBe('fahrenheit');
    expect(fc.query.get('wind_speed_unit')).toBe('mph');
    expect(fc.query.get('latitude')).toBe('52.52437');
  });

  it('speaks tomorrow when asked', async () => {
    const r = await client().c.getWeather({ location: 'Berlin', locale: 'de-DE', when: 'tomorrow' });
    expect(r.ok && r.speech).toBe('Tomorrow in Berlin: light rain, high 10, low 3, 65 percent chance of rain.');
  });

  it('backs off trailing tokens until a place is found', async () => {
    const r = await client().c.getWeather({ location: 'Berlin this weekend maybe', locale: 'en-GB' });
    expect(r.ok).toBe(true);
    const names = server.requests.filter((q) => q.path === '/geo/v1/search').map((q) => q.query.get('name'));
    // 'Berlin this weekend' is skipped: trailing function words are stripped, leaving 'Berlin'.
    expect(names).toEqual(['Berlin this weekend maybe', 'Berlin']);
  });

  it('does not geocode "the" at all', async () => {
    const r = await client().c.getWeather({ location: 'the', locale: 'en-US' });
    expect(r).toMatchObject({ ok: false, kind: 'invalid_input' });
    expect(server.requests).toHaveLength(0);
  });

  it('reports not_found for an unknown place', async () => {
    const r = await client().c.getWeather({ location: 'Xyzzyville', locale: 'en-US' });
    expect(r).toMatchObject({ ok: false, kind: 'not_found', speech: "I couldn't find that place." });
  });

  it('retries a 429 after Retry-After, then succeeds', async () => {
    server.script('/forecast/v1/forecast', [
      { status: 429, headers: { 'Retry-After': '2' }, json: { error: true, reason: 'Too many requests' } },
    ]);
    const { c, clock } = client();
    const r = await c.getWeather({ location: 'Berlin', locale: 'en-US' });
    expect(r.ok).toBe(true);
    expect(clock.sleeps).toEqual([2000]);
    expect(server.requests.filter((q) => q.path === '/forecast/v1/forecast')).toHaveLength(2);
  });

  it('gives up on a Retry-After too long to wait', async () => {
    server.script('/forecast/v1/forecast', [{ status: 429, headers: { 'Retry-After': '3600' }, json: { error: true } }]);
    const { c, clock } = client();
    const r = await c.getWeather({ location: 'Berlin', locale: 'en-US' });
    expect(r).toMatchObject({ ok: false, kind: 'rate_limited' });
    expect(clock.sleeps).toEqual([]);
    expect(!r.ok && r.speech).toMatch(/slow down/);
  });

  it('maps 5xx to server_error after retrying 503', async () => {
    server.script('/geo/v1/search', [{ status: 500, json: { error: true, reason: 'internal' } }]);
    const r = await client().c.getWeather({ location: 'Berlin', locale: 'en-US' });
    expect(r).toMatchObject({ ok: false, kind: 'server_error' });
    server.script('/forecast/v1/forecast', [{ status: 503 }, { status: 503 }, { status: 503 }]);
    const { c, clock } = client();
    const r2 = await c.getWeather({ location: 'Berlin', locale: 'en-US' });
    expect(r2).toMatchObject({ ok: false, kind: 'server_error' });
    expect(clock.sleeps).toEqual([1000, 2000]);
  });

  it('maps malformed JSON and a wrong shape to malformed', async () => {
    server.script('/forecast/v1/forecast', [{ body: '{"current": {"temperature_2m": 1' }]);
    expect(await client().c.getWeather({ location: 'Berlin', locale: 'en-US' })).toMatchObject({ ok: false, kind: 'malformed' });
    server.script('/forecast/v1/forecast', [{ json: { timezone: 'Europe/Berlin', current: {} } }]);
    expect(await client().c.getWeather({ location: 'Berlin', locale: 'en-US' })).toMatchObject({ ok: false, kind: 'malformed' });
  });

  it('times out a slow server through the abort signal', async () => {
    server.script('/geo/v1/search', [{ delayMs: 3_000, json: {} }]);
    const r = await client(100).c.getWeather({ location: 'Berlin', locale: 'en-US' });
    expect(r).toMatchObject({ ok: false, kind: 'timeout' });
  });

  it('reports cancelled when the caller aborts (barge-in)', async () => {
    server.script('/geo/v1/search', [{ delayMs: 3_000, json: {} }]);
    const ac = new AbortController();
    const p = client().c.getWeather({ location: 'Berlin', locale: 'en-US', signal: ac.signal });
    ac.abort();
    expect(await p).toMatchObject({ ok: false, kind: 'cancelled' });
  });

  it('reports offline when nothing listens and when the connection drops', async () => {
    const c = createWeatherClient({
      fetch: (u, i) => fetch(u, i),
      clock: fakeClock(),
      geocodingUrl: 'http://127.0.0.1:9/v1/search',
    });
    expect(await c.getWeather({ location: 'Berlin', locale: 'en-US' })).toMatchObject({ ok: false, kind: 'offline' });
    server.script('/geo/v1/search', [{ hangUp: true }]);
    expect(await client().c.getWeather({ location: 'Berlin', locale: 'en-US' })).toMatchObject({ ok: false, kind: 'offline' });
  });
});
