import { describe, expect, it } from 'vitest';
import {
  createRemoteLlmHandlers,
  giveBackUnusedOrigins,
  loadRemoteLlmConfig,
  REMOTE_LLM_KEY,
} from '../../../entrypoints/background/remote-llm';
import { FakeArea } from './fakes';

const KEY = 'sk-secret-KEY-123';

/** Records the host permissions the background gives back (chrome.permissions.remove). */
function revoker() {
  const revoked: string[] = [];
  return { revoked, revoke: async (pattern: string) => void revoked.push(pattern) };
}

describe('model server settings (background, chrome.storage.local)', () => {
  it('stores a validated, normalised config and reads it back', async () => {
    const area = new FakeArea();
    const h = createRemoteLlmHandlers(area, revoker().revoke);
    expect(await h['remote-llm/get']({})).toEqual({ config: null });
    const saved = await h['remote-llm/set']({
      settings: { baseUrl: 'http://localhost:11434/', model: 'llama3.2:3b', apiKey: ` ${KEY} `, fallbackToLocal: false },
    });
    expect(saved.config).toEqual({
      baseUrl: 'http://localhost:11434/v1',
      model: 'llama3.2:3b',
      apiKey: KEY,
      fallbackToLocal: false,
    });
    expect(area.data[REMOTE_LLM_KEY]).toEqual(saved.config);
    expect(await h['remote-llm/get']({})).toEqual(saved);
  });

  it('an empty key is not stored; null stops using the server', async () => {
    const area = new FakeArea();
    const h = createRemoteLlmHandlers(area, revoker().revoke);
    const saved = await h['remote-llm/set']({
      settings: { baseUrl: 'https://api.example.com/v1', model: 'm', apiKey: '  ', fallbackToLocal: true },
    });
    expect(saved.config).not.toHaveProperty('apiKey');
    expect(await h['remote-llm/set']({ settings: null })).toEqual({ config: null });
    expect(await h['remote-llm/get']({})).toEqual({ config: null });
  });

  it('refuses a bad address with the field’s sentence, never echoing credentials', async () => {
    const h = createRemoteLlmHandlers(new FakeArea(), revoker().revoke);
    const err = await Promise.resolve(
      h['remote-llm/set']({ settings: { baseUrl: `http://user:${KEY}@localhost:11434`, model: 'm', fallbackToLocal: true } }),
    ).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toBe('Put the key in the API key field, not in the address.');
    expect((err as Error).message).not.toContain(KEY);
    await expect(h['remote-llm/set']({ settings: { baseUrl: 'ftp://x', model: 'm', fallbackToLocal: true } })).rejects.toThrow(
      /http/,
    );
    await expect(h['remote-llm/set']({ settings: { baseUrl: 'http://x', model: ' ', fallbackToLocal: true } })).rejects.toThrow(
      /Choose a model/,
    );
  });

  it('a damaged or hand-edited stored entry reads as "no server"', async () => {
    const area = new FakeArea();
    area.data[REMOTE_LLM_KEY] = { baseUrl: 'javascript:alert(1)', model: 'm', fallbackToLocal: true };
    expect(await loadRemoteLlmConfig(area)).toBeNull();
    area.data[REMOTE_LLM_KEY] = 'garbage';
    expect(await loadRemoteLlmConfig(area)).toBeNull();
  });

  it('gives the host permission back when the server is removed', async () => {
    const area = new FakeArea();
    const { revoked, revoke } = revoker();
    const h = createRemoteLlmHandlers(area, revoke);
    await h['remote-llm/set']({ settings: { baseUrl: 'http://localhost:11434', model: 'm', fallbackToLocal: true } });
    expect(revoked).toEqual([]);
    await h['remote-llm/set']({ settings: null });
    expect(revoked).toEqual(['http://localhost:11434/*']);
    // Nothing stored: nothing to give back.
    await h['remote-llm/set']({ settings: null });
    expect(revoked).toEqual(['http://localhost:11434/*']);
  });

  it('gives the old origin back when the server moves to another origin, and keeps it when only the path changes', async () => {
    const area = new FakeArea();
    const { revoked, revoke } = revoker();
    const h = createRemoteLlmHandlers(area, revoke);
    await h['remote-llm/set']({ settings: { baseUrl: 'https://a.example.com/v1', model: 'm', fallbackToLocal: true } });
    await h['remote-llm/set']({ settings: { baseUrl: 'https://a.example.com/openai/v1', model: 'm', fallbackToLocal: true } });
    expect(revoked).toEqual([]);
    await h['remote-llm/set']({ settings: { baseUrl: 'http://127.0.0.1:8080', model: 'm', fallbackToLocal: true } });
    expect(revoked).toEqual(['https://a.example.com/*']);
  });

  it('gives back the origin of a stored server that today’s rules refuse (plain http to another computer)', async () => {
    const area = new FakeArea();
    const { revoked, revoke } = revoker();
    area.data[REMOTE_LLM_KEY] = { baseUrl: 'http://192.168.1.20:8000/v1', model: 'm', fallbackToLocal: true };
    const h = createRemoteLlmHandlers(area, revoke);
    // It is not used, but it is named, so the settings can offer to remove it.
    expect(await h['remote-llm/get']({})).toEqual({ config: null, unusable: 'http://192.168.1.20:8000/*' });
    await h['remote-llm/set']({ settings: null });
    expect(revoked).toEqual(['http://192.168.1.20:8000/*']);
    expect(await h['remote-llm/get']({})).toEqual({ config: null });
  });

  it('an old stored entry of another shape can be removed and its origin is given back', async () => {
    const area = new FakeArea();
    const { revoked, revoke } = revoker();
    area.data[REMOTE_LLM_KEY] = { baseUrl: 'http://10.0.0.5:8080/v1', key: 'old-field-name', temperature: 2 };
    const h = createRemoteLlmHandlers(area, revoke);
    expect(await h['remote-llm/get']({})).toEqual({ config: null, unusable: 'http://10.0.0.5:8080/*' });
    await h['remote-llm/set']({ settings: null });
    expect(revoked).toEqual(['http://10.0.0.5:8080/*']);
    expect(area.data[REMOTE_LLM_KEY]).toBeNull();
  });

  it('a "Test connection" grant whose server was never saved is given back; the saved server’s is kept', async () => {
    const area = new FakeArea();
    const required = ['https://huggingface.co/*', 'https://*.hf.co/*'];
    let held = [...required, 'https://tested.example/*', 'http://localhost/*'];
    const revoked: string[] = [];
    const revoke = async (o: string) => {
      revoked.push(o);
      held = held.filter((h) => h !== o);
    };
    // Nothing saved: both test grants go back, the manifest's hosts stay.
    await giveBackUnusedOrigins(area, async () => held, revoke, required);
    expect(revoked.sort()).toEqual(['http://localhost/*', 'https://tested.example/*']);
    expect(held).toEqual(required);
    // A saved server keeps its origin; a later unsaved test on another origin goes back after the next change.
    const h = createRemoteLlmHandlers(
      area,
      revoke,
      async () => held,
      () => required,
    );
    held.push('https://saved.example/*');
    await h['remote-llm/set']({ settings: { baseUrl: 'https://saved.example/v1', model: 'm', fallbackToLocal: true } });
    expect(held).toContain('https://saved.example/*');
    held.push('https://other.example/*');
    await h['remote-llm/set']({ settings: { baseUrl: 'https://saved.example/v1', model: 'm2', fallbackToLocal: true } });
    expect(held).not.toContain('https://other.example/*');
    expect(held).toContain('https://saved.example/*');
  });

  it('refuses plain http to another computer, and stores nothing', async () => {
    const area = new FakeArea();
    const h = createRemoteLlmHandlers(area, revoker().revoke);
    await expect(
      h['remote-llm/set']({
        settings: { baseUrl: 'http://192.168.1.20:8000/v1', model: 'm', apiKey: KEY, fallbackToLocal: true },
      }),
    ).rejects.toThrow(/Use https:\/\//);
    expect(area.data[REMOTE_LLM_KEY]).toBeUndefined();
  });
});
