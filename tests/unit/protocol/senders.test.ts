import { describe, expect, it } from 'vitest';
import {
  checkSender,
  eventMessage,
  relayedMessage,
  requestMessage,
  senderKind,
  type Receiver,
  type SenderKind,
} from '../../../core/protocol';
import { DEFAULT_SETTINGS } from '../../../core/protocol/settings';

const OWN = { id: 'abcdefghijklmnopabcdefghijklmnop', origin: 'chrome-extension://abcdefghijklmnopabcdefghijklmnop/' };
const page = (path: string) => ({ id: OWN.id, url: `${OWN.origin}${path}` });

const ENGINE = { baseUrl: null, models: { asr: 'moonshine', device: 'auto', language: 'en' } } as const;

const MESSAGES = {
  handsFreeOn: requestMessage('settings/set', { patch: { handsFree: true } }),
  visionOn: requestMessage('settings/set', { patch: { visionEnabled: true } }),
  handsFreeOff: requestMessage('settings/set', { patch: { handsFree: false } }),
  theme: requestMessage('settings/set', { patch: { theme: 'dark' } }),
  toggle: requestMessage('listening/toggle', {}),
  pttDown: requestMessage('conversation/ptt', { down: true }),
  pttUp: requestMessage('conversation/ptt', { down: false }),
  text: requestMessage('conversation/text', { text: 'hello' }),
  start: requestMessage('conversation/start', { baseUrl: null }),
  stop: requestMessage('conversation/stop', {}),
  visionSetOn: requestMessage('vision/set', { on: true, baseUrl: null }),
  visionSetOff: requestMessage('vision/set', { on: false, baseUrl: null }),
  forwardedText: relayedMessage('conversation/text', { text: 'hello' }, ENGINE),
  forwardedPtt: relayedMessage('conversation/ptt', { down: true }, ENGINE),
  settingsEvent: eventMessage('event/settings', { settings: DEFAULT_SETTINGS }),
  memoryEvent: eventMessage('event/memory', { memory: { version: 1, facts: [] } }),
  tunablesEvent: eventMessage('event/tunables', { version: 3, overrides: {} }),
} as const;

const UI: SenderKind[] = ['sidepanel', 'popup'];
const OTHER_PAGES: SenderKind[] = ['permissions', 'offscreen', 'extension-page'];
const accepted = (me: Receiver, from: SenderKind, raw: unknown) => checkSender(me, from, raw).accept;
const refusal = (me: Receiver, from: SenderKind, raw: unknown) => {
  const v = checkSender(me, from, raw);
  return v.accept ? null : v.answer;
};

describe('who sent a message (senderKind)', () => {
  it.each([
    [page('background.js'), 'background'],
    [page('offscreen.html'), 'offscreen'],
    [page('sidepanel.html'), 'sidepanel'],
    [page('sidepanel.html?tab=1#x'), 'sidepanel'],
    [page('popup.html'), 'popup'],
    [page('permissions.html'), 'permissions'],
    [page('extract.js'), 'extension-page'],
    // The page extractor runs inside the tab: our id, the page's URL.
    [{ id: OWN.id, url: 'https://evil.example/sidepanel.html' }, 'web-page'],
    [{ id: OWN.id, url: `https://evil.example/?${OWN.origin}` }, 'web-page'],
    [{ id: OWN.id }, 'web-page'],
    [{ id: 'another-extension', url: page('sidepanel.html').url }, 'foreign'],
    [{ url: page('sidepanel.html').url }, 'foreign'],
  ] as const)('%j is the %s', (sender, kind) => {
    expect(senderKind(sender, OWN)).toBe(kind);
  });
});

