import { createTtsVerdictHandlers } from './tts-verdicts';
import { OFFSCREEN_HEARTBEAT_MS, OffscreenKeeper } from '../../core/lifecycle/offscreen-keeper';
import {
  checkSender,
  createEventReceiver,
  createRequestRouter,
  isAddressedTo,
  senderKind,
  eventMessage,
  OffscreenStatusSchema,
  type AppStatus,
  type EventMessage,
  type OffscreenStatus,
  type ProtocolError,
} from '../../core/protocol';
import { chromeOffscreenAdapter } from './offscreen-adapter';
import { loadSettings, migrateSettings, saveSettings } from './settings-store';
import { chromeWeightsRelay } from './weights-relay';
import { createToolHandlers } from './tools';
import { createMemoryStore } from './memory';
import { createConversationRelay, NO_PANEL_MESSAGE } from './conversation-relay';
import { ListeningLease } from '../../core/lifecycle/listening-lease';
import { realTimers } from '../../core/lifecycle/timers';
import { showCaptureBadge } from './capture-badge';
import { createCharacterHandlers } from './characters';
import { createRemoteLlmHandlers, giveBackUnusedOrigins } from './remote-llm';
import { createTunablesOwner } from './tunables';
import { validateMirrorUrl, WeightsError } from '../../core/weights';

const HEALTH_CHECK_MS = 15_000;
const PING_TIMEOUT_MS = 10_000;
/** A document is replaced only after this many checks in a row go unanswered (30 s of silence at least): docs/architecture.md. */
const MISSES_TO_REPLACE = 3;
/** A document whose heartbeat (every OFFSCREEN_HEARTBEAT_MS over its port) came this recently is busy, not hung. */
const ALIVE_WITHIN_MS = 4 * OFFSCREEN_HEARTBEAT_MS;
const STATUS_KEY = 'offscreenStatus';
/** A new worker waits this long for open side panels to reconnect (each retries 250 ms after its port drops). */
const PANEL_RECONNECT_GRACE_MS = 2_000;

/** The user's mirror, normalised; the error says what is wrong in words the settings form can show. */
function checkedMirror(url: string): string {
  try {
    return validateMirrorUrl(url);
  } catch (err) {
    throw new Error(err instanceof WeightsError ? err.userMessage : String(err));
  }
}

/**
 * Only Sidetalk's own pages may talk to the background (a script injected into a web page shares the extension id, so
 * the sender's URL must be one of ours too), and each may ask only for what it is for: core/protocol/senders.ts.
 */
function verdictFor(sender: chrome.runtime.MessageSender, raw: unknown) {
  const kind = senderKind(sender, { id: chrome.runtime.id, origin: chrome.runtime.getURL('') });
  return { kind, verdict: checkSender('background', kind, raw) };
}

