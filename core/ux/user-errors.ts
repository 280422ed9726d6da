/**
 * What the user reads when something fails: one sentence in plain words and the one thing to do about it. Request
 * names, protocol codes and stack text never reach the page; the raw text goes to the debug log (docs/onboarding.md,
 * "Errors"). Every place the side panel shows an error passes it through `toUserError` first.
 */

/** The one action offered with an error; the side panel turns it into a button. */
export type FixAction = 'download-models' | 'grant-microphone' | 'open-settings' | 'retry' | 'none';

export interface UserError {
  sentence: string;
  action: FixAction;
  /** The raw text, for the debug log only. */
  detail: string;
}

/** What the user was doing, so a failure nobody recognises still gets a sentence about that. */
export type ErrorContext = 'send' | 'listen' | 'download' | 'settings' | 'general';

/** An Error whose message is already the user's sentence (the UI's `request()` rejects with these). */
export class UserFacingError extends Error {
  constructor(readonly user: UserError) {
    super(user.sentence);
    this.name = 'UserFacingError';
  }
}

interface KnownProblem {
  match: RegExp;
  sentence: string;
  action: FixAction;
}

/** Failures the product knows, by what their raw text says; the first match wins. */
const KNOWN: readonly KnownProblem[] = [
  { match: /not downloaded/i, sentence: 'The voice models are not downloaded yet.', action: 'download-models' },
  {
    match: /access is blocked|NotAllowedError|Permission denied|permission was denied/i,
    sentence: 'The microphone is blocked for Sidetalk.',
    action: 'grant-microphone',
  },
  {
    match: /has not been granted|Permission dismissed/i,
    sentence: 'Sidetalk may not use the microphone yet.',
    action: 'grant-microphone',
  },
  { match: /No microphone was found|NotFoundError/, sentence: 'No microphone was found.', action: 'retry' },
  {
    match: /in use by another program|NotReadableError/,
    sentence: 'The microphone is in use by another program.',
    action: 'retry',
  },
  {
    match: /microphone stopped/i,
    sentence: 'The microphone stopped, so listening is off.',
    action: 'grant-microphone',
  },
  { match: /^The voice failed/, sentence: 'The voice could not speak that reply.', action: 'retry' },
  { match: /^The language model failed/, sentence: 'The language model stopped before it finished.', action: 'retry' },
  { match: /QuotaExceeded|quota/i, sentence: 'There is not enough free disk space for the models.', action: 'open-settings' },
  {
    match: /got no answer in \d+ ms|timed out/i,
    sentence: 'Sidetalk took too long to answer.',
    action: 'retry',
  },
  {
    match: /No context answered|Receiving end does not exist|Could not establish connection|message port closed/i,
    sentence: 'Sidetalk’s engine was not running.',
    action: 'retry',
  },
  {
    match: /Failed to fetch|NetworkError|ERR_INTERNET|network error/i,
    sentence: 'Sidetalk could not reach the network.',
    action: 'retry',
  },
];

const GENERIC: Record<ErrorContext, string> = {
  send: 'Sidetalk could not answer that.',
  listen: 'Listening could not start.',
  download: 'The download stopped.',
  settings: 'The settings could not be saved.',
  general: 'Something went wrong.',
};

/** Text that belongs in the debug log, not on the page: request names, protocol codes, stack frames, code. */
const TECHNICAL: readonly RegExp[] = [
  /"[\w-]+\/[\w-]+"/,
  /\b\w*(Error|Exception)\b/,
  /(^|\n)\s*at\s|\(\S+:\d+:\d+\)|\S+\.(js|ts|mjs):\d+/,
  /chrome-extension:\/\//,
  /\b(handler_failed|wrong_target|unknown_type)\b|\b(malformed|unavailable|timeout):/,
  /\b(undefined|null|NaN)\b/,
  /\[object \w+\]/,
  /[{}<>]|=>/,
  /\bBad (payload|result|context|reply)\b|\bno handler for\b/,
];

/** Wrappers that only say where a failure passed through: `"conversation/text" failed: …`, `Error: …`. */
const WRAPPER = /^\s*(?:"[\w-]+\/[\w-]+" failed:\s*|(?:Uncaught\s+)?\w*Error:\s*)/;

export function isTechnical(text: string): boolean {
  return TECHNICAL.some((re) => re.test(text));
}

function rawText(raw: unknown): string {
  if (raw instanceof Error) return raw.message;
  if (typeof raw === 'string') return raw;
  if (typeof raw === 'object' && raw !== null && typeof (raw as { message?: unknown }).message === 'string') {
    const { code, message } = raw as { code?: unknown; message: string };
    return typeof code === 'string' ? `${code}: ${message}` : message;
  }
  try {
    return JSON.stringify(raw) ?? String(raw);
  } catch {
    return Object.prototype.toString.call(raw);
  }
}

/** Strips the pass-through wrappers, then returns what is left: the innermost reason. */
export function innermost(text: string): string {
  let inner = text.trim();
  for (let previous = ''; previous !== inner;) {
    previous = inner;
    inner = inner.replace(WRAPPER, '').trim();
  }
  return inner;
}

/**
 * The sentence and action for anything that failed. A known failure gets its fixed sentence; an unknown one keeps
 * its innermost reason when that is already plain words (a handler's own explanation, a checksum refusal), else the
 * context's plain sentence.
 */
export function toUserError(raw: unknown, context: ErrorContext = 'general'): UserError {
  if (raw instanceof UserFacingError) return raw.user;
  const detail = rawText(raw);
  const known = KNOWN.find((k) => k.match.test(detail));
  if (known) return { sentence: known.sentence, action: known.action, detail };
  const inner = innermost(detail);
  if (inner.length > 0 && inner.length <= 300 && !isTechnical(inner)) {
    return { sentence: inner, action: context === 'general' ? 'none' : 'retry', detail };
  }
  return { sentence: GENERIC[context], action: 'retry', detail };
}

/** What the user was doing when a request failed, from the request's name. */
export function contextOfRequest(type: string): ErrorContext {
  if (type === 'conversation/text' || type === 'conversation/greet') return 'send';
  if (type === 'conversation/ptt' || type === 'conversation/start' || type === 'listening/toggle') return 'listen';
  if (type.startsWith('weights/')) return 'download';
  if (type === 'settings/set') return 'settings';
  return 'general';
}

/** The label of the button for an action (none: no button). */
export function actionLabel(action: FixAction): string | null {
  switch (action) {
    case 'download-models':
      return 'Download the models';
    case 'grant-microphone':
      return 'Allow the microphone';
    case 'open-settings':
      return 'Open Settings';
    case 'retry':
      return 'Try again';
    case 'none':
      return null;
  }
}
