// Deterministic intent rules on the USER's own words, for the common asks that should not wait for the LLM:
// weather, Wikipedia, maths, time/date and questions about the current page. Anything else goes to the LLM.
// Page text is data, never a command: with source 'page' the router always answers `none`.
import { evaluate } from './calculator';
import { validateToolCall } from './definitions';
import type { ToolCall } from './types';
import { placeCandidates } from './weather';

export type Route =
  | { kind: 'tool'; call: ToolCall }
  | { kind: 'page'; mode: 'summary' | 'question'; question: string }
  | SelectionRoute
  | { kind: 'none' };

/** "Explain this", "what does this mean", "translate this (into X)": about the text selected on the page, if any. */
export interface SelectionRoute {
  kind: 'selection';
  task: 'explain' | 'meaning' | 'translate';
  /** The language asked for ("into French"), as said; null when none was named. */
  language: string | null;
  question: string;
}

export interface RouteInput {
  text: string;
  /** Who wrote the text. Only 'user' text may route; page text is quoted data. */
  source: 'user' | 'page';
}

const NONE: Route = { kind: 'none' };

/** Words that, on their own, name nothing worth looking up. */
const DEICTIC =
  /^(?:it|this|that|these|those|he|she|they|him|her|them|you|your\b.*|my\b.*|me|i|we|us|up|going on|happening|wrong|new|the (?:matter|deal|point|time|date|weather)|the answer)$/;

function clean(text: string): string {
  return text
    .replace(/[’‘]/g, "'")
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^(?:(?:hey|ok(?:ay)?|so|um+|uh+|please|sidetalk)[,!]?\s+)+/i, '')
    .replace(/[?!.]+$/, '')
    .replace(/,?\s*please$/i, '')
    .trim();
}

function tool(name: string, args: Record<string, unknown>): Route {
  const v = validateToolCall(name, args);
  return v.ok ? { kind: 'tool', call: v.call } : NONE;
}

