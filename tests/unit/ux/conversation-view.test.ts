/**
 * The side panel's conversation reducer (components/conversation/conversation-view.ts): one line per user turn when
 * the engine merges a continuation, "listening" only once the engine says so, and notices in plain words.
 */
import { describe, expect, it, vi } from 'vitest';
import { applyEvent, EMPTY_VIEW, NOTICE_MIN_MS, type ConversationView } from '../../../components/conversation/conversation-view';
import { eventMessage, type EventMessage } from '../../../core/protocol';

/** Events applied in order, all at clock time `now`. */
const run = (events: EventMessage[], from: ConversationView = EMPTY_VIEW, epoch = 0, now = 0) =>
  events.reduce((v, e) => applyEvent(v, e, epoch, now), from);
const caption = (turnId: string, role: 'user' | 'assistant', text: string, replaces?: string) =>
  eventMessage('event/caption', { role, text, final: true, turnId, ...(replaces ? { replaces } : {}) });
const state = (s: 'idle' | 'listening' | 'thinking' | 'speaking', detail?: string) =>
  eventMessage('event/engine-state', { state: s, ...(detail ? { detail } : {}) });

describe('transcript lines', () => {
  it('a merged continuation replaces the partial line of the turn it continues, in its place', () => {
    const v = run([
      caption('t1', 'user', 'What did we say?'),
      caption('t1', 'assistant', 'We talked about trains.'),
      caption('t2', 'user', 'Tell me about Lisbon.'),
      caption('t3', 'user', 'Tell me about Lisbon. And its old trams.', 't2'),
      caption('t3', 'assistant', 'Lisbon trams are famous.'),
    ]);
    expect(v.lines.map((l) => [l.role, l.text])).toEqual([
      ['user', 'What did we say?'],
      ['assistant', 'We talked about trains.'],
      ['user', 'Tell me about Lisbon. And its old trams.'],
      ['assistant', 'Lisbon trams are famous.'],
    ]);
    expect(v.lines.filter((l) => l.key.includes('t2'))).toEqual([]);
  });

  it('replaces nothing else: an unknown turn, another epoch, or an assistant line of that turn stay', () => {
    const before = run([caption('t2', 'user', 'Half.'), caption('t2', 'assistant', 'Hmm')]);
    const merged = applyEvent(before, caption('t3', 'user', 'Half. And the rest.', 't2'), 0, 0);
    expect(merged.lines.map((l) => l.text)).toEqual(['Half. And the rest.', 'Hmm']);
    const unknown = applyEvent(before, caption('t3', 'user', 'New.', 't9'), 0, 0);
    expect(unknown.lines.map((l) => l.text)).toEqual(['Half.', 'Hmm', 'New.']);
    const otherEpoch = applyEvent(before, caption('t3', 'user', 'New.', 't2'), 1, 0);
    expect(otherEpoch.lines.map((l) => l.text)).toEqual(['Half.', 'Hmm', 'New.']);
  });

  it('cumulative captions of one turn stay one line', () => {
    const v = run([caption('t1', 'assistant', 'The'), caption('t1', 'assistant', 'The capital')]);
    expect(v.lines.map((l) => l.text)).toEqual(['The capital']);
  });
});

describe('listening', () => {
  it('is true only after the engine said "listening", and false again when it rests', () => {
    expect(EMPTY_VIEW.listening).toBe(false);
    expect(run([state('idle', 'Loading the models…')]).listening).toBe(false);
    const on = run([state('listening')]);
    expect(on.listening).toBe(true);
    expect(run([state('thinking'), state('speaking')], on).listening).toBe(true);
    expect(run([state('idle')], on).listening).toBe(false);
    // A typed turn with the mic off never claims to listen.
    expect(run([state('thinking'), state('speaking')]).listening).toBe(false);
    const gone = eventMessage('event/status', { status: { offscreen: null, offscreenCreatedCount: 1 } });
    expect(applyEvent(on, gone, 0, 0).listening).toBe(false);
  });
});

describe('notices', () => {
  it('shows an engine failure as one plain sentence with its action; the raw text goes to the debug log', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const raw = '"conversation/start" failed: The voice models are not downloaded yet. Open Settings → Models and download them.';
    const v = run([eventMessage('event/notice', { level: 'error', message: raw })]);
    expect(v.notice).toEqual({ level: 'error', message: 'The voice models are not downloaded yet.', action: 'download-models' });
    expect(warn).toHaveBeenCalledWith('[sidetalk] notice:', raw);
    warn.mockRestore();
  });
});

describe('how long a notice stays', () => {
  const gpu = eventMessage('event/notice', {
    level: 'info',
    message: 'The GPU stopped responding, so Sidetalk moved to the CPU.',
  });

  it('stays while the rest of the reply it came with is captioned', () => {
    const v = run([
      caption('t1', 'user', 'tell me a story'),
      caption('t1', 'assistant', 'Once'),
      gpu,
      caption('t1', 'assistant', 'Once upon'),
    ]);
    expect(v.notice?.message).toMatch(/GPU stopped responding/);
  });

  it('stays when a merged continuation replaces the partial user line', () => {
    const v = run([caption('t1', 'user', 'what about'), gpu, caption('t2', 'user', 'what about Paris', 't1')]);
    expect(v.notice?.message).toMatch(/GPU stopped responding/);
  });

  it('stays when the user caption of the turn in flight arrives after it, until that reply ends', () => {
    // The engine thinks on a draft before the user's caption is final: the caption can trail a mid-reply notice.
    const held = run([state('thinking'), gpu, state('thinking'), caption('t2', 'user', 'tell me a long story')]);
    expect(held.notice?.message).toMatch(/GPU stopped responding/);
    const spoken = run([caption('t2', 'assistant', 'The sea'), state('speaking'), state('idle')], held);
    expect(spoken.notice?.message).toMatch(/GPU stopped responding/);
    expect(run([caption('t3', 'user', 'and then?')], spoken, 0, NOTICE_MIN_MS).notice).toBeNull();
  });

  it("is cleared by the user's next turn once it has been readable for its minimum time", () => {
    const shown = run([caption('t1', 'user', 'tell me a story'), gpu, caption('t1', 'assistant', 'Once')]);
    expect(run([caption('t2', 'user', 'and then?')], shown, 0, NOTICE_MIN_MS).notice).toBeNull();
  });

  it('stays when a turn queued behind the interrupted reply starts at once (the reply ended, the next one begins)', () => {
    // A typed question sent while the reply still spoke: the GPU loss ends that reply, and the queued turn's user
    // caption arrives milliseconds later.
    const shown = run([caption('t1', 'user', 'what is 6 times 7'), state('speaking'), gpu, state('idle')], EMPTY_VIEW, 0, 1000);
    const queued = run([state('thinking'), caption('t2', 'user', 'tell me a long story')], shown, 0, 1030);
    expect(queued.notice?.message).toMatch(/GPU stopped responding/);
    expect(run([caption('t3', 'user', 'and now?')], queued, 0, 1000 + NOTICE_MIN_MS).notice).toBeNull();
  });
});
