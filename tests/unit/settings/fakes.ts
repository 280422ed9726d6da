// Small fakes for the background/offscreen wiring: chrome.storage.local and runtime messaging.
import type { LocalStorageArea } from '../../../entrypoints/background/characters';

export class FakeArea implements LocalStorageArea {
  data: Record<string, unknown> = {};
  async get(key: string): Promise<Record<string, unknown>> {
    return key in this.data ? { [key]: structuredClone(this.data[key]) } : {};
  }
  async set(items: Record<string, unknown>): Promise<void> {
    for (const [k, v] of Object.entries(items)) this.data[k] = structuredClone(v);
  }
}

/** Records what was sent and answers with `answer(message)` (undefined = nobody answered). */
export function fakeSend(answer: (message: { type: string; payload: unknown }) => unknown = () => ({ ok: true, data: {} })) {
  const sent: { type: string; payload: unknown }[] = [];
  const send = async (message: unknown) => {
    const m = message as { type: string; payload: unknown };
    sent.push(m);
    return answer(m);
  };
  return { sent, send };
}
