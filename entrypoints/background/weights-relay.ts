import {
  sendRelayed,
  sendRequest,
  type EventMessage,
  type Handlers,
  type Relays,
  type Send,
  type Settings,
} from '../../core/protocol';
import { configuredMirror, parseSnapshot } from '../../core/weights';
import type { LocalStorageArea } from './characters';
import { loadSettings } from './settings-store';

const SNAPSHOT_KEY = 'weightsSnapshot';
const PENDING_KEY = 'weightsPending';

export interface WeightsRelayDeps {
  area: LocalStorageArea;
  settings: () => Promise<Settings>;
  send: Send;
  ensureOffscreen: () => Promise<unknown>;
}

/**
 * The background's half of the weights manager: it holds the catalog state (the last snapshot, in storage so the
 * side panel can render at once) and the list of bundles the user asked for, so a restarted offscreen document is
 * told to resume. The bytes move in the offscreen document, which outlives this worker: the UI's weights requests
 * are relayed there under their own names, with the mirror added.
 */
export function createWeightsRelay(deps: WeightsRelayDeps) {
  const { area, send } = deps;
  const mirror = async () => ({ baseUrl: configuredMirror((await deps.settings()).mirrorBaseUrl) });

  async function pending(): Promise<string[]> {
    const stored = (await area.get(PENDING_KEY))[PENDING_KEY];
    return Array.isArray(stored) ? stored.filter((s): s is string => typeof s === 'string') : [];
  }

  /**
   * Every change to the list, one after another. Interleaved, a snapshot's read-modify-write (a slow storage read
   * while the engine reports in) wrote back the list it had read before a download was asked for, and the download was
   * forgotten: a restarted engine was then never told to resume it (docs/weights.md, "The pending list").
   */
  let changes: Promise<unknown> = Promise.resolve();
  function updatePending(change: (ids: string[]) => string[]): Promise<void> {
    const write = changes.then(async () => area.set({ [PENDING_KEY]: change(await pending()) }));
    changes = write.catch(() => undefined);
    return write;
  }

  const relays: Pick<Relays<'background'>, 'weights/download' | 'weights/cancel' | 'weights/delete'> = {
    'weights/download': async ({ bundleIds }) => {
      await updatePending((ids) => [...new Set([...ids, ...bundleIds])]);
      return mirror();
    },
    'weights/cancel': async () => {
      await updatePending(() => []);
    },
    'weights/delete': async ({ bundleId }) => {
      await updatePending((ids) => ids.filter((id) => id !== bundleId));
      return mirror();
    },
  };

  const handlers: Pick<Handlers<'background'>, 'weights/state'> = {
    'weights/state': async () => parseSnapshot((await area.get(SNAPSHOT_KEY))[SNAPSHOT_KEY]) ?? null,
  };

  return {
    relays,
    handlers,

    /** True while a download the user asked for is unfinished (kept in storage: a restarted worker knows it too). */
    async hasPending(): Promise<boolean> {
      return (await pending()).length > 0;
    },

    /** Persists snapshots and resumes unfinished downloads when a (new) offscreen document reports in. */
    async onEvent(event: EventMessage): Promise<void> {
      if (event.type === 'event/weights-snapshot') {
        const snapshot = event.payload.snapshot;
        await area.set({ [SNAPSHOT_KEY]: snapshot });
        const done = new Set(snapshot.bundles.filter((b) => b.status === 'complete').map((b) => b.id));
        // A paused download is no longer pending; other failures stay pending and resume on the next start.
        const paused = snapshot.lastError?.code === 'aborted' && snapshot.active === null;
        await updatePending((ids) => (paused ? [] : ids.filter((id) => !done.has(id))));
      } else if (event.type === 'event/offscreen-ready') {
        const ids = await pending();
        await deps.ensureOffscreen();
        // The background's own resume: the forwarded hop its relay would send for the user's download.
        const reply =
          ids.length > 0
            ? await sendRelayed(send, 'weights/download', { bundleIds: ids }, await mirror(), 30_000)
            : await sendRequest(send, 'weights/snapshot', await mirror(), 30_000);
        if (!reply.ok) throw new Error(reply.error.message);
      }
    },
  };
}

/** The relay wired to Chrome: chrome.storage.local, the stored settings, runtime messaging. */
export function chromeWeightsRelay(ensureOffscreen: () => Promise<unknown>) {
  return createWeightsRelay({
    area: chrome.storage.local,
    settings: loadSettings,
    send: (message) => chrome.runtime.sendMessage(message),
    ensureOffscreen,
  });
}
