// A video's caption track as page text (docs/tools.md, "Videos"): the timed-text formats YouTube serves are parsed
// into cues (start, text), and cues are grouped into sections of about `sectionSeconds`, each headed by its start
// time ("At 12:34"), so a quoted part says when it is said and a source can seek the video there. Pure.
import { z } from 'zod';
import { placeHeading } from './places';
import { timeMark } from './video-times';

export interface Cue {
  /** Seconds from the start of the video. */
  start: number;
  text: string;
}

// json3 (`&fmt=json3`): { events: [{ tStartMs, dDurationMs, segs: [{ utf8, tOffsetMs }] }] }; events without segs
// set up windows, and a segment of "\n" alone only breaks the line on screen.
const Json3Schema = z.object({
  events: z.array(
    z.object({
      tStartMs: z.number().nonnegative().optional(),
      segs: z.array(z.object({ utf8: z.string().optional() })).optional(),
    }),
  ),
});

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e: string) => {
    if (e[0] === '#') {
      const code = e[1]?.toLowerCase() === 'x' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : m;
    }
    return ENTITIES[e.toLowerCase()] ?? m;
  });
}

const clean = (text: string) => text.replace(/\s+/g, ' ').trim();

function parseJson3(body: string): Cue[] | null {
  let raw: unknown;
  try {
    raw = JSON.parse(body);
  } catch {
    return null;
  }
  const parsed = Json3Schema.safeParse(raw);
  if (!parsed.success) return null;
  return parsed.data.events.flatMap((e) => {
    const text = clean((e.segs ?? []).map((s) => s.utf8 ?? '').join(''));
    return text && e.tStartMs !== undefined ? [{ start: e.tStartMs / 1_000, text }] : [];
  });
}

const attr = (attrs: string, name: string): number | null => {
  const m = new RegExp(`\\b${name}="([\\d.]+)"`).exec(attrs);
  return m ? Number(m[1]) : null;
};

/**
 * The XML formats: format 3 / srv3 (`<p t="ms" d="ms">` with word `<s>` elements inside), srv1 or the older default
 * (`<text start="s" dur="s">`), and srv2 (`<text t="ms" d="ms">`). Tags inside a cue are dropped, entities decoded.
 */
function parseXml(body: string): Cue[] | null {
  if (!/<(?:timedtext|transcript)\b/.test(body)) return null;
  const legacy = /<transcript\b/.test(body);
  const cues: Cue[] = [];
  for (const m of body.matchAll(/<(p|text)\b([^>]*)>([\s\S]*?)<\/\1>/g)) {
    const [, tag, attrs = '', inner = ''] = m;
    const ms = attr(attrs, 't');
    const s = tag === 'text' ? attr(attrs, 'start') : null;
    const start = s ?? (ms !== null ? ms / 1_000 : null);
    // The older <transcript> format escapes its text twice and its markup once (&lt;font…&gt;); srv3 escapes once.
    const once = decodeEntities(inner.replace(/<[^>]*>/g, ''));
    const text = clean(legacy ? decodeEntities(once.replace(/<[^>]*>/g, '')) : once);
    if (start !== null && text) cues.push({ start, text });
  }
  return cues;
}

/** Cues from a timed-text response in json3 or one of the XML formats, by start time; null when it is neither. */
export function parseCaptions(body: string): Cue[] | null {
  const trimmed = body.trim();
  const cues = trimmed.startsWith('{') ? parseJson3(trimmed) : parseXml(trimmed);
  return cues && [...cues].sort((a, b) => a.start - b.start);
}

/**
 * Page text for the captions: the title as the top heading, then one section per `sectionSeconds` or so, headed by
 * the start of its first cue. A section never splits a cue, and a cue's words stay whole. Inside a section, the first
 * cue at least `markSeconds` after the last time named gets a time mark, "(12:30)" (video-times.ts), so an answer can
 * name the second, not only the section (0: no marks).
 */
export function captionPageText(title: string, cues: readonly Cue[], sectionSeconds: number, markSeconds = 0): string {
  const parts = [`# ${title.replace(/\s+/g, ' ').trim() || 'Video'}`];
  let start = -Infinity;
  let marked = -Infinity;
  let words: string[] = [];
  const flush = () => {
    if (words.length) parts.push(`## ${placeHeading({ seconds: start })}`, words.join(' ').replace(/^(#{1,6}\s)/, ' $1'));
    words = [];
  };
  for (const cue of cues) {
    if (cue.start - start >= sectionSeconds) {
      flush();
      start = marked = cue.start;
    } else if (markSeconds > 0 && Math.floor(cue.start) - Math.floor(marked) >= markSeconds) {
      words.push(timeMark(cue.start));
      marked = cue.start;
    }
    words.push(cue.text);
  }
  flush();
  return parts.join('\n\n');
}
