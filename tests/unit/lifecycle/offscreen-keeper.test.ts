import { describe, expect, it } from 'vitest';
import { OffscreenKeeper, type OffscreenAdapter } from '../../../core/lifecycle/offscreen-keeper';

/** A fake of chrome.offscreen with its real rule: a second createDocument while one exists rejects. */
function fakeChrome(opts: { answers?: boolean } = {}) {
  const state = { exists: false, creates: 0, closes: 0, answers: opts.answers ?? true };
  const adapter: OffscreenAdapter = {
    exists: async () => state.exists,
    create: async () => {
      await new Promise((r) => setTimeout(r, 5));
      if (state.exists) throw new Error('Only a single offscreen document may be created.');
      state.exists = true;
      state.creates += 1;
    },
    close: async () => {
      if (!state.exists) throw new Error('No current offscreen document.');
      state.exists = false;
      state.closes += 1;
    },
    ping: async () => {
      if (!state.exists || !state.answers) throw new Error('no answer');
    },
  };
  return { state, adapter };
}

describe('OffscreenKeeper', () => {
  it('creates one document for many concurrent callers', async () => {
    const { state, adapter } = fakeChrome();
    const keeper = new OffscreenKeeper(adapter, { pingTimeoutMs: 10 });
    await Promise.all([keeper.ensure(), keeper.ensure(), keeper.ensure()]);
    await keeper.ensure();
    expect(state.creates).toBe(1);
    expect(keeper.createdCount).toBe(1);
  });

  it('re-creates a document that disappeared', async () => {
    const { state, adapter } = fakeChrome();
    const keeper = new OffscreenKeeper(adapter, { pingTimeoutMs: 10 });
    await keeper.ensure();
    state.exists = false; // closed by Chrome, crashed, or the extension reloaded
    expect(await keeper.check()).toBe('created');
    expect(state.creates).toBe(2);
  });

  it('replaces a document that exists but stopped answering', async () => {
    const { state, adapter } = fakeChrome({ answers: false });
    const keeper = new OffscreenKeeper(adapter, { pingTimeoutMs: 10 });
    await keeper.ensure();
    expect(await keeper.check()).toBe('replaced');
    expect(state.closes).toBe(1);
    expect(state.creates).toBe(2);
    state.answers = true;
    expect(await keeper.check()).toBe('healthy');
    expect(state.creates).toBe(2);
  });

  it('keeps a document that is only slow: it is replaced after the set number of misses in a row, not before', async () => {
    const { state, adapter } = fakeChrome();
    const keeper = new OffscreenKeeper(adapter, { pingTimeoutMs: 10, missesToReplace: 3 });
    await keeper.ensure();
    state.answers = false; // busy: the document's thread is held by its work
    expect(await keeper.check()).toBe('unanswered');
    expect(await keeper.check()).toBe('unanswered');
    state.answers = true; // it answers again: the count starts over
    expect(await keeper.check()).toBe('healthy');
    state.answers = false;
    expect(await keeper.check()).toBe('unanswered');
    expect(await keeper.check()).toBe('unanswered');
    expect(state.closes).toBe(0);
    expect(state.creates).toBe(1);
    expect(await keeper.check()).toBe('replaced');
    expect(state.closes).toBe(1);
    expect(state.creates).toBe(2);
  });

  it('never replaces a document whose heartbeat still arrives, however late its answers; once it stops, it does', async () => {
    const { state, adapter } = fakeChrome();
    let sinceHeartbeat = 1_000;
    const keeper = new OffscreenKeeper(adapter, {
      pingTimeoutMs: 10,
      missesToReplace: 2,
      sinceHeartbeatMs: () => sinceHeartbeat,
      aliveWithinMs: 20_000,
    });
    await keeper.ensure();
    state.answers = false; // its thread runs its timers, but the answers wait behind its work
    for (let i = 0; i < 5; i++) expect(await keeper.check()).toBe('busy');
    expect(state.closes).toBe(0);
    sinceHeartbeat = 25_000; // hung: neither answers nor heartbeats
    expect(await keeper.check()).toBe('unanswered');
    expect(await keeper.check()).toBe('replaced');
    expect(state.creates).toBe(2);
  });

  it('treats a creation race lost to another creator as success, and reports real failures', async () => {
    const { state, adapter } = fakeChrome();
    const racing: OffscreenAdapter = {
      ...adapter,
      create: async () => {
        state.exists = true; // someone else won
        throw new Error('Only a single offscreen document may be created.');
      },
    };
    await expect(new OffscreenKeeper(racing, { pingTimeoutMs: 10 }).ensure()).resolves.toBeUndefined();
    const errors: string[] = [];
    const broken: OffscreenAdapter = {
      ...adapter,
      exists: async () => false,
      create: async () => Promise.reject(new Error('quota')),
    };
    await expect(new OffscreenKeeper(broken, { pingTimeoutMs: 10, onError: (m) => errors.push(m) }).ensure()).rejects.toThrow(
      'quota',
    );
    expect(errors).toEqual(['quota']);
  });
});
