import { useEffect, useState } from 'preact/hooks';
import { createEventReceiver } from '../../core/protocol';
import type { UserError } from '../../core/ux/user-errors';
import { request, fromBroadcasters } from '../ui/runtime';
import { applyEvent, EMPTY_VIEW, type ConversationView } from './conversation-view';

export type { ConversationView, TranscriptLine } from './conversation-view';

export interface ConversationControls {
  dismissNotice(): void;
  /** A failure of the panel's own request, shown in the same place as the engine's notices. */
  showError(error: UserError): void;
}

/** The conversation as the side panel shows it, kept live from the engine's events (conversation-view.ts). */
export function useConversation(): [ConversationView, ConversationControls] {
  const [view, setView] = useState<ConversationView>(EMPTY_VIEW);
  useEffect(() => {
    // The engine's document numbers turns from 1 again when it is re-created (it crashed or was closed), so caption
    // keys carry an epoch that moves on when the document goes away; otherwise a new turn 1 overwrites the old one.
    let epoch = 0;
    let heard = false;
    const receive = createEventReceiver(
      (event) => {
        if (event.type === 'event/status' && event.payload.status.offscreen === null) epoch += 1;
        if (event.type === 'event/engine-state') heard = true;
        const turnEpoch = epoch;
        setView((v) => applyEvent(v, event, turnEpoch, Date.now()));
      },
      () => undefined,
    );
    const listener = fromBroadcasters(receive);
    chrome.runtime.onMessage.addListener(listener);
    // A panel opened while the engine already listens: its capture is the proof until the engine's next event.
    request('offscreen/status', {})
      .then((s) => {
        if (!heard && s.mic.capturing) setView((v) => ({ ...v, listening: true }));
      })
      .catch(() => undefined);
    return () => chrome.runtime.onMessage.removeListener(listener);
  }, []);
  return [
    view,
    {
      dismissNotice: () => setView((v) => ({ ...v, notice: null })),
      showError: (e) =>
        setView((v) => ({ ...v, noticeAt: Date.now(), notice: { level: 'error', message: e.sentence, action: e.action } })),
    },
  ];
}