export default defineBackground({
  type: 'module',
  main() {
    // The model server's API key is in chrome.storage.local: only Sidetalk's own pages and this worker may read it,
    // never a script injected into a web page (docs/security.md, "What is stored").
    void chrome.storage.local.setAccessLevel({ accessLevel: 'TRUSTED_CONTEXTS' }).catch(() => undefined);
    // A "Test connection" grant whose server was never saved (the panel closed first) is given back.
    void giveBackUnusedOrigins(chrome.storage.local).catch(() => undefined);
    const logError = (error: ProtocolError) => console.warn(`[sidetalk] rejected message: ${error.code}: ${error.message}`);
    const keeper = new OffscreenKeeper(chromeOffscreenAdapter(), {
      pingTimeoutMs: PING_TIMEOUT_MS,
      missesToReplace: MISSES_TO_REPLACE,
      sinceHeartbeatMs: () => Date.now() - lastHeartbeatAt,
      aliveWithinMs: ALIVE_WITHIN_MS,
      onError: (message) => console.warn(`[sidetalk] offscreen document: ${message}`),
    });
    // Listening lasts as long as a side panel is open: its ports are counted here (core/lifecycle/listening-lease.ts).
    const lease = new ListeningLease({
      timers: realTimers,
      reconnectGraceMs: PANEL_RECONNECT_GRACE_MS,
      stopAll: () => void endListening().catch((err: unknown) => console.warn('[sidetalk] could not stop listening', err)),
      onOpenChange: () => void writeStatus(undefined).catch(() => undefined),
    });
    /** When the offscreen document's port last carried its heartbeat (Date.now()); -Infinity with no document. */
    let lastHeartbeatAt = -Infinity;

    const broadcast = (event: EventMessage) => {
      // No receiver (no side panel or popup open) is normal; the rejection carries no information.
      chrome.runtime.sendMessage(event).catch(() => undefined);
    };

    // The status snapshot is kept in session storage so a restarted worker still knows what the document reported.
    async function readStatus(): Promise<AppStatus> {
      const stored = await chrome.storage.session.get([STATUS_KEY, 'offscreenCreatedCount']);
      const parsed = OffscreenStatusSchema.safeParse(stored[STATUS_KEY]);
      const count = typeof stored.offscreenCreatedCount === 'number' ? stored.offscreenCreatedCount : 0;
      return { offscreen: parsed.success ? parsed.data : null, offscreenCreatedCount: count, panelOpen: lease.open };
    }

    // Status writes are read-modify-write on session storage: run them one after another, or a document's "ready"
    // report racing its own creation count would write the old count back.
    let statusWrites: Promise<unknown> = Promise.resolve();
    /** `offscreen` undefined keeps what the document last reported (a creation may finish after its "ready"). */
    function writeStatus(offscreen: OffscreenStatus | null | undefined, created?: boolean): Promise<AppStatus> {
      const write = statusWrites.then(async () => {
        const current = await readStatus();
        const next: AppStatus = {
          offscreen: offscreen === undefined ? current.offscreen : offscreen,
          offscreenCreatedCount: current.offscreenCreatedCount + (created ? 1 : 0),
          panelOpen: lease.open,
        };
        showCaptureBadge(next.offscreen);
        await chrome.storage.session.set({ [STATUS_KEY]: next.offscreen, offscreenCreatedCount: next.offscreenCreatedCount });
        broadcast(eventMessage('event/status', { status: next }));
        return next;
      });
      statusWrites = write.catch(() => undefined);
      return write;
    }

    async function ensureOffscreen(): Promise<AppStatus> {
      const before = keeper.createdCount;
      await keeper.ensure();
      if (keeper.createdCount > before) return writeStatus(undefined, true);
      return readStatus();
    }

    const weights = chromeWeightsRelay(ensureOffscreen);
    const conversation = createConversationRelay(ensureOffscreen, undefined, { mayStart: () => lease.mayStart() });

    /** The last side panel went: both switches off (every page hears it) and the engine stops the mic and camera. */
    async function endListening(): Promise<void> {
      const current = await loadSettings();
      if (current.handsFree || current.visionEnabled) {
        const settings = await saveSettings({ handsFree: false, visionEnabled: false });
        broadcast(eventMessage('event/settings', { settings }));
      }
      await conversation.stopMedia();
    }
    /** Turning the microphone or the camera on needs an open side panel (the popup alone cannot). */
    const requirePanel = () => {
      if (!lease.mayStart()) throw new Error(NO_PANEL_MESSAGE);
    };
    const memory = createMemoryStore(async () => (await loadSettings()).memoryEnabled);
    const tunables = createTunablesOwner({ area: chrome.storage.local, broadcast });

    const router = createRequestRouter(
      'background',
      // Every handler runs after the persisted tunables are restored, so none reads a default by mistake.
      tunables.afterRestore({
        'settings/get': () => loadSettings(),
        'settings/set': async ({ patch }) => {
          if (patch.handsFree === true || patch.visionEnabled === true) requirePanel();
          if (patch.mirrorBaseUrl) patch = { ...patch, mirrorBaseUrl: checkedMirror(patch.mirrorBaseUrl) };
          const settings = await saveSettings(patch);
          broadcast(eventMessage('event/settings', { settings }));
          if (patch.handsFree !== undefined) void conversation.applyHandsFree(settings.handsFree);
          if (patch.visionEnabled !== undefined) void conversation.applyVision(settings.visionEnabled);
          // Awaited: once the switch's request returns, the engine neither learns nor uses facts (or does again).
          if (patch.memoryEnabled !== undefined) await memory.applyEnabled().catch(() => undefined);
          return settings;
        },
        'status/get': () => readStatus(),
        'offscreen/ensure': () => ensureOffscreen(),
        'listening/toggle': async () => {
          const on = !(await loadSettings()).handsFree;
          if (on) requirePanel();
          const settings = await saveSettings({ handsFree: on });
          broadcast(eventMessage('event/settings', { settings }));
          void conversation.applyHandsFree(settings.handsFree);
          return settings;
        },
        ...weights.handlers,
        ...createToolHandlers(),
        ...memory.handlers,
        ...createCharacterHandlers({ area: chrome.storage.local, broadcast, send: (m) => chrome.runtime.sendMessage(m) }),
        ...createRemoteLlmHandlers(chrome.storage.local),
        ...createTtsVerdictHandlers(chrome.storage.local),
        ...tunables.handlers,
      }),
      logError,
      {
        // Requests relayed through here keep their name: the relay part adds its context, the router forwards.
        relays: { ...weights.relays, ...conversation.relays },
        forward: async (message) => {
          await ensureOffscreen();
          return chrome.runtime.sendMessage(message);
        },
      },
    );

    const onEvent = createEventReceiver((event) => {
      if (event.type === 'event/offscreen-status') void writeStatus(event.payload.status);
      if (event.type === 'event/offscreen-ready') {
        void writeStatus(event.payload.status);
        // A re-created engine resumes what the user switched on only while a side panel is open.
        if (lease.mayStart())
          void loadSettings().then(async (s) => {
            if (s.handsFree) await conversation.applyHandsFree(true);
            if (s.visionEnabled) await conversation.applyVision(true);
          });
      }
      memory.onEvent(event);
      void weights.onEvent(event).catch((err: unknown) => console.warn('[sidetalk] weights relay:', err));
    }, logError);

    chrome.runtime.onMessage.addListener((raw: unknown, sender, sendResponse) => {
      const { kind, verdict } = verdictFor(sender, raw);
      if (!verdict.accept) {
        if (!verdict.answer || !isAddressedTo(raw, 'background')) return false;
        logError(verdict.answer);
        console.warn(`[sidetalk] refused a message from the ${kind}`);
        sendResponse({ ok: false, error: verdict.answer });
        return false;
      }
      onEvent(raw);
      const reply = router.handle(raw);
      if (!reply) return false;
      void reply.then(sendResponse);
      return true;
    });

    // The offscreen document and every open side panel hold a port: its disconnect is the fastest death signal.
    chrome.runtime.onConnect.addListener((port) => {
      if (port.sender?.id !== chrome.runtime.id) return port.disconnect();
      if (port.name === 'sidepanel') {
        lease.panelOpened();
        void ensureOffscreen().catch(() => undefined);
        port.onDisconnect.addListener(() => lease.panelClosed());
      } else if (port.name === 'offscreen') {
        lastHeartbeatAt = Date.now();
        port.onMessage.addListener(() => {
          lastHeartbeatAt = Date.now();
        });
        port.onDisconnect.addListener(() => {
          lastHeartbeatAt = -Infinity;
          void (async () => {
            await writeStatus(null);
            // Only for an open panel, or for a download the user started (it goes on with no panel open; the pending
            // list survives this worker): never to listen with nobody there.
            if (lease.mayRecreateEngine(await weights.hasPending())) await ensureOffscreen();
          })().catch((err: unknown) => console.warn('[sidetalk] could not re-create the offscreen document', err));
        });
      }
    });

    setInterval(() => {
      if (!lease.open) return;
      void keeper.check().then((result) => {
        if (result === 'replaced') console.warn('[sidetalk] the offscreen document stopped answering: replaced');
        if (result === 'busy') console.warn('[sidetalk] the offscreen document answers late but its heartbeat arrives: kept');
        if (result === 'created' || result === 'replaced') void writeStatus(undefined, true);
      });
    }, HEALTH_CHECK_MS);

    chrome.runtime.onInstalled.addListener(() => {
      void migrateSettings();
      void chrome.sidePanel.setPanelBehavior({ openPanelOnActionClick: false }).catch(() => undefined);
    });

    // A worker that restarted while a panel was open hears it reconnect; with none, nothing may stay on.
    lease.workerStarted();

    // Nothing starts at browser start: hands-free and vision are this session's switches (session storage), off until
    // the user turns them on in the open side panel or the popup (core/lifecycle/media-session.ts).

    chrome.commands.onCommand.addListener((command, tab) => {
      if (command !== 'toggle-listening') return;
      // A keyboard command counts as a user gesture, so the panel may be opened from here. It starts listening only
      // when a side panel was already open (the user sees what they start); with none, this press opens one.
      if (tab?.windowId !== undefined) void chrome.sidePanel.open({ windowId: tab.windowId }).catch(() => undefined);
      void (async () => {
        const on = !(await loadSettings()).handsFree;
        if (on && !lease.mayStart()) return;
        const settings = await saveSettings({ handsFree: on });
        broadcast(eventMessage('event/settings', { settings }));
        await conversation.applyHandsFree(settings.handsFree);
      })();
    });
  },
});
