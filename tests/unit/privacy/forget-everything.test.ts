/**
 * "Forget everything" (docs/security.md, "What is stored"): the store empties, the engine is told to drop the
 * conversation it keeps for the model, and a memory report the engine sent before the forget (still in flight) cannot
 * bring a forgotten fact back. Also: the engine's own history is emptied and a reply in flight is not recorded.
 */
import { describe, expect, it } from 'vitest';
import { DuplexEngine } from '../../../core/engine/duplex-engine';
import { FactMemory, type SerializedMemory } from '../../../core/memory/fact-memory';
import { createMemoryLedger } from '../../../core/memory/memory-ledger';

function ledgerWorld(initial: unknown) {
  let stored: unknown = initial;
  const told: { memory: SerializedMemory; forgetConversation: boolean }[] = [];
  let gate: Promise<void> | null = null;
  const ledger = createMemoryLedger({
    read: async () => stored,
    write: async (m) => {
      // Only the engine's report (it has facts) is slow; the forget's write is quick.
      const held = m.facts.length > 0 ? gate : null;
      if (held) {
        gate = null;
        await held;
      }
      stored = structuredClone(m);
    },
    enabled: async () => true,
    toEngine: async (memory, forgetConversation) => {
      told.push({ memory, forgetConversation });
    },
  });
  return {
    ledger,
    told,
    stored: () => stored as SerializedMemory,
    /** Holds the next write of a memory with facts until the returned function is called (a slow storage write). */
    hold: () => {
      let open!: () => void;
      gate = new Promise<void>((r) => (open = r));
      return open;
    },
  };
}

/** What an engine that learned the user's name reports. */
function engineReport(loadedFrom: unknown): SerializedMemory {
  const memory = new FactMemory();
  memory.load(loadedFrom);
  memory.observe('My name is Ana.', 1);
  return memory.toJSON();
}

describe('Forget everything', () => {
  it('a report made before the forget and arriving after it is dropped; one made after it is kept', async () => {
    const w = ledgerWorld({ version: 1, facts: [] });
    const stale = engineReport(w.stored());
    expect(await w.ledger.report(stale)).toBe(true);
    expect(w.stored().facts.map((f) => f.value)).toEqual(['Ana']);

    const next = await w.ledger.forget({ all: true });
    expect(next.facts).toEqual([]);
    expect(w.told).toEqual([{ memory: next, forgetConversation: true }]);

    // The same engine report again (sent before the engine heard of the forget): the name must not come back.
    expect(await w.ledger.report(stale)).toBe(false);
    expect(w.stored().facts).toEqual([]);

    // The engine, loaded with what it was told, learns again: that report is stored.
    const fresh = engineReport(w.told[0]!.memory);
    expect(await w.ledger.report(fresh)).toBe(true);
    expect(w.stored().facts.map((f) => f.value)).toEqual(['Ana']);
  });

  it('a report still being stored when the user forgets cannot overwrite the forget', async () => {
    const w = ledgerWorld({ version: 1, facts: [] });
    const open = w.hold();
    const reported = w.ledger.report(engineReport(w.stored()));
    const forgot = w.ledger.forget({ all: true });
    open();
    await Promise.all([reported, forgot]);
    expect(w.stored().facts).toEqual([]);
  });

  it('forgetting one fact does not ask the engine to drop the conversation', async () => {
    const w = ledgerWorld(engineReport({ version: 1, facts: [] }));
    await w.ledger.forget({ index: 0 });
    expect(w.told.map((t) => t.forgetConversation)).toEqual([false]);
  });

  it('the engine empties the conversation it keeps for the model, and a reply in flight is not recorded', async () => {
    let t = 0;
    const played: string[] = [];
    let release!: () => void;
    const engine = new DuplexEngine({
      clock: { now: () => t },
      stages: {
        transcribe: async () => ({ text: '', confidence: 1 }),
        respond: async function* (turn) {
          if (turn.text.includes('second')) await new Promise<void>((r) => (release = r));
          yield `Nice to meet you, Ana. (${turn.text})`;
        },
        speak: async (_s, _signal, meta) => {
          t += 10;
          played.push(meta.turnId);
        },
      },
    });
    const settle = async () => {
      for (let i = 0; i < 4; i++) {
        await new Promise((r) => setTimeout(r, 10));
        for (const turnId of played.splice(0)) {
          engine.onPlayback({ type: 'started', turnId });
          engine.onPlayback({ type: 'ended', turnId });
        }
      }
    };
    engine.submitText('my name is Ana, first');
    await settle();
    expect(engine.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    engine.submitText('my name is Ana, second');
    await settle();
    engine.forgetConversation();
    expect(engine.messages).toEqual([]);
    release();
    await settle();
    expect(engine.messages).toEqual([]);
  });
});
