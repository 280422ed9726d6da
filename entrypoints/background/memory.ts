import { memorySchema, type SerializedMemory } from '../../core/memory/fact-memory';
import { eventMessage, sendRequest, type EventMessage, type Handlers } from '../../core/protocol';

const KEY = 'memory';
const EMPTY: SerializedMemory = { version: 1, facts: [] };
const send = (message: unknown) => chrome.runtime.sendMessage(message);

/**
 * What the assistant remembers about the user lives here, in chrome.storage.local (the engine's document cannot use
 * storage): the engine reports changes, the settings panel lists and forgets, and forgetting reaches the engine at once.
 * `enabled` is the user's memory switch (settings `memoryEnabled`): while it is off nothing the engine reports is
 * stored, and the engine is told to neither learn nor use facts.
 */
export function createMemoryStore(enabled: () => Promise<boolean>) {
  async function read(): Promise<SerializedMemory> {
    const parsed = memorySchema.safeParse((await chrome.storage.local.get(KEY))[KEY]);
    return parsed.success ? parsed.data : EMPTY;
  }

  async function write(memory: SerializedMemory): Promise<SerializedMemory> {
    await chrome.storage.local.set({ [KEY]: memory });
    void send(eventMessage('event/memory', { memory })).catch(() => undefined);
    return memory;
  }

  /** Tells the engine what it may remember and use now (no engine running: it asks when it starts). */
  async function toEngine(memory: SerializedMemory): Promise<void> {
    await sendRequest(send, 'memory/set', { memory, enabled: await enabled() }, 5_000);
  }

  const handlers: Pick<Handlers<'background'>, 'memory/get' | 'memory/forget'> = {
    'memory/get': () => read(),
    'memory/forget': async (what) => {
      const current = await read();
      const facts = 'all' in what ? [] : current.facts.filter((_, i) => i !== what.index);
      const next = await write({ version: 1, facts });
      // The engine must stop using a forgotten fact now, not after a restart.
      await toEngine(next);
      return next;
    },
  };

  return {
    handlers,
    /** The memory switch changed: the engine follows at once. */
    async applyEnabled(): Promise<void> {
      await toEngine(await read());
    },
    onEvent(event: EventMessage): void {
      if (event.type !== 'event/memory') return;
      const memory = event.payload.memory;
      void enabled().then((on) => (on ? chrome.storage.local.set({ [KEY]: memory }) : undefined));
    },
  };
}
