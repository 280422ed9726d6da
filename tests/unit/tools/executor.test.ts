import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolExecutor, toolResultMessage } from '../../../core/tools/executor';
import { routeUtterance } from '../../../core/tools/router';
import { createTimeTool } from '../../../core/tools/time';
import { createWeatherClient } from '../../../core/tools/weather';
import { createWikipediaClient } from '../../../core/tools/wikipedia';
import { startFakeApiServer, type FakeApiServer } from '../../fixtures/apis/fake-api-server';
import { fakeClock } from './fake-clock';

let server: FakeApiServer;
beforeAll(async () => {
  server = await startFakeApiServer();
});
afterAll(() => server.close());

function executor() {
  const clock = fakeClock();
  const f = (u: string, i?: RequestInit) => fetch(u, i);
  const weather = createWeatherClient({
    fetch: f,
    clock,
    geocodingUrl: `${server.baseUrl}/geo/v1/search`,
    forecastUrl: `${server.baseUrl}/forecast/v1/forecast`,
  });
  const wikipedia = createWikipediaClient({
    fetch: f,
    clock,
    userAgent: 'Sidetalk/test',
    baseUrl: (l) => `${server.baseUrl}/wiki/${l}`,
  });
  const time = createTimeTool({ clock, defaultTimeZone: 'UTC', geocode: weather.geocode });
  return createToolExecutor({ weather, wikipedia, time, locale: 'en-US' });
}

describe('router → executor, end to end against the local stand-ins', () => {
  it('answers spoken asks with cards', async () => {
    const run = executor();
    const go = async (text: string) => {
      const r = routeUtterance({ text, source: 'user' });
      if (r.kind !== 'tool') throw new Error(`not routed: ${text}`);
      return run(r.call);
    };
    expect(await go('weather in Berlin')).toMatchObject({ ok: true, card: { kind: 'weather', units: { temperature: '°F' } } });
    expect(await go('who was Ada Lovelace')).toMatchObject({ ok: true, card: { kind: 'wikipedia', title: 'Ada Lovelace' } });
    expect(await go('what is 0.1 plus 0.2')).toMatchObject({ ok: true, card: { result: '0.3' } });
    expect(await go('what time is it in Berlin')).toMatchObject({ ok: true, card: { timeZone: 'Europe/Berlin' } });
  });

  it('formats results for the tool message the LLM sees', async () => {
    const run = executor();
    const ok = toolResultMessage(await run({ name: 'calculate', arguments: { expression: '1/3' } }));
    expect(JSON.parse(ok)).toEqual({
      ok: true,
      say: "That's about 0.3333.",
      facts: { result: '≈ 0.3333333333', fraction: '1/3' },
    });
    const bad = toolResultMessage(await run({ name: 'get_weather', arguments: { location: 'Xyzzyville' } }));
    expect(JSON.parse(bad)).toEqual({ ok: false, error: 'not_found', say: "I couldn't find that place." });
  });
});
