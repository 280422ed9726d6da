// Settings for a bring-your-own OpenAI-compatible server (Ollama, LM Studio, llama.cpp server, vLLM, a hosted API).
// baseUrl is the API root that `/chat/completions` and `/models` hang off, as in OpenAI's SDKs
// ("http://localhost:11434/v1"). Only https, or http to this computer (localhost, 127.0.0.1, [::1]). A bare origin
// ("http://localhost:11434") gets "/v1" appended because that is what every local server listed above serves; any
// other path is kept as typed.
import { z } from 'zod';

export const remoteLlmSettingsSchema = z.object({
  baseUrl: z.string().trim().min(1, 'Enter the server address').max(2048),
  model: z.string().trim().min(1, 'Choose a model').max(256),
  /** Optional; sent only as `Authorization: Bearer …`, never logged or put in an error message. */
  apiKey: z.string().trim().max(4096).optional(),
  /** If the server fails before anything was said, answer with the local model instead. */
  fallbackToLocal: z.boolean().default(true),
});
export type RemoteLlmSettings = z.input<typeof remoteLlmSettingsSchema>;

export interface RemoteLlmConfig {
  /** Normalised API root without a trailing slash, e.g. "http://localhost:11434/v1". */
  baseUrl: string;
  model: string;
  apiKey?: string;
  fallbackToLocal: boolean;
}

export type ConfigResult =
  { ok: true; config: RemoteLlmConfig } | { ok: false; field: 'baseUrl' | 'model' | 'apiKey'; error: string };

/** Validates what the user typed; the error names the field so the form can put it next to the input. */
export function parseRemoteLlmSettings(input: unknown): ConfigResult {
  const parsed = remoteLlmSettingsSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path[0] === 'model' ? 'model' : issue.path[0] === 'apiKey' ? 'apiKey' : 'baseUrl';
    return { ok: false, field, error: issue.message };
  }
  const base = normaliseBaseUrl(parsed.data.baseUrl);
  if (!base.ok) return { ok: false, field: 'baseUrl', error: base.error };
  const apiKey = parsed.data.apiKey;
  if (apiKey !== undefined && /[\s\u0000-\u001f]/.test(apiKey)) {
    return { ok: false, field: 'apiKey', error: 'The API key contains spaces or control characters.' };
  }
  return {
    ok: true,
    config: {
      baseUrl: base.url,
      model: parsed.data.model,
      ...(apiKey ? { apiKey } : {}),
      fallbackToLocal: parsed.data.fallbackToLocal,
    },
  };
}

/**
 * The loopback hosts `http://` is allowed to, as the URL parser writes them (it turns `127.1` or `0x7f.0.0.1` into
 * `127.0.0.1`): there the key and the conversation never cross a network (docs/security.md, "What leaves the machine").
 * Exactly the http hosts of the manifest's optional_host_permissions (wxt.config.ts), so every address the form
 * accepts is one Chrome can grant.
 */
export const LOOPBACK_HOSTS: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.includes(hostname);
}

/**
 * Checks and normalises a base URL: https, or http to this computer only; no user:password@ (use the API key field),
 * no query or fragment.
 */
export function normaliseBaseUrl(raw: string): { ok: true; url: string } | { ok: false; error: string } {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return { ok: false, error: 'That is not a valid address. Use something like http://localhost:11434/v1' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, error: 'The address must start with http:// or https://' };
  }
  if (url.username || url.password) {
    // Never echo the URL back: it contains the credentials.
    return { ok: false, error: 'Put the key in the API key field, not in the address.' };
  }
  if (url.search || url.hash) return { ok: false, error: 'The address must not contain ? or # parts.' };
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    return {
      ok: false,
      error:
        'Use https:// for a server on another computer (http:// would send your words and key unencrypted). http:// is fine for localhost.',
    };
  }
  let path = url.pathname.replace(/\/+$/, '');
  if (path === '') path = '/v1';
  return { ok: true, url: `${url.protocol}//${url.host}${path}` };
}

/**
 * The host permission to request before the first call, for `chrome.permissions.request({ origins: [pattern] })`.
 * Chrome match patterns take the port; the path is always /* (the permission is per origin anyway).
 */
export function originPermissionPattern(baseUrl: string): string {
  const url = new URL(baseUrl);
  return `${url.protocol}//${url.host}/*`;
}

export function chatCompletionsUrl(config: Pick<RemoteLlmConfig, 'baseUrl'>): string {
  return `${config.baseUrl}/chat/completions`;
}

export function modelsUrl(config: Pick<RemoteLlmConfig, 'baseUrl'>): string {
  return `${config.baseUrl}/models`;
}

export function authHeaders(config: Pick<RemoteLlmConfig, 'apiKey'>): Record<string, string> {
  return config.apiKey ? { Authorization: `Bearer ${config.apiKey}` } : {};
}
