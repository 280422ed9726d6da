import { memorySchema, type SerializedMemory } from '../../core/memory/fact-memory';
import { eventMessage, sendRequest, type EventMessage, type Handlers } from '../../core/protocol';

const KEY = 'memory';
const EMPTY: SerializedMemory = { version: 1, facts: [] };
const send = (message: unknown) => chrome.runtime.sendMessage(message);

/**
 * What the assistant remembers about the user lives here, in chrome.storage.local (the engine's document cannot use
 * storage): the engine reports changes, the settings panel lists and forgets, and forgetting reaches the engine at once.
 */
export function createMemoryStore() {
  async function read(): Promise<SerializedMemory> {
    const parsed = memorySchema.safeParse((await chrome.storage.local.get(KEY))[KEY]);
    return parsed.success ? parsed.data : EMPTY;
  }

  async function write(memory: SerializedMemory): Promise<SerializedMemory> {
    await chrome.storage.local.set({ [KEY]: memory });
    void send(eventMessage('event/memory', { memory })).catch(() => undefined);
    return memory;
  }

  const handlers: Pick<Handlers<'background'>, 'memory/get' | 'memory/forget'> = {
    'memory/get': () => read(),
    'memory/forget': async (what) => {
      const current = await read();
      const facts = 'all' in what ? [] : current.facts.filter((_, i) => i !== what.index);
      const next = await write({ version: 1, facts });
      // The engine must stop using a forgotten fact now, not after a restart.
      await sendRequest(send, 'memory/set', { memory: next }, 5_000);
      return next;
    },
  };

  return {
    handlers,
    onEvent(event: EventMessage): void {
      if (event.type === 'event/memory') void chrome.storage.local.set({ [KEY]: event.payload.memory });
    },
  };
}
