import { useEffect, useState } from 'preact/hooks';
import type { EngineState } from '../../core/engine/types';
import { createEventReceiver } from '../../core/protocol';

export interface TranscriptLine {
  key: string;
  role: 'user' | 'assistant';
  text: string;
  final: boolean;
}

export interface ConversationView {
  state: EngineState;
  detail: string | null;
  lines: TranscriptLine[];
  card: Record<string, unknown> | null;
  notice: { level: 'info' | 'error'; message: string } | null;
}

const MAX_LINES = 200;

/** The conversation as the side panel shows it, kept live from the engine's events. */
export function useConversation(): [ConversationView, () => void] {
  const [view, setView] = useState<ConversationView>({ state: 'idle', detail: null, lines: [], card: null, notice: null });
  useEffect(() => {
    // The engine's document numbers turns from 1 again when it is re-created (it crashed or was closed), so caption
    // keys carry an epoch that moves on when the document goes away; otherwise a new turn 1 overwrites the old one.
    let epoch = 0;
    const receive = createEventReceiver(
      (event) => {
        const gone = event.type === 'event/status' && event.payload.status.offscreen === null;
        if (gone) epoch += 1;
        const turnEpoch = epoch;
        setView((v) => {
          if (gone) {
            // A reply in flight died with the document: leave "Thinking…/Speaking" and say so, keep the transcript.
            if (v.state === 'idle' || v.state === 'listening') return v;
            return {
              ...v,
              state: 'idle',
              detail: null,
              notice: { level: 'error', message: 'The assistant restarted and lost its reply. Please ask again.' },
            };
          }
          switch (event.type) {
            case 'event/engine-state':
              return { ...v, state: event.payload.state, detail: event.payload.detail ?? null };
            case 'event/caption': {
              const { role, text, final, turnId } = event.payload;
              const key = `${turnEpoch}:${turnId}-${role}`;
              // Captions are cumulative per turn (the engine re-sends the whole text so far): replace in place.
              const at = v.lines.findIndex((l) => l.key === key);
              const line = { key, role, text, final };
              const next = at >= 0 ? v.lines.map((l, i) => (i === at ? line : l)) : [...v.lines, line].slice(-MAX_LINES);
              return { ...v, lines: next, notice: null };
            }
            case 'event/card':
              return { ...v, card: event.payload.card };
            case 'event/notice':
              return { ...v, notice: event.payload };
            default:
              return v;
          }
        });
      },
      () => undefined,
    );
    chrome.runtime.onMessage.addListener(receive);
    return () => chrome.runtime.onMessage.removeListener(receive);
  }, []);
  return [view, () => setView((v) => ({ ...v, notice: null }))];
}
