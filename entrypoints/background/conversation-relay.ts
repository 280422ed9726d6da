import {
  eventMessage,
  sendRequest,
  type RequestContext,
  type Relays,
  type RequestPayload,
  type RequestType,
  type Send,
  type Settings,
} from '../../core/protocol';
import { configuredMirror } from '../../core/weights';
import { loadSettings, saveSettings } from './settings-store';
import { chromeOffscreenAdapter } from './offscreen-adapter';

export interface ConversationRelayDeps {
  settings: () => Promise<Settings>;
  send: Send;
  /** Hands-free could not start: the setting goes back off, so no panel shows a listening orb that hears nothing. */
  handsFreeFailed?: () => Promise<void>;
  /** Whether the engine's document exists: switching off never creates one just to say "off" (true when absent). */
  engineOpen?: () => Promise<boolean>;
  /** Whether the microphone may open now: only for an open side panel (core/lifecycle/listening-lease.ts). */
  mayStart?: () => boolean;
}

/** Why a request that would open the microphone or the camera was refused. */
export const NO_PANEL_MESSAGE = 'Open the Sidetalk side panel to turn on listening or the camera.';

/** What the engine needs from the settings to answer a conversation command: the mirror and the chosen models. */
export function engineContext(s: Settings): RequestContext<'conversation/text'> {
  return {
    baseUrl: configuredMirror(s.mirrorBaseUrl),
    models: {
      asr: s.asrModel === 'whisper-base' ? 'whisper' : 'moonshine',
      device: s.computeBackend,
      language: s.speechLanguage,
    },
  };
}

const chromeDeps = (): ConversationRelayDeps => ({
  settings: loadSettings,
  send: (message) => chrome.runtime.sendMessage(message),
  handsFreeFailed: async () => {
    const settings = await saveSettings({ handsFree: false });
    void chrome.runtime.sendMessage(eventMessage('event/settings', { settings })).catch(() => undefined);
  },
  engineOpen: () => chromeOffscreenAdapter().exists(),
});

/**
 * The background's part in the UI's conversation commands (relayed to the engine in the offscreen document under
 * their own names): it adds the mirror and the models from the settings. Hands-free and vision are its own commands.
 */
export function createConversationRelay(
  ensureOffscreen: () => Promise<unknown>,
  deps: ConversationRelayDeps = chromeDeps(),
  extra: Pick<ConversationRelayDeps, 'mayStart'> = {},
) {
  const { send } = deps;
  const mayStart = extra.mayStart ?? deps.mayStart ?? (() => true);
  const engineOpen = deps.engineOpen ?? (async () => true);
  const context = async () => engineContext(await deps.settings());

  async function toEngine<T extends RequestType>(type: T, payload: RequestPayload<T>, timeoutMs = 120_000) {
    await ensureOffscreen();
    const reply = await sendRequest(send, type, payload, timeoutMs);
    if (!reply.ok) throw new Error(reply.error.message);
    return reply.data;
  }

  /** Off goes only to an engine that exists: with none, nothing is capturing and none is created to say so. */
  async function offToEngine<T extends 'conversation/stop' | 'vision/set'>(type: T, payload: RequestPayload<T>) {
    if (!(await engineOpen())) return;
    const reply = await sendRequest(send, type, payload, 10_000);
    if (!reply.ok) throw new Error(reply.error.message);
  }

  const relays: Pick<
    Relays<'background'>,
    'conversation/text' | 'conversation/ptt' | 'conversation/interrupt' | 'conversation/greet'
  > = {
    'conversation/text': context,
    'conversation/ptt': async ({ down }) => {
      if (down && !mayStart()) throw new Error(NO_PANEL_MESSAGE);
      return context();
    },
    'conversation/greet': context,
    'conversation/interrupt': () => undefined,
  };

  return {
    relays,
    /**
     * The last side panel closed: the engine stops listening (hands-free and a held push-to-talk) and the camera, if
     * it exists; nothing is created for it.
     */
    async stopMedia(): Promise<void> {
      const { baseUrl } = await context();
      await Promise.allSettled([offToEngine('conversation/stop', {}), offToEngine('vision/set', { on: false, baseUrl })]);
    },
    /** Vision on opens the camera in the engine's document; off stops its tracks at once. */
    async applyVision(on: boolean): Promise<void> {
      try {
        const { baseUrl } = await context();
        if (on) await toEngine('vision/set', { on, baseUrl });
        else await offToEngine('vision/set', { on, baseUrl });
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        void send(eventMessage('event/notice', { level: 'error', message })).catch(() => undefined);
      }
    },

    /** Hands-free on starts the mic and the engine; off stops both (the mic indicator goes off). */
    async applyHandsFree(on: boolean): Promise<void> {
      try {
        if (on) await toEngine('conversation/start', await context());
        else await offToEngine('conversation/stop', {});
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        void send(eventMessage('event/notice', { level: 'error', message })).catch(() => undefined);
        if (on) await deps.handsFreeFailed?.().catch(() => undefined);
      }
    },
  };
}
