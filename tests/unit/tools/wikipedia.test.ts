import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createWikipediaClient, firstSentence } from '../../../core/tools/wikipedia';
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

const UA = 'Sidetalk/0.1.0 (https://example.org/sidetalk; sidetalk@example.org)';
const SUMMARY = '/wiki/en/api/rest_v1/page/summary/Ada_Lovelace';

function client(opts: { timeoutMs?: number; ttlMs?: number } = {}) {
  const clock = fakeClock();
  const c = createWikipediaClient({
    fetch: (u, i) => fetch(u, i),
    clock,
    userAgent: UA,
    baseUrl: (lang) => `${server.baseUrl}/wiki/${lang}`,
    ...opts,
  });
  return { c, clock };
}

describe('firstSentence', () => {
  it('stops at the first sentence and caps length', () => {
    expect(firstSentence('J. R. R. Tolkien was a writer. He wrote books.')).toBe('J. R. R. Tolkien was a writer.');
    const long = `${'word '.repeat(100)}end.`;
    expect(firstSentence(long, 40).length).toBeLessThanOrEqual(41);
    expect(firstSentence(long, 40).endsWith('…')).toBe(true);
  });
});

describe('Wikipedia client against the local REST stand-in', () => {
  it('returns a card with link and image, speaks the first sentence, sends Api-User-Agent', async () => {
    const r = await client().c.lookup({ topic: 'Ada Lovelace' });
    expect(r.ok).toBe(true);
    if (!r.ok || r.card.kind !== 'wikipedia') throw new Error('expected an article card');
    expect(r.card.url).toBe('https://en.wikipedia.org/wiki/Ada_Lovelace');
    expect(r.card.imageUrl).toMatch(/^https:\/\/upload\.wikimedia\.org\/.*330px-Ada_Lovelace_portrait\.jpg$/);
    expect(r.card.description).toBe('English mathematician (1815–1852)');
    expect(r.speech).toBe(
      "Augusta Ada King, Countess of Lovelace, was an English mathematician and writer chiefly known for her work on Charles Babbage's proposed mechanical general-purpose computer, the Analytical Engine.",
    );
    expect(server.requests[0]!.headers['api-user-agent']).toBe(UA);
    expect(server.requests[0]!.path).toBe(SUMMARY);
  });

  it('a card picture only ever comes from Wikimedia’s image host (the side panel loads it)', async () => {
    const summary = JSON.parse(
      JSON.stringify((await (await fetch(`${server.baseUrl}${SUMMARY}`)).json()) as Record<string, unknown>),
    ) as Record<string, { source: string } | undefined>;
    for (const [source, expected] of [
      ['https://tracker.example/pixel.png', null],
      ['http://upload.wikimedia.org/a.jpg', null],
      ['https://upload.wikimedia.org.evil.example/a.jpg', null],
      ['https://me@upload.wikimedia.org/a.jpg', null],
      ['not a url', null],
      ['https://upload.wikimedia.org/wikipedia/commons/a.jpg', 'https://upload.wikimedia.org/wikipedia/commons/a.jpg'],
    ] as const) {
      server.script(SUMMARY, [{ json: { ...summary, thumbnail: { ...summary.thumbnail, source }, originalimage: undefined } }]);
      const r = await client().c.lookup({ topic: 'Ada Lovelace' });
      if (!r.ok || r.card.kind !== 'wikipedia') throw new Error('expected an article card');
      expect(r.card.imageUrl, source).toBe(expected);
    }
  });

  it('capitalises the first letter of a lower-case topic', async () => {
    const r = await client().c.lookup({ topic: 'ada Lovelace?' });
    expect(r.ok).toBe(true);
    expect(server.requests.map((q) => q.path)).toEqual([SUMMARY]);
  });

  it('caches within the TTL and refetches after it', async () => {
    const { c, clock } = client({ ttlMs: 60_000 });
    await c.lookup({ topic: 'Ada Lovelace' });
    await c.lookup({ topic: 'ada lovelace' });
    expect(server.requests).toHaveLength(1);
    clock.advance(61_000);
    await c.lookup({ topic: 'Ada Lovelace' });
    expect(server.requests).toHaveLength(2);
  });

  it('turns a disambiguation page into choices', async () => {
    const r = await client().c.lookup({ topic: 'Mercury' });
    expect(r.ok).toBe(true);
    if (!r.ok || r.card.kind !== 'wikipedia-choices') throw new Error('expected choices');
    expect(r.card.options.map((o) => o.title)).toEqual(['Mercury (planet)', 'Mercury (element)', 'Freddie Mercury']);
    expect(r.speech).toBe(
      '"Mercury" could mean several things, like Mercury (planet), Mercury (element) or Freddie Mercury. Which one do you mean?',
    );
  });

  it('falls back to search when the title is missing, but only to a related hit', async () => {
    const r = await client().c.lookup({ topic: 'Countess Lovelace' });
    expect(r.ok && r.card.kind === 'wikipedia' && r.card.title).toBe('Ada Lovelace');
    expect(server.requests.map((q) => q.path)).toEqual([
      '/wiki/en/api/rest_v1/page/summary/Countess_Lovelace',
      '/wiki/en/w/rest.php/v1/search/page',
      SUMMARY,
    ]);
    server.requests.length = 0;
    const r2 = await client().c.lookup({ topic: 'how far is the moon' });
    expect(r2).toMatchObject({ ok: false, kind: 'not_found' });
    expect(server.requests).toHaveLength(2); // summary 404, search with an unrelated film: no third request
  });

  it('reports not_found when neither title nor search finds anything', async () => {
    const r = await client().c.lookup({ topic: 'Qwzx plorb' });
    expect(r).toMatchObject({ ok: false, kind: 'not_found', speech: "I couldn't find a Wikipedia article about Qwzx plorb." });
  });

  it('honours Retry-After on 429 and then answers', async () => {
    server.script(SUMMARY, [
      { status: 429, headers: { 'Retry-After': '3' }, json: { httpCode: 429, httpReason: 'Too Many Requests' } },
    ]);
    const { c, clock } = client();
    const r = await c.lookup({ topic: 'Ada Lovelace' });
    expect(r.ok).toBe(true);
    expect(clock.sleeps).toEqual([3000]);
  });

  it('after an unwaitable 429 it cools down without sending more requests until Retry-After passes', async () => {
    server.script(SUMMARY, [{ status: 429, headers: { 'Retry-After': '120' }, json: {} }]);
    const { c, clock } = client();
    expect(await c.lookup({ topic: 'Ada Lovelace' })).toMatchObject({ ok: false, kind: 'rate_limited' });
    expect(await c.lookup({ topic: 'Ada Lovelace' })).toMatchObject({ ok: false, kind: 'rate_limited' });
    expect(server.requests).toHaveLength(1);
    clock.advance(121_000);
    expect((await c.lookup({ topic: 'Ada Lovelace' })).ok).toBe(true);
    expect(server.requests).toHaveLength(2);
  });

  it('serialises requests: the second starts only after the first finished', async () => {
    server.script(SUMMARY, [
      { delayMs: 150, json: (await import('../../fixtures/apis/fake-api-server')).fixture('wiki-summary-ada-lovelace.json') },
    ]);
    const { c } = client();
    const order: string[] = [];
    const a = c.lookup({ topic: 'Ada Lovelace' }).then(() => order.push('ada'));
    const b = c.lookup({ topic: 'Qwzx' }).then(() => order.push('qwzx'));
    await Promise.all([a, b]);
    expect(order).toEqual(['ada', 'qwzx']);
    // The second look-up's first request arrived after the first look-up's only request.
    expect(server.requests.map((q) => q.path)[0]).toBe(SUMMARY);
    expect(server.requests.map((q) => q.path)[1]).toBe('/wiki/en/api/rest_v1/page/summary/Qwzx');
  });

  it('maps 5xx, malformed JSON, wrong shape and timeout', async () => {
    server.script(SUMMARY, [{ status: 502, body: '<html>Bad gateway</html>', headers: { 'content-type': 'text/html' } }]);
    expect(await client().c.lookup({ topic: 'Ada Lovelace' })).toMatchObject({ ok: false, kind: 'server_error' });
    server.script(SUMMARY, [{ body: '{"type":"standard","title":' }]);
    expect(await client().c.lookup({ topic: 'Ada Lovelace' })).toMatchObject({ ok: false, kind: 'malformed' });
    server.script(SUMMARY, [{ json: { title: 'Ada Lovelace' } }]);
    expect(await client().c.lookup({ topic: 'Ada Lovelace' })).toMatchObject({ ok: false, kind: 'malformed' });
    server.script(SUMMARY, [{ delayMs: 3_000, json: {} }]);
    expect(await client({ timeoutMs: 100 }).c.lookup({ topic: 'Ada Lovelace' })).toMatchObject({ ok: false, kind: 'timeout' });
  });

  it('refuses an empty topic without a request', async () => {
    expect(await client().c.lookup({ topic: 'the' })).toMatchObject({ ok: false, kind: 'invalid_input' });
    expect(server.requests).toHaveLength(0);
  });
});
