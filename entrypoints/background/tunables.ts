import { z } from 'zod';
import { eventMessage, type EventMessage, type Handlers, type TunablesState } from '../../core/protocol';
import { applyOverrides, resetTunables, setTunable, snapshotTunables, tunableOverrides } from '../../core/tunables';
import type { LocalStorageArea } from './characters';

/** The one storage key: `{ version, overrides }`, only the values that differ from their defaults. */
export const TUNABLES_KEY = 'tunables';

const storedSchema = z.object({ version: z.number().int().nonnegative(), overrides: z.record(z.string(), z.unknown()) });

export interface TunablesOwnerDeps {
  area: LocalStorageArea;
  broadcast: (event: EventMessage) => void;
  now?: () => number;
}

/**
 * The owner of every tunable: the background validates a change with the registry (`setTunable`, the same limits
 * every context has), persists the overrides in chrome.storage.local so a reload keeps them, and broadcasts them as
 * `event/tunables` to the offscreen document (which forwards them to its workers), the side panel and the popup. The
 * background's own code reads its registry, which is the owner's state itself.
 */
export function createTunablesOwner({ area, broadcast, now = Date.now }: TunablesOwnerDeps) {
  let version = 0;
  const state = (): TunablesState => ({ version, overrides: tunableOverrides() });
  const save = () => area.set({ [TUNABLES_KEY]: state() });

  /** Restores what was persisted before anything reads a value (the service worker restarts after 30 s idle). */
  const ready = (async () => {
    const parsed = storedSchema.safeParse((await area.get(TUNABLES_KEY))[TUNABLES_KEY]);
    if (!parsed.success) return;
    version = parsed.data.version;
    const refused = applyOverrides(parsed.data.overrides);
    if (refused.length === 0) return;
    // A knob that was removed or narrowed since it was saved: drop it from storage too.
    console.warn(`[sidetalk] dropped stored tunables: ${refused.join('; ')}`);
    await save();
  })().catch((err: unknown) => console.warn('[sidetalk] could not restore tunables', err));

  // Changes one after another, so each persisted and broadcast state is the one its change produced.
  let chain: Promise<unknown> = ready;
  function change(apply: () => void): Promise<TunablesState> {
    const run = chain.then(async () => {
      apply();
      version = Math.max(version + 1, now());
      await save();
      const next = state();
      broadcast(eventMessage('event/tunables', next));
      return next;
    });
    chain = run.catch(() => undefined);
    return run;
  }

  const handlers: Pick<Handlers<'background'>, 'tunables/get' | 'tunables/set' | 'tunables/reset'> = {
    'tunables/get': async () => {
      await ready;
      return { ...state(), values: snapshotTunables() };
    },
    'tunables/set': ({ path, value }) =>
      change(() => {
        const result = setTunable(path, value);
        if (!result.ok) throw new Error(result.error);
      }),
    'tunables/reset': () => change(() => resetTunables()),
  };
  /** The same handlers, each waiting until the persisted values are restored (a restarted worker's first request). */
  function afterRestore<H extends object>(all: H): H {
    const table = all as Record<string, (...args: unknown[]) => unknown>;
    const gated = Object.entries(table).map(([type, fn]) => [
      type,
      async (...args: unknown[]) => {
        await ready;
        return fn(...args);
      },
    ]);
    return Object.fromEntries(gated) as H;
  }
  return { ready, handlers, afterRestore };
}