function pageRoute(t: string): Route | null {
  // A PDF and a video's captions are read as the page too (docs/tools.md, "PDFs", "Videos").
  const onPage = /\b(?:this|the|current) (?:page|article|site|website|web ?page|post|story|document|tab|text|pdf|video)\b/i;
  if (
    /^(?:summari[sz]e|sum up|tl;?dr|give me (?:a|the) (?:summary|gist|tl;?dr))\b(?: (?:this|it|that|the (?:page|article)))?/i.test(
      t,
    ) &&
    (onPage.test(t) || /^(?:summari[sz]e|sum up|tl;?dr)(?: (?:this|it|that))?$/i.test(t) || /^give me/i.test(t))
  ) {
    return { kind: 'page', mode: 'summary', question: t };
  }
  if (
    /^what(?:'s| is) (?:this|the|that) (?:page|article|site|website|post|story|document|tab|pdf|video)(?: (?:about|saying))?$/i.test(
      t,
    )
  ) {
    return { kind: 'page', mode: 'summary', question: t };
  }
  if (/^what(?:'s| is) (?:this|it) about$/i.test(t)) return { kind: 'page', mode: 'summary', question: t };
  const says =
    /^(?:what|how) does (?:it|this|this page|the page|the article|this article|the site|the text|the author) (?:say|mention|claim|write)(?: about)? (.+)$/i.exec(
      t,
    );
  if (says) return { kind: 'page', mode: 'question', question: t };
  if (
    onPage.test(t) &&
    /\b(?:in|on|from|according to) (?:this|the|current) (?:page|article|site|website|web ?page|post|document|tab|text|pdf|video)\b/i.test(
      t,
    )
  ) {
    return { kind: 'page', mode: 'question', question: t };
  }
  return null;
}

/** What "this" can be in a selection ask: the selection itself, or a word for a piece of text. */
const SELECTED =
  "(?:this|that|these|those|it|the selection|the selected text|what i(?:'ve| have)? selected|(?:this|that|the) (?:word|words|sentence|sentences|paragraph|passage|bit|part|phrase|line|lines|quote|term|selection|selected (?:text|part|bit)))";

function selectionRoute(t: string): Route | null {
  const polite = "(?:(?:can|could|would|will) you |i'd like you to |help me )?";
  const explain = new RegExp(
    `^${polite}(explain|define|clarify) ${SELECTED}(?: (?:to me|for me|simply|in (?:simple|plain) (?:words|terms|english)))*$`,
    'i',
  ).exec(t);
  if (explain) return { kind: 'selection', task: 'explain', language: null, question: t };
  if (
    new RegExp(
      `^(?:what does ${SELECTED} mean|what(?:'s| is) the meaning of ${SELECTED}|what(?:'s| is) ${SELECTED} (?:supposed to )?mean)$`,
      'i',
    ).test(t)
  )
    return { kind: 'selection', task: 'meaning', language: null, question: t };
  const translate = new RegExp(`^${polite}translate ${SELECTED}(?: (?:to|into|in) ([\\p{L}][\\p{L} -]{1,30}))?$`, 'iu').exec(t);
  if (translate) return { kind: 'selection', task: 'translate', language: translate[1]?.trim() ?? null, question: t };
  return null;
}

function weatherRoute(t: string): Route | null {
  if (!/\b(?:weather|forecast|temperature|rain(?:ing|y)?|snow(?:ing)?|sunny|umbrella|how (?:hot|cold|warm))\b/i.test(t))
    return null;
  const when = /\btomorrow\b/i.test(t) ? 'tomorrow' : /\btoday|tonight\b/i.test(t) ? 'today' : undefined;
  const m = /\b(?:in|at|for|near) (?!the (?:morning|afternoon|evening)\b)([\p{L}][\p{L}\p{M}'., -]*)$/iu.exec(t);
  const place = m?.[1]
    ?.replace(/\b(?:today|tonight|tomorrow|right now|now|this (?:week(?:end)?|morning|afternoon|evening)|like|outside)\b/gi, '')
    .replace(/\s+/g, ' ')
    .replace(/[ ,.]+$/, '')
    .trim();
  // No usable place: the LLM asks (or the engine uses a saved home location); never fall through to Wikipedia.
  if (!place || placeCandidates(place).length === 0) return NONE;
  return tool('get_weather', when ? { location: place, when } : { location: place });
}

function timeRoute(t: string): Route | null {
  const time =
    /^(?:what(?:'s| is)?|tell me) (?:the )?(?:current )?(?:local )?time(?: is it)?(?: (?:right )?now)?(?: (?:in|at) (.+))?$/i.exec(
      t,
    ) ?? /^what time is it(?: (?:right )?now)?(?: (?:in|at) (.+))?$/i.exec(t);
  if (time) return tool('get_time', time[1] ? { location: time[1] } : {});
  if (
    /^(?:what(?:'s| is)? (?:the )?(?:date|day)(?: is it)?(?: today)?|what(?:'s| is) today(?:'s date)?|what day is (?:it|today))$/i.test(
      t,
    )
  ) {
    return tool('get_time', {});
  }
  return null;
}

function mathRoute(t: string): Route | null {
  if (!/\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|twelve|hundred|thousand)\b/i.test(t)) return null;
  try {
    const e = evaluate(t);
    return e.operators > 0 ? tool('calculate', { expression: t }) : null;
  } catch {
    return null;
  }
}

function wikipediaRoute(t: string): Route | null {
  const explicit =
    /^(?:look up|search(?: for)?|find) (.+?) (?:on|in) wikipedia$/i.exec(t) ??
    /^(?:search )?wikipedia(?: for| about)? (.+)$/i.exec(t) ??
    /^what does wikipedia say about (.+)$/i.exec(t);
  const general =
    /^(?:who|what) (?:is|was|are|were) (.+)$/i.exec(t) ??
    /^(?:who's|what's) (.+)$/i.exec(t) ??
    /^tell me (?:something )?about (.+)$/i.exec(t);
  const m = explicit ?? general;
  if (!m?.[1]) return null;
  const topic = m[1].replace(/\s+(?:on|in|from) wikipedia$/i, '').trim();
  if (!topic || DEICTIC.test(topic.toLowerCase())) return null;
  // Open questions ("what is the best way to…") are the LLM's job; a topic is a short noun phrase.
  if (
    !explicit &&
    (topic.split(' ').length > 6 ||
      /\b(?:i|you|we|should|can|could|would|do|does|best|way|difference|meaning of life)\b/i.test(topic))
  )
    return null;
  return tool('wikipedia_lookup', { topic: topic.replace(/^(?:a|an|the) (?=\p{Lu})/u, '') });
}

/**
 * Routes one utterance. Order matters: page questions before Wikipedia ("what is this page about"), and selection asks
 * before Wikipedia ("what is this supposed to mean").
 */
export function routeUtterance(input: RouteInput): Route {
  if (input.source !== 'user') return NONE;
  const t = clean(input.text);
  if (!t || t.length > 300) return NONE;
  return pageRoute(t) ?? selectionRoute(t) ?? weatherRoute(t) ?? timeRoute(t) ?? mathRoute(t) ?? wikipediaRoute(t) ?? NONE;
}
