import { createMemoryLedger } from '../../core/memory/memory-ledger';
import { eventMessage, sendRequest, type EventMessage, type Handlers } from '../../core/protocol';

const KEY = 'memory';
const send = (message: unknown) => chrome.runtime.sendMessage(message);

/**
 * What the assistant remembers about the user lives here, in chrome.storage.local (the engine's document cannot use
 * storage): the engine reports changes, the settings panel lists and forgets, and forgetting reaches the engine at once
 * (core/memory/memory-ledger.ts keeps a report sent before a forget from bringing the fact back).
 * `enabled` is the user's memory switch (settings `memoryEnabled`): while it is off nothing the engine reports is
 * stored, and the engine is told to neither learn nor use facts.
 */
export function createMemoryStore(enabled: () => Promise<boolean>) {
  const ledger = createMemoryLedger({
    read: async () => (await chrome.storage.local.get(KEY))[KEY],
    write: async (memory) => {
      await chrome.storage.local.set({ [KEY]: memory });
      void send(eventMessage('event/memory', { memory })).catch(() => undefined);
    },
    enabled,
    // No engine running: it asks when it starts.
    toEngine: async (memory, forgetConversation) => {
      await sendRequest(send, 'memory/set', { memory, enabled: await enabled(), forgetConversation }, 5_000);
    },
  });

  const handlers: Pick<Handlers<'background'>, 'memory/get' | 'memory/forget'> = {
    'memory/get': () => ledger.read(),
    'memory/forget': (what) => ledger.forget(what),
  };

  return {
    handlers,
    /** The memory switch changed: the engine follows at once. */
    applyEnabled: () => ledger.applyEnabled(),
    onEvent(event: EventMessage): void {
      if (event.type !== 'event/memory') return;
      void ledger.report(event.payload.memory);
    },
  };
}
