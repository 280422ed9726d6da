import { protocolError, type ProtocolError } from './errors';

/**
 * Who may say what to whom (docs/security.md, "Trust boundaries"). Chrome tells a listener the sender's extension id
 * and URL; a script injected into a web page (the page extractor) carries this extension's id with the page's URL, so
 * both are checked. Each context runs `checkSender` before its router sees a message:
 * - anything not from this extension's own pages is ignored, unanswered (a web page learns nothing);
 * - a forwarded hop (`relayedBy`) is accepted only from the background, the one relay (docs/protocol.md);
 * - the background starts the microphone or the camera only for the open side panel or the popup, whose clicks are
 *   the user's action in this browser session; the offscreen document opens them only when the background says so;
 * - events come only from the contexts that broadcast them: the offscreen document to the background, the background
 *   to the offscreen document, both to the UI pages.
 */
export type SenderKind =
  'background' | 'offscreen' | 'sidepanel' | 'popup' | 'permissions' | 'extension-page' | 'web-page' | 'foreign';

export interface SenderInfo {
  id?: string | undefined;
  url?: string | undefined;
}

/** This extension as a listener sees it: `chrome.runtime.id` and `chrome.runtime.getURL('')`. */
export interface OwnExtension {
  id: string;
  origin: string;
}

/** The receiving contexts: the two that answer requests, and the UI pages that only receive events. */
export type Receiver = 'background' | 'offscreen' | 'page';

export type SenderVerdict = { accept: true } | { accept: false; answer: ProtocolError | null };

const PAGES: Record<string, SenderKind> = {
  '/background.js': 'background',
  '/offscreen.html': 'offscreen',
  '/sidepanel.html': 'sidepanel',
  '/popup.html': 'popup',
  '/permissions.html': 'permissions',
};

export function senderKind(sender: SenderInfo, own: OwnExtension): SenderKind {
  if (sender.id !== own.id) return 'foreign';
  const url = sender.url ?? '';
  if (!url.startsWith(own.origin)) return 'web-page';
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    return 'web-page';
  }
  return PAGES[path] ?? 'extension-page';
}

/** The few fields the policy reads from a message that has not been validated yet (the router validates it after). */
function fields(raw: unknown): { kind: unknown; type: unknown; relayedBy: unknown; payload: Record<string, unknown> } {
  const r = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  const payload = typeof r.payload === 'object' && r.payload !== null ? (r.payload as Record<string, unknown>) : {};
  return { kind: r.kind, type: r.type, relayedBy: r.relayedBy, payload };
}

/** A request to the background that would open the microphone or the camera. */
function startsMedia(type: unknown, payload: Record<string, unknown>): boolean {
  if (type === 'listening/toggle') return true;
  if (type === 'conversation/ptt') return payload.down === true;
  if (type !== 'settings/set') return false;
  const patch = (typeof payload.patch === 'object' && payload.patch !== null ? payload.patch : {}) as Record<string, unknown>;
  return patch.handsFree === true || patch.visionEnabled === true;
}

/** A request to the offscreen document that opens the microphone or the camera. */
function opensDevice(type: unknown, payload: Record<string, unknown>): boolean {
  return type === 'conversation/start' || (type === 'vision/set' && payload.on === true);
}

const refuse = (message: string): SenderVerdict => ({ accept: false, answer: protocolError('forbidden', message) });

export function checkSender(me: Receiver, sender: SenderKind, raw: unknown): SenderVerdict {
  if (sender === 'foreign' || sender === 'web-page') return { accept: false, answer: null };
  const m = fields(raw);
  if (me === 'page') {
    // UI pages never answer; an event from anyone but its two broadcasters is dropped like noise.
    return sender === 'background' || sender === 'offscreen' ? { accept: true } : { accept: false, answer: null };
  }
  if (m.kind === 'event') {
    // The background hears events from the offscreen document (its status, memory, downloads), the offscreen
    // document from the background (tunables); nobody else broadcasts.
    const broadcaster = me === 'background' ? 'offscreen' : 'background';
    return sender === broadcaster ? { accept: true } : { accept: false, answer: null };
  }
  if (m.relayedBy !== undefined && sender !== 'background') return refuse('Only the background relays requests.');
  if (me === 'background' && startsMedia(m.type, m.payload) && sender !== 'sidepanel' && sender !== 'popup')
    return refuse('Listening and the camera start only from the side panel or the popup.');
  if (me === 'offscreen' && opensDevice(m.type, m.payload) && sender !== 'background')
    return refuse('The microphone and the camera open only when the background asks.');
  return { accept: true };
}
