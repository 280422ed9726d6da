import { useEffect, useState } from 'preact/hooks';
import { createEventReceiver } from '../../core/protocol';

export interface TranscriptLine {
  key: string;
  role: 'user' | 'assistant';
  text: string;
  final: boolean;
}

export interface ConversationView {
  state: 'idle' | 'listening' | 'thinking' | 'speaking';
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
    const receive = createEventReceiver(
      (event) => {
        setView((v) => {
          switch (event.type) {
            case 'event/engine-state':
              return { ...v, state: event.payload.state, detail: event.payload.detail ?? null };
            case 'event/caption': {
              const { role, text, final, turnId } = event.payload;
              const key = `${turnId}-${role}`;
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
