// Wikipedia look-ups through the REST API: page summary first (exact title), then a title search as a fallback
// that must share a real word with the question (a loose search once answered "how far is the moon" with a film).
// Wikimedia etiquette is built in: an identifying Api-User-Agent, one request at a time, a TTL cache, and a
// cool-down that honours Retry-After after HTTP 429.
import { z } from 'zod';
import { toolTunables } from '../tunables';
import { getJson, type HttpDeps, type JsonOutcome } from './http';
import {
  failureSpeech,
  type Clock,
  type FetchLike,
  type ToolResult,
  type WikipediaCard,
  type WikipediaChoicesCard,
} from './types';

/** The only host a Wikipedia card's picture is loaded from. */
export const WIKIMEDIA_IMAGE_HOST = 'upload.wikimedia.org';

const summarySchema = z.object({
  type: z.string(),
  title: z.string(),
  extract: z.string(),
  description: z.string().nullish(),
  thumbnail: z.object({ source: z.string() }).nullish(),
  originalimage: z.object({ source: z.string() }).nullish(),
  content_urls: z.object({ desktop: z.object({ page: z.string() }) }).nullish(),
});

const searchSchema = z.object({
  pages: z.array(
    z.object({
      key: z.string(),
      title: z.string(),
      description: z.string().nullish(),
    }),
  ),
});

export interface WikipediaClientOptions {
  fetch: FetchLike;
  clock: Clock;
  /** e.g. 'Sidetalk/0.1.0 (https://github.com/…; contact@…)' — required by Wikimedia policy. */
  userAgent: string;
  /** Base URL per language; default https://{lang}.wikipedia.org. Tests point it at a local server. */
  baseUrl?: (lang: string) => string;
  ttlMs?: number;
  maxEntries?: number;
  timeoutMs?: number;
}

export interface WikipediaRequest {
  topic: string;
  lang?: string;
  signal?: AbortSignal;
}

export type WikipediaResult = ToolResult<WikipediaCard | WikipediaChoicesCard>;

const FILLER = new Set('the a an of in on and or to is was what who tell me about wikipedia'.split(' '));

