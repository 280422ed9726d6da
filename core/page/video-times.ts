// Where in a video a page answer came from, to the stretch of seconds (docs/tools.md, "Videos"). A video's captions
// are sections of ~30 s headed by their start ("At 12:18"); inside a section, a time mark "(12:30)" stands before the
// cue that begins each ~10 s stretch (captions.ts), so the model can say "at 12:30" and a source can seek there rather
// than to the section's start. After the answer, each video source takes, in this order: a time the answer names that
// lies in its section; else the start of the stretch that shares the most words with the answer and the question; else
// the section's start. Pure.
import { searchTerms } from './bm25';
import { formatClock } from './places';

/** A time mark as captions.ts writes it inside a section: "(12:30)", "(1:02:34)". */
const MARK = /\((?:(\d{1,3}):)?(\d{1,2}):(\d{2})\)/g;
/** A clock time in running text: "12:34", "at 1:02:34"; not a ratio like "3:1" (seconds have two digits). */
const CLOCK = /(?<![\d:])(?:(\d{1,3}):)?(\d{1,2}):([0-5]\d)(?![\d:])/g;

const secondsOf = (h: string | undefined, m: string, s: string) => Number(h ?? 0) * 3_600 + Number(m) * 60 + Number(s);

/** "(12:30)": the mark captions.ts puts before a cue. */
export function timeMark(seconds: number): string {
  return `(${formatClock(seconds)})`;
}

export interface Stretch {
  seconds: number;
  text: string;
}

/** A section's text cut at its time marks: the text before the first mark belongs to the section's start. */
export function stretchesOf(text: string, sectionStart: number): Stretch[] {
  const out: Stretch[] = [];
  let at = sectionStart;
  let from = 0;
  for (const m of text.matchAll(MARK)) {
    out.push({ seconds: at, text: text.slice(from, m.index) });
    at = secondsOf(m[1], m[2]!, m[3]!);
    from = m.index + m[0].length;
  }
  out.push({ seconds: at, text: text.slice(from) });
  return out.filter((s) => s.text.trim());
}

/** Every clock time an answer names, in seconds, in the order it names them. */
export function timesNamed(answer: string): number[] {
  return [...answer.matchAll(CLOCK)].map((m) => secondsOf(m[1], m[2]!, m[3]!));
}

/**
 * The second a source in a section [start, end) should seek to for this answer (see the file's comment). `end` is
 * the next section's start (Infinity for the last section).
 */
export function secondInSection(
  section: { start: number; end: number; stretches: readonly Stretch[] },
  answer: string,
  question: string,
): number {
  const named = timesNamed(answer).find((t) => t >= section.start && t < section.end);
  if (named !== undefined) return named;
  const wanted = new Set([...searchTerms(answer), ...searchTerms(question)]);
  let best = section.start;
  let bestShared = 0;
  for (const s of section.stretches) {
    const shared = new Set(searchTerms(s.text).filter((t) => wanted.has(t))).size;
    if (shared > bestShared) {
      best = s.seconds;
      bestShared = shared;
    }
  }
  return best;
}
