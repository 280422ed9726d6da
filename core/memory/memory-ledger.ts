// The stored memory and the engine's reports of it, kept in step (docs/security.md, "What is stored"). The engine
// reports the whole memory after each user turn; a report sent before the user forgot something can arrive after the
// forget. Each forget raises the store's epoch and the engine echoes the epoch it was given, so a report from an older
// epoch is dropped instead of bringing a forgotten fact back. Every read-modify-write runs in one queue.
import { memorySchema, type SerializedMemory } from './fact-memory';

export const EMPTY_MEMORY: SerializedMemory = { version: 1, facts: [] };

export type ForgetWhat = { index: number } | { all: true };

export interface MemoryLedgerDeps {
  /** The stored value, unparsed (storage may hold anything). */
  read(): Promise<unknown>;
  write(memory: SerializedMemory): Promise<void>;
  /** The user's memory switch: while off, reports are not stored. */
  enabled(): Promise<boolean>;
  /**
   * Tells the engine what it may remember now; `forgetConversation`: "Forget everything" also empties the
   * conversation the engine keeps for the model.
   */
  toEngine(memory: SerializedMemory, forgetConversation: boolean): Promise<void>;
}

const epochOf = (m: SerializedMemory) => m.epoch ?? 0;

export function createMemoryLedger(deps: MemoryLedgerDeps) {
  let queue: Promise<unknown> = Promise.resolve();
  function serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = queue.then(fn);
    queue = run.catch(() => undefined);
    return run;
  }

  async function read(): Promise<SerializedMemory> {
    const parsed = memorySchema.safeParse(await deps.read());
    return parsed.success ? parsed.data : EMPTY_MEMORY;
  }

  return {
    read: () => serial(read),

    /** Forgets one fact or all of them; the engine is told at once. */
    async forget(what: ForgetWhat): Promise<SerializedMemory> {
      const next = await serial(async () => {
        const current = await read();
        const facts = 'all' in what ? [] : current.facts.filter((_, i) => i !== what.index);
        const updated: SerializedMemory = { version: 1, facts, epoch: epochOf(current) + 1 };
        await deps.write(updated);
        return updated;
      });
      await deps.toEngine(next, 'all' in what);
      return next;
    },

    /** The engine's report; stored only when memory is on and it was made at the store's current epoch. */
    report(memory: SerializedMemory): Promise<boolean> {
      return serial(async () => {
        if (!(await deps.enabled())) return false;
        if (epochOf(memory) !== epochOf(await read())) return false;
        await deps.write(memory);
        return true;
      });
    },

    /** The memory switch changed: the engine follows at once. */
    async applyEnabled(): Promise<void> {
      await deps.toEngine(await serial(read), false);
    },
  };
}
