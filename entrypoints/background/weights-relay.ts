import { sendRequest, type EventMessage, type RequestPayload, type RequestResult, type RequestType } from '../../core/protocol';
import { configuredMirror, parseSnapshot, type WeightsSnapshot } from '../../core/weights';
import { loadSettings } from './settings-store';

const SNAPSHOT_KEY = 'weightsSnapshot';
const PENDING_KEY = 'weightsPending';

const send = (message: unknown) => chrome.runtime.sendMessage(message);

/**
 * The background's half of the weights manager: it holds the catalog state (the last snapshot, in storage so the
 * side panel can render at once) and the list of bundles the user asked for, so a restarted offscreen document is
 * told to resume. The bytes move in the offscreen document, which outlives this worker.
 */
export function createWeightsRelay(ensureOffscreen: () => Promise<unknown>) {
  async function mirror(): Promise<string | null> {
    return configuredMirror((await loadSettings()).mirrorBaseUrl);
  }

  async function toOffscreen<T extends RequestType>(type: T, payload: RequestPayload<T>): Promise<RequestResult<T>> {
    await ensureOffscreen();
    const reply = await sendRequest(send, type, payload, 30_000);
    if (!reply.ok) throw new Error(reply.error.message);
    return reply.data;
  }

  async function pending(): Promise<string[]> {
    const stored = (await chrome.storage.local.get(PENDING_KEY))[PENDING_KEY];
    return Array.isArray(stored) ? stored.filter((s): s is string => typeof s === 'string') : [];
  }

  async function setPending(ids: string[]): Promise<void> {
    await chrome.storage.local.set({ [PENDING_KEY]: ids });
  }

  return {
    handlers: {
      'models/download': async ({ bundleIds }: { bundleIds: string[] }) => {
        await setPending([...new Set([...(await pending()), ...bundleIds])]);
        return toOffscreen('weights/download', { bundleIds, baseUrl: await mirror() });
      },
      'models/cancel': async () => {
        await setPending([]);
        return toOffscreen('weights/cancel', {});
      },
      'models/delete': async ({ bundleId }: { bundleId: string }) => {
        await setPending((await pending()).filter((id) => id !== bundleId));
        return toOffscreen('weights/delete', { bundleId, baseUrl: await mirror() });
      },
      'models/state': async (): Promise<WeightsSnapshot | null> =>
        parseSnapshot((await chrome.storage.local.get(SNAPSHOT_KEY))[SNAPSHOT_KEY]) ?? null,
    },

    /** Persists snapshots and resumes unfinished downloads when a (new) offscreen document reports in. */
    async onEvent(event: EventMessage): Promise<void> {
      if (event.type === 'event/weights-snapshot') {
        const snapshot = event.payload.snapshot;
        await chrome.storage.local.set({ [SNAPSHOT_KEY]: snapshot });
        const done = new Set(snapshot.bundles.filter((b) => b.status === 'complete').map((b) => b.id));
        const left = (await pending()).filter((id) => !done.has(id));
        // A paused download is no longer pending; other failures stay pending and resume on the next start.
        const paused = snapshot.lastError?.code === 'aborted' && snapshot.active === null;
        await setPending(paused ? [] : left);
      } else if (event.type === 'event/offscreen-ready') {
        const ids = await pending();
        if (ids.length > 0) await toOffscreen('weights/download', { bundleIds: ids, baseUrl: await mirror() });
        else await toOffscreen('weights/snapshot', { baseUrl: await mirror() });
      }
    },
  };
}
