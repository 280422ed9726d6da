import type { OffscreenAdapter } from '../../core/lifecycle/offscreen-keeper';
import { requestMessage } from '../../core/protocol';

export const OFFSCREEN_PATH = '/offscreen.html';

/** The chrome.offscreen side of the keeper; everything Chrome-specific about the document lives here. */
export function chromeOffscreenAdapter(): OffscreenAdapter {
  const url = chrome.runtime.getURL(OFFSCREEN_PATH);
  return {
    async exists() {
      const contexts = await chrome.runtime.getContexts({
        contextTypes: [chrome.runtime.ContextType.OFFSCREEN_DOCUMENT],
        documentUrls: [url],
      });
      return contexts.length > 0;
    },
    async create() {
      await chrome.offscreen.createDocument({
        url: OFFSCREEN_PATH,
        reasons: [chrome.offscreen.Reason.WORKERS, chrome.offscreen.Reason.USER_MEDIA],
        justification:
          'Runs the local speech-recognition, language and speech-synthesis models in workers, and captures the microphone (and the camera when vision is on).',
      });
    },
    async close() {
      await chrome.offscreen.closeDocument();
    },
    async ping(timeoutMs) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      try {
        await Promise.race([
          chrome.runtime.sendMessage(requestMessage('offscreen/ping', {})).then((reply: unknown) => {
            if (!reply || (reply as { ok?: unknown }).ok !== true) throw new Error('offscreen ping failed');
          }),
          new Promise((_, reject) => {
            timer = setTimeout(() => reject(new Error('offscreen ping timed out')), timeoutMs);
          }),
        ]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
