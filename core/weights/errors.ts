// Typed download failures. The code drives logic (retry or not, what to persist); the sentence is shown to the user
// as is, so it says what happened and what to do, and never includes URLs with credentials or user content.

export type WeightsErrorCode =
  'not_found' | 'network' | 'integrity' | 'quota' | 'html_instead_of_file' | 'aborted' | 'bad_mirror';

const USER_MESSAGES: Record<WeightsErrorCode, string> = {
  not_found: 'A model file was not found on the server. Check the mirror URL or try again later.',
  network: 'The download was interrupted. Already downloaded parts are kept; it will resume where it stopped.',
  integrity: 'A downloaded file did not match its expected checksum or size, so it was discarded.',
  quota: 'There is not enough storage space for the model. Free some space or delete another model.',
  html_instead_of_file: 'The server sent a web page instead of a model file (often a login or error page). Check the mirror URL.',
  aborted: 'The download was paused. Already downloaded parts are kept.',
  bad_mirror: 'The mirror URL is not valid. Use https:// (or http:// only for localhost) and no user name or password.',
};

export class WeightsError extends Error {
  readonly code: WeightsErrorCode;
  readonly userMessage: string;
  /** Repo path of the file concerned, if any (never a full URL, which could hold a mirror's secrets). */
  readonly path: string | undefined;

  constructor(code: WeightsErrorCode, detail: string, path?: string) {
    super(`${code}: ${detail}`);
    this.name = 'WeightsError';
    this.code = code;
    this.userMessage = code === 'integrity' && path ? integrityMessage(path) : USER_MESSAGES[code];
    this.path = path;
  }
}

/** Names the file (its last path segment: no host, no mirror) so the user knows which one was refused. */
function integrityMessage(path: string): string {
  const name = path.split('/').pop() ?? path;
  return `${name} did not match its pinned checksum or size, so it was discarded; everything else you downloaded is kept. The server may be serving a different version of the model.`;
}

export function isQuotaError(e: unknown): boolean {
  return typeof e === 'object' && e !== null && (e as { name?: unknown }).name === 'QuotaExceededError';
}

export function isAbortError(e: unknown): boolean {
  return typeof e === 'object' && e !== null && (e as { name?: unknown }).name === 'AbortError';
}
