import { describe, expect, it, vi } from 'vitest';
import { StreamStarter, type StreamableHead } from '../../../components/avatar/stream-start';

/** A promise settled from the outside: a worklet load that takes as long as the test says. */
function deferred() {
  let resolve!: () => void;
  let reject!: (e: Error) => void;
  const promise = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

/**
 * TalkingHead 1.7.0's stream start as it behaves (node_modules/@met4citizen/talkinghead/modules/talkinghead.mjs,
 * streamStart / initAudioGraph): the stream is marked started first; a new rate rebuilds the context, which forgets
 * the worklet; an unloaded worklet is loaded under a 5 s race, here lost at once (the loaded thread of the failure).
 */
function fakeHead(addModule: () => Promise<void>) {
  const contexts: { sampleRate: number; state: string; audioWorklet: { addModule: (url: string) => Promise<void> } }[] = [];
  const loads: string[] = [];
  const newContext = (sampleRate: number) => {
    const ctx = { sampleRate, state: 'running', audioWorklet: { addModule: (url: string) => (loads.push(url), addModule()) } };
    contexts.push(ctx);
    return ctx;
  };
  const head: StreamableHead & { starts: number } = {
    audioCtx: newContext(48000),
    isStreaming: false,
    workletLoaded: false,
    starts: 0,
    initAudioGraph(rate: number) {
      head.audioCtx.state = 'closed';
      head.audioCtx = newContext(rate);
      head.workletLoaded = false;
    },
    async streamStart(opt: object) {
      head.starts += 1;
      head.isStreaming = true;
      const rate = (opt as { sampleRate?: number }).sampleRate;
      if (rate && rate !== head.audioCtx.sampleRate) head.initAudioGraph(rate);
      if (!head.workletLoaded) throw new Error('Failed to initialize streaming speech');
    },
  };
  return { head, contexts, loads };
}

const OPT = { sampleRate: 24000 };
const noop = () => {};

describe("StreamStarter: TalkingHead's stream starts without its worklet timeout", () => {
  it('readies a 24 kHz context and its worklet ahead, so the start does not load it again', async () => {
    const { head, contexts, loads } = fakeHead(() => Promise.resolve());
    const starter = new StreamStarter(head, '/assets/playback-worklet.js', 24000, noop);
    await starter.prepare();
    expect(contexts.map((c) => c.sampleRate)).toEqual([48000, 24000]);
    expect(loads).toEqual(['/assets/playback-worklet.js']);
    expect(head.workletLoaded).toBe(true);
    await starter.start(OPT, noop, noop);
    expect(head.starts).toBe(1);
    expect(head.isStreaming).toBe(true);
    expect(contexts).toHaveLength(2); // the start rebuilt nothing
  });

  it('a first chunk waits for a slow worklet load instead of failing', async () => {
    const load = deferred();
    const { head } = fakeHead(() => load.promise);
    const starter = new StreamStarter(head, 'w.js', 24000, noop);
    void starter.prepare();
    let started = false;
    const start = starter.start(OPT, noop, noop).then(() => (started = true));
    await new Promise((r) => setTimeout(r, 30));
    expect(head.starts).toBe(0); // not raced against a deadline
    load.resolve();
    await start;
    expect(started).toBe(true);
    expect(head.starts).toBe(1);
  });

  it('a failed start leaves the stream unstarted, so the next chunk starts it again', async () => {
    const { head } = fakeHead(() => Promise.resolve());
    const starter = new StreamStarter(head, 'w.js', 24000, noop);
    await starter.prepare();
    head.workletLoaded = false; // as if the context had lost it
    await expect(starter.start(OPT, noop, noop)).rejects.toThrow(/The voice could not start playing/);
    expect(head.isStreaming).toBe(false);
    head.workletLoaded = true;
    await starter.start(OPT, noop, noop);
    expect(head.starts).toBe(2);
    expect(head.isStreaming).toBe(true);
  });

  it('a worklet that will not load ahead is a warning, and TalkingHead keeps its own loader', async () => {
    const { head } = fakeHead(() => Promise.reject(new Error('blocked')));
    const warn = vi.fn();
    const starter = new StreamStarter(head, 'w.js', 24000, warn);
    await expect(starter.prepare()).resolves.toBeUndefined();
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('blocked'));
    expect(head.workletLoaded).toBe(false);
  });

  it('a context rebuilt while the worklet loaded is not marked as having it', async () => {
    const load = deferred();
    const { head } = fakeHead(() => load.promise);
    const starter = new StreamStarter(head, 'w.js', 24000, noop);
    const ready = starter.prepare();
    head.initAudioGraph(24000);
    load.resolve();
    await ready;
    expect(head.workletLoaded).toBe(false);
  });
});