/** First sentence, at most maxChars, cut at a word boundary. */
export function firstSentence(text: string, maxChars: number = toolTunables.maxSpokenChars): string {
  const clean = text.replace(/\s+/g, ' ').trim();
  // A sentence ends at . ! ? followed by a space and a capital, unless the period closes an initial ("J. R.").
  const m = /^(.+?[^\s.]{2}[.!?])\s+(?=[A-Z"“(])/u.exec(clean);
  const sentence = m?.[1] ?? clean;
  if (sentence.length <= maxChars) return sentence;
  const cut = sentence.slice(0, maxChars);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(' '), 1)).replace(/[,;:]$/, '')}…`;
}

function significantWords(s: string): string[] {
  return s
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 1 && !FILLER.has(w));
}

export function createWikipediaClient(opts: WikipediaClientOptions) {
  const deps: HttpDeps = { fetch: opts.fetch, clock: opts.clock };
  const base = opts.baseUrl ?? ((lang: string) => `https://${lang}.wikipedia.org`);
  const ttl = opts.ttlMs ?? toolTunables.wikipediaCacheTtlMs;
  const maxEntries = opts.maxEntries ?? toolTunables.wikipediaCacheMaxEntries;
  const cache = new Map<string, { expires: number; value: WikipediaResult }>();
  let queue: Promise<unknown> = Promise.resolve();
  let blockedUntil = 0;

  /** Serialises every HTTP request of this client; a cool-down after 429 short-circuits without a request. */
  function request(url: string, signal?: AbortSignal): Promise<JsonOutcome> {
    const run = async (): Promise<JsonOutcome> => {
      if (opts.clock.now() < blockedUntil) {
        return { ok: false, kind: 'rate_limited', detail: 'cooling down after 429' };
      }
      const out = await getJson(deps, {
        url,
        signal,
        timeoutMs: opts.timeoutMs,
        headers: { 'Api-User-Agent': opts.userAgent },
      });
      if (!out.ok && out.kind === 'rate_limited') {
        blockedUntil = opts.clock.now() + (out.retryAfterMs ?? toolTunables.defaultRetryWaitMs);
      }
      return out;
    };
    const next = queue.then(run, run);
    queue = next.catch(() => undefined);
    return next;
  }

  const fail = (kind: Parameters<typeof failureSpeech>[0], detail: string, speech?: string): WikipediaResult => ({
    ok: false,
    tool: 'wikipedia_lookup',
    kind,
    detail,
    speech: speech ?? failureSpeech(kind, 'Wikipedia'),
  });

  async function summary(lang: string, title: string, signal?: AbortSignal) {
    const path = encodeURIComponent(title.replace(/ /g, '_'));
    const out = await request(`${base(lang)}/api/rest_v1/page/summary/${path}`, signal);
    if (!out.ok) return out;
    const parsed = summarySchema.safeParse(out.body);
    if (!parsed.success) return { ok: false as const, kind: 'malformed' as const, detail: 'summary shape' };
    return { ok: true as const, page: parsed.data };
  }

  async function search(lang: string, q: string, signal?: AbortSignal) {
    const out = await request(`${base(lang)}/w/rest.php/v1/search/page?q=${encodeURIComponent(q)}&limit=5`, signal);
    if (!out.ok) return out;
    const parsed = searchSchema.safeParse(out.body);
    if (!parsed.success) return { ok: false as const, kind: 'malformed' as const, detail: 'search shape' };
    return { ok: true as const, pages: parsed.data.pages };
  }

  /**
   * The card's picture is drawn by the side panel, so its address is a host the user's browser contacts: only
   * Wikimedia's image host is accepted (README, "Privacy"; docs/security.md, "Host permissions").
   */
  function wikimediaImage(source: string | undefined): string | null {
    if (!source) return null;
    try {
      const url = new URL(source);
      return url.protocol === 'https:' && url.hostname === WIKIMEDIA_IMAGE_HOST && !url.username ? url.href : null;
    } catch {
      return null;
    }
  }

  function toCard(lang: string, p: z.infer<typeof summarySchema>): WikipediaCard {
    return {
      kind: 'wikipedia',
      title: p.title,
      description: p.description ?? null,
      extract: p.extract,
      url: p.content_urls?.desktop.page ?? `https://${lang}.wikipedia.org/wiki/${encodeURIComponent(p.title.replace(/ /g, '_'))}`,
      imageUrl: wikimediaImage(p.thumbnail?.source) ?? wikimediaImage(p.originalimage?.source),
      lang,
    };
  }

  /** Options for a disambiguation page: search hits other than the disambiguation page itself. */
  async function choices(lang: string, topic: string, pageTitle: string, signal?: AbortSignal): Promise<WikipediaResult> {
    const found = await search(lang, topic, signal);
    const options = found.ok
      ? found.pages
          .filter(
            (p) =>
              p.title !== pageTitle &&
              !/disambiguation|topics referred to by the same term/i.test(p.description ?? '') &&
              !/\(disambiguation\)/i.test(p.title),
          )
          .slice(0, 5)
          .map((p) => ({
            title: p.title,
            description: p.description ?? null,
            url: `https://${lang}.wikipedia.org/wiki/${encodeURIComponent(p.key)}`,
          }))
      : [];
    const card: WikipediaChoicesCard = { kind: 'wikipedia-choices', query: topic, options, lang };
    const spoken = options.slice(0, 3).map((o) => o.title);
    const list = spoken.length > 1 ? `${spoken.slice(0, -1).join(', ')} or ${spoken[spoken.length - 1]}` : spoken[0];
    const speech = list
      ? `"${topic}" could mean several things, like ${list}. Which one do you mean?`
      : `"${topic}" could mean several things. Can you be more specific?`;
    return { ok: true, tool: 'wikipedia_lookup', speech, card };
  }

  async function uncachedLookup(lang: string, topic: string, signal?: AbortSignal): Promise<WikipediaResult> {
    const title = topic.charAt(0).toUpperCase() + topic.slice(1);
    let page = await summary(lang, title, signal);
    if (!page.ok && page.kind === 'not_found') {
      const found = await search(lang, topic, signal);
      if (!found.ok) return found.kind === 'not_found' ? fail('not_found', 'search 404') : fail(found.kind, found.detail);
      const words = significantWords(topic);
      const hit = found.pages.find((p) => significantWords(p.title).some((w) => words.includes(w)));
      if (!hit) return fail('not_found', 'no relevant search hit', `I couldn't find a Wikipedia article about ${topic}.`);
      page = await summary(lang, hit.key, signal);
    }
    if (!page.ok) {
      if (page.kind === 'not_found') return fail('not_found', page.detail, `I couldn't find a Wikipedia article about ${topic}.`);
      return fail(page.kind, page.detail);
    }
    if (page.page.type === 'disambiguation') return choices(lang, topic, page.page.title, signal);
    const card = toCard(lang, page.page);
    return { ok: true, tool: 'wikipedia_lookup', speech: firstSentence(card.extract), card };
  }

  async function lookup(req: WikipediaRequest): Promise<WikipediaResult> {
    const topic = req.topic
      .replace(/\s+/g, ' ')
      .trim()
      .replace(/[?.!]+$/, '');
    if (significantWords(topic).length === 0) {
      return fail('invalid_input', 'empty topic', 'What should I look up on Wikipedia?');
    }
    const lang = (req.lang ?? 'en').toLowerCase().replace(/[^a-z-]/g, '') || 'en';
    const key = `${lang}:${topic.toLowerCase()}`;
    const now = opts.clock.now();
    const hit = cache.get(key);
    if (hit && hit.expires > now) return hit.value;
    const value = await uncachedLookup(lang, topic, req.signal);
    if (value.ok) {
      cache.delete(key);
      cache.set(key, { expires: now + ttl, value });
      while (cache.size > maxEntries) cache.delete(cache.keys().next().value as string);
    }
    return value;
  }

  return { lookup };
}

export type WikipediaClient = ReturnType<typeof createWikipediaClient>;