describe('each context refuses unexpected senders (checkSender)', () => {
  it('every context ignores web pages and other extensions without an answer', () => {
    for (const me of ['background', 'offscreen', 'page'] as const) {
      for (const from of ['web-page', 'foreign'] as const) {
        for (const raw of Object.values(MESSAGES)) expect(checkSender(me, from, raw)).toEqual({ accept: false, answer: null });
      }
    }
  });

  it('background: the microphone and the camera start only from the side panel or the popup', () => {
    for (const raw of [MESSAGES.handsFreeOn, MESSAGES.visionOn, MESSAGES.toggle, MESSAGES.pttDown]) {
      for (const from of UI) expect(accepted('background', from, raw), `${from} ${raw.type}`).toBe(true);
      for (const from of [...OTHER_PAGES, 'background' as const]) {
        expect(refusal('background', from, raw), `${from} ${raw.type}`).toMatchObject({
          code: 'forbidden',
          message: expect.stringContaining('side panel or the popup'),
        });
      }
    }
  });

  it('background: anyone of ours may stop them, or ask for anything else', () => {
    for (const raw of [MESSAGES.handsFreeOff, MESSAGES.theme, MESSAGES.pttUp, MESSAGES.text]) {
      for (const from of [...UI, ...OTHER_PAGES]) expect(accepted('background', from, raw), `${from} ${raw.type}`).toBe(true);
    }
  });

  it('background: hears events only from the offscreen document (a page cannot forge what the engine remembers)', () => {
    expect(accepted('background', 'offscreen', MESSAGES.memoryEvent)).toBe(true);
    for (const from of [...UI, 'permissions', 'extension-page'] as const) {
      expect(checkSender('background', from, MESSAGES.memoryEvent)).toEqual({ accept: false, answer: null });
    }
  });

  it('offscreen: opens the microphone or the camera only when the background asks', () => {
    for (const raw of [MESSAGES.start, MESSAGES.visionSetOn]) {
      expect(accepted('offscreen', 'background', raw)).toBe(true);
      for (const from of [...UI, ...OTHER_PAGES]) {
        expect(refusal('offscreen', from, raw), `${from} ${raw.type}`).toMatchObject({ code: 'forbidden' });
      }
    }
    // Closing them is anyone's to ask.
    for (const raw of [MESSAGES.stop, MESSAGES.visionSetOff])
      for (const from of UI) expect(accepted('offscreen', from, raw)).toBe(true);
  });

  it('offscreen: a forwarded hop (relayedBy) comes only from the background, the one relay', () => {
    for (const raw of [MESSAGES.forwardedText, MESSAGES.forwardedPtt]) {
      expect(accepted('offscreen', 'background', raw)).toBe(true);
      for (const from of [...UI, ...OTHER_PAGES]) {
        expect(refusal('offscreen', from, raw), from).toMatchObject({
          code: 'forbidden',
          message: 'Only the background relays requests.',
        });
      }
    }
  });

  it('offscreen: hears events (tunables) only from the background', () => {
    expect(accepted('offscreen', 'background', MESSAGES.tunablesEvent)).toBe(true);
    for (const from of [...UI, 'permissions', 'offscreen'] as const)
      expect(accepted('offscreen', from, MESSAGES.tunablesEvent)).toBe(false);
  });

  it('UI pages: take events only from the background and the offscreen document, and answer nothing', () => {
    for (const raw of [MESSAGES.settingsEvent, MESSAGES.tunablesEvent]) {
      expect(accepted('page', 'background', raw)).toBe(true);
      expect(accepted('page', 'offscreen', raw)).toBe(true);
      for (const from of [...UI, 'permissions', 'extension-page'] as const)
        expect(checkSender('page', from, raw)).toEqual({ accept: false, answer: null });
    }
  });

  it('a message of no known shape is left to the router, which answers it (never a crash here)', () => {
    for (const raw of [null, undefined, 42, 'x', [], { kind: 'request' }, { kind: 'request', payload: null }]) {
      expect(() => checkSender('background', 'sidepanel', raw)).not.toThrow();
      expect(() => checkSender('offscreen', 'background', raw)).not.toThrow();
    }
  });
});
