import { eventMessage, sendRequest, type Handlers, type RequestPayload, type RequestType } from '../../core/protocol';
import { configuredMirror } from '../../core/weights';
import { loadSettings } from './settings-store';

const send = (message: unknown) => chrome.runtime.sendMessage(message);

/** Forwards the UI's conversation commands to the engine in the offscreen document, with the mirror to load from. */
export function createConversationRelay(ensureOffscreen: () => Promise<unknown>) {
  async function models() {
    const s = await loadSettings();
    return {
      asr: s.asrModel === 'whisper-base' ? ('whisper' as const) : ('moonshine' as const),
      device: s.computeBackend,
      language: s.speechLanguage,
    };
  }

  async function baseUrl(): Promise<string | null> {
    return configuredMirror((await loadSettings()).mirrorBaseUrl);
  }

  async function toEngine<T extends RequestType>(type: T, payload: RequestPayload<T>, timeoutMs = 120_000) {
    await ensureOffscreen();
    const reply = await sendRequest(send, type, payload, timeoutMs);
    if (!reply.ok) throw new Error(reply.error.message);
    return reply.data;
  }

  const handlers: Pick<Handlers<'background'>, 'chat/send' | 'chat/interrupt' | 'chat/ptt'> = {
    'chat/ptt': async ({ down }) => {
      await toEngine('conversation/ptt', { down, baseUrl: await baseUrl(), models: await models() });
      return {};
    },
    'chat/send': async ({ text }) => {
      await toEngine('conversation/text', { text, baseUrl: await baseUrl(), models: await models() });
      return {};
    },
    'chat/interrupt': async () => {
      await toEngine('conversation/interrupt', {});
      return {};
    },
  };

  return {
    handlers,
    /** Vision on opens the camera in the engine's document; off stops its tracks at once. */
    async applyVision(on: boolean): Promise<void> {
      try {
        await toEngine('vision/set', { on, baseUrl: await baseUrl() });
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        void send(eventMessage('event/notice', { level: 'error', message })).catch(() => undefined);
      }
    },

    /** Hands-free on starts the mic and the engine; off stops both (the mic indicator goes off). */
    async applyHandsFree(on: boolean): Promise<void> {
      try {
        if (on) await toEngine('conversation/start', { baseUrl: await baseUrl(), models: await models() });
        else await toEngine('conversation/stop', {});
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        void send(eventMessage('event/notice', { level: 'error', message })).catch(() => undefined);
      }
    },
  };
}
