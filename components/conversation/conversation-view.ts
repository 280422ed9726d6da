/**
 * The conversation as the side panel shows it, as a pure function of the engine's events (unit-tested in Node:
 * tests/unit/ux/conversation-view.test.ts). useConversation.ts feeds it.
 */
import type { EngineState } from '../../core/engine/types';
import type { EventMessage } from '../../core/protocol';
import { toUserError, type FixAction } from '../../core/ux/user-errors';

export interface TranscriptLine {
  key: string;
  role: 'user' | 'assistant';
  text: string;
  final: boolean;
}

export interface Notice {
  level: 'info' | 'error';
  /** One plain sentence (core/ux/user-errors.ts); the raw text went to the debug log. */
  message: string;
  action: FixAction;
}

export interface ConversationView {
  state: EngineState;
  detail: string | null;
  /** The engine said it is listening, and has not gone back to idle since: the only proof the mic is live. */
  listening: boolean;
  lines: TranscriptLine[];
  card: Record<string, unknown> | null;
  notice: Notice | null;
  /**
   * The notice came while a reply was in flight and that reply has not ended yet: the user caption of that same turn
   * can arrive after it (the engine starts thinking on a draft before the caption is final), and must not clear it.
   */
  noticeHeld: boolean;
  /** When the notice appeared (the `now` of its event): it stays at least NOTICE_MIN_MS. */
  noticeAt: number;
}

/**
 * A notice stays readable this long even if a new user turn starts at once (a typed turn queued behind the reply
 * the notice interrupted starts within milliseconds of it; clearing then showed a GPU-loss notice for 30 ms).
 */
export const NOTICE_MIN_MS = 6000;

export const EMPTY_VIEW: ConversationView = {
  state: 'idle',
  detail: null,
  listening: false,
  lines: [],
  card: null,
  notice: null,
  noticeHeld: false,
  noticeAt: 0,
};

const MAX_LINES = 200;

/** Caption keys carry the epoch of the engine's document: a re-created document numbers its turns from 1 again. */
const lineKey = (epoch: number, turnId: string, role: string) => `${epoch}:${turnId}-${role}`;

/** The view after one event at clock time `now` (ms); an `event/status` can say the engine's document went away. */
export function applyEvent(v: ConversationView, event: EventMessage, epoch: number, now: number): ConversationView {
  if (event.type === 'event/status' && event.payload.status.offscreen === null) {
    if (v.state === 'idle' || v.state === 'listening') return { ...v, state: 'idle', listening: false };
    // A reply in flight died with the document: leave "Thinking…/Speaking" and say so, keep the transcript.
    const message = 'The assistant restarted and lost its reply. Please ask again.';
    const notice = { level: 'error', message, action: 'none' } as const;
    return { ...v, state: 'idle', detail: null, listening: false, notice, noticeAt: now };
  }
  switch (event.type) {
    case 'event/engine-state': {
      const { state, detail } = event.payload;
      const listening = state === 'listening' ? true : state === 'idle' ? false : v.listening;
      const replyOver = state === 'idle' || state === 'listening';
      return { ...v, state, detail: detail ?? null, listening, noticeHeld: v.noticeHeld && !replyOver };
    }
    case 'event/caption': {
      const { role, text, final, turnId, replaces } = event.payload;
      const key = lineKey(epoch, turnId, role);
      const line = { key, role, text, final };
      // Captions are cumulative per turn (the engine re-sends the whole text so far): replace in place. A merged
      // continuation takes the place of the partial line it replaces, so each user turn stays one line.
      let next = v.lines;
      const old = replaces ? next.findIndex((l) => l.key === lineKey(epoch, replaces, 'user')) : -1;
      if (old >= 0 && !next.some((l) => l.key === key)) next = next.map((l, i) => (i === old ? line : l));
      else {
        if (old >= 0) next = next.filter((_, i) => i !== old);
        const at = next.findIndex((l) => l.key === key);
        next = at >= 0 ? next.map((l, i) => (i === at ? line : l)) : [...next, line].slice(-MAX_LINES);
      }
      // A notice outlives the rest of the reply it came with (a GPU loss mid-reply must stay readable while the last
      // captions arrive); the user's next turn clears it, once it has been up NOTICE_MIN_MS.
      const newUserTurn = role === 'user' && !v.lines.some((l) => l.key === key) && old < 0;
      const clear = newUserTurn && !v.noticeHeld && now - v.noticeAt >= NOTICE_MIN_MS;
      return { ...v, lines: next, notice: clear ? null : v.notice };
    }
    case 'event/card':
      return { ...v, card: event.payload.card };
    case 'event/notice': {
      const { level, message } = event.payload;
      const noticeHeld = v.state === 'thinking' || v.state === 'speaking';
      if (level === 'info') {
        return { ...v, noticeHeld, noticeAt: now, notice: { level, message: toUserError(message).sentence, action: 'none' } };
      }
      const user = toUserError(message);
      // The raw text stays in the debug log (docs/onboarding.md, "Errors").
      if (user.detail !== user.sentence) console.warn('[sidetalk] notice:', user.detail);
      return { ...v, noticeHeld, noticeAt: now, notice: { level, message: user.sentence, action: user.action } };
    }
    default:
      return v;
  }
}
