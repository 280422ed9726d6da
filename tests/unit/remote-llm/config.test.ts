import { describe, expect, it } from 'vitest';
import {
  authHeaders,
  chatCompletionsUrl,
  normaliseBaseUrl,
  originPermissionPattern,
  parseRemoteLlmSettings,
  redact,
} from '../../../core/remote-llm';

describe('remote LLM settings', () => {
  it.each([
    ['http://localhost:11434', 'http://localhost:11434/v1'],
    ['http://localhost:11434/', 'http://localhost:11434/v1'],
    ['http://localhost:11434/v1/', 'http://localhost:11434/v1'],
    ['  https://api.example.com/openai/v1  ', 'https://api.example.com/openai/v1'],
    ['http://[::1]:8080', 'http://[::1]:8080/v1'],
    ['HTTPS://Example.COM:443/v1', 'https://example.com/v1'],
    ['https://192.168.1.20:8000/v1', 'https://192.168.1.20:8000/v1'],
    // Loopback in every spelling the URL parser folds into 127.0.0.1.
    ['http://127.0.0.1:1234', 'http://127.0.0.1:1234/v1'],
    ['http://127.1:1234/v1', 'http://127.0.0.1:1234/v1'],
    ['http://LOCALHOST:1234/v1', 'http://localhost:1234/v1'],
  ])('normalises %j to %j', (input, expected) => {
    expect(normaliseBaseUrl(input)).toEqual({ ok: true, url: expected });
  });

  it.each([
    ['ftp://example.com/v1', 'http:// or https://'],
    ['file:///etc/passwd', 'http:// or https://'],
    ['javascript:alert(1)', 'http:// or https://'],
    ['localhost:11434', 'http:// or https://'],
    ['not a url', 'not a valid address'],
    ['http://user:pa55@example.com/v1', 'API key field'],
    ['http://token@example.com/v1', 'API key field'],
    ['http://example.com/v1?key=abc', '? or #'],
    // Plain http leaves this computer unencrypted: only loopback hosts may use it.
    ['http://example.com/v1', 'Use https://'],
    ['http://192.168.1.20:8000/v1', 'Use https://'],
    ['http://10.0.0.1/v1', 'Use https://'],
    ['http://localhost.evil.example/v1', 'Use https://'],
    ['http://127.0.0.1.nip.io/v1', 'Use https://'],
    ['http://[::2]:8080/v1', 'Use https://'],
    ['http://0.0.0.0:11434/v1', 'Use https://'],
    // Other 127/8 addresses are loopback too, but Chrome can only grant the loopback hosts the manifest names.
    ['http://127.5.6.7:1234/v1', 'Use https://'],
  ])('rejects %j', (input, why) => {
    const r = normaliseBaseUrl(input);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toContain(why);
  });

  it('never echoes credentials from the URL in the error', () => {
    const r = parseRemoteLlmSettings({ baseUrl: 'http://me:hunter2@localhost:1234', model: 'm' });
    expect(r).toEqual({ ok: false, field: 'baseUrl', error: 'Put the key in the API key field, not in the address.' });
  });

  it('validates model and key, defaults fallback to on, and names the bad field', () => {
    expect(parseRemoteLlmSettings({ baseUrl: 'http://localhost:1234', model: ' llama3 ' })).toEqual({
      ok: true,
      config: { baseUrl: 'http://localhost:1234/v1', model: 'llama3', fallbackToLocal: true },
    });
    expect(parseRemoteLlmSettings({ baseUrl: 'http://localhost:1234', model: '' })).toMatchObject({ ok: false, field: 'model' });
    expect(parseRemoteLlmSettings({ baseUrl: 'http://localhost', model: 'm', apiKey: 'a b' })).toMatchObject({
      ok: false,
      field: 'apiKey',
    });
    // An empty key means "no key", not an empty Bearer header.
    const noKey = parseRemoteLlmSettings({ baseUrl: 'https://x', model: 'm', apiKey: '  ', fallbackToLocal: false });
    expect(noKey).toEqual({ ok: true, config: { baseUrl: 'https://x/v1', model: 'm', fallbackToLocal: false } });
    if (noKey.ok) expect(authHeaders(noKey.config)).toEqual({});
  });

  it.each([
    ['http://localhost:11434/v1', 'http://localhost:11434/*'],
    ['https://api.example.com/openai/v1', 'https://api.example.com/*'],
    ['http://192.168.1.20:8000/v1', 'http://192.168.1.20:8000/*'],
    ['http://[::1]:8080/v1', 'http://[::1]:8080/*'],
  ])('origin permission pattern for %j is %j', (base, pattern) => {
    expect(originPermissionPattern(base)).toBe(pattern);
  });

  it('builds the endpoint and the Bearer header', () => {
    expect(chatCompletionsUrl({ baseUrl: 'http://localhost:11434/v1' })).toBe('http://localhost:11434/v1/chat/completions');
    expect(authHeaders({ apiKey: 'sk-1' })).toEqual({ Authorization: 'Bearer sk-1' });
  });

  it('redacts the key, bearer tokens and control characters, and caps length', () => {
    expect(redact('bad key sk-123 in sk-123', 'sk-123')).toBe('bad key [redacted] in [redacted]');
    expect(redact('Authorization: Bearer abc.def', undefined)).toBe('Authorization: Bearer [redacted]');
    expect(redact('a\nb', undefined)).toBe('a b');
    expect(redact('x'.repeat(300), undefined, 10)).toBe(`${'x'.repeat(10)}…`);
  });
});
