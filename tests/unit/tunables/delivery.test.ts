import { afterEach, describe, expect, it } from 'vitest';
import {
  applyOverrides,
  createTunablesReceiver,
  describeTunables,
  engineTunables,
  lipsyncTunables,
  llmTunables,
  onTunablesApplied,
  resetTunables,
  setTunable,
  tunableOverrides,
  ttsTunables,
} from '../../../core/tunables';
import { createTunablesOwner, TUNABLES_KEY } from '../../../entrypoints/background/tunables';
import type { EventMessage } from '../../../core/protocol';
import { ModelWorkerClient } from '../../../entrypoints/offscreen/model-client';
import { TtsClient } from '../../../entrypoints/offscreen/tts-client';
import type { ModelWorkerEvent } from '../../../models/workers/model-protocol';
import type { TtsWorkerEvent } from '../../../models/tts/pocket/protocol';
import { FakeWorker } from '../helpers/fake-worker';
import { hostWithEvents } from '../helpers/model-host';

afterEach(() => resetTunables());

function memoryArea(initial: Record<string, unknown> = {}) {
  const data: Record<string, unknown> = structuredClone(initial);
  return {
    data,
    get: async (key: string) => (key in data ? { [key]: structuredClone(data[key]) } : {}),
    set: async (items: Record<string, unknown>) => void Object.assign(data, structuredClone(items)),
  };
}

describe('registry: overrides', () => {
  it('applyOverrides makes the values exactly defaults + overrides, reports refusals, tells listeners', () => {
    setTunable('engine.vadOn', 0.7); // not in the update: back to its default
    const seen: number[] = [];
    const off = onTunablesApplied(() => seen.push(engineTunables.endpointSilenceMs));
    const refused = applyOverrides({ 'engine.endpointSilenceMs': 500, 'engine.vadOff': 5, 'gone.knob': 1 });
    off();
    expect(engineTunables.endpointSilenceMs).toBe(500);
    expect(engineTunables.vadOn).toBe(0.5);
    expect(engineTunables.vadOff).toBe(0.35);
    expect(refused).toEqual(['"engine.vadOff" must be <= 0.99', 'unknown section in "gone.knob"']);
    expect(seen).toEqual([500]);
    expect(tunableOverrides()).toEqual({ 'engine.endpointSilenceMs': 500 });
    setTunable('engine.endpointSilenceMs', 640); // the default again: no longer an override
    expect(tunableOverrides()).toEqual({});
  });

  it('describes every knob with its default and limits', () => {
    const knob = describeTunables().find((k) => k.path === 'llm.maxNewTokens');
    expect(knob).toEqual({
      path: 'llm.maxNewTokens',
      section: 'llm',
      key: 'maxNewTokens',
      value: 256,
      defaultValue: 256,
      limit: { min: 1, max: 4096, integer: true },
    });
  });

  it('a receiver never applies an older state over a newer one', () => {
    const receive = createTunablesReceiver();
    receive({ version: 2, overrides: { 'text.maxChunkChars': 300 } });
    receive({ version: 1, overrides: { 'text.maxChunkChars': 100 } });
    expect(tunableOverrides()).toEqual({ 'text.maxChunkChars': 300 });
    receive({ version: 3, overrides: {} });
    expect(tunableOverrides()).toEqual({});
  });
});

describe('the background owns the tunables', () => {
  const setup = (initial: Record<string, unknown> = {}) => {
    const area = memoryArea(initial);
    const events: EventMessage[] = [];
    let clock = 1000;
    const owner = createTunablesOwner({ area, broadcast: (e) => events.push(e), now: () => clock++ });
    return { area, events, owner };
  };

  it('validates with the registry, persists only the overrides under one key and broadcasts them', async () => {
    const { area, events, owner } = setup();
    const state = await owner.handlers['tunables/set']({ path: 'tts.temperature', value: 0.3 });
    expect(state).toEqual({ version: 1000, overrides: { 'tts.temperature': 0.3 } });
    expect(ttsTunables.temperature).toBe(0.3);
    expect(area.data).toEqual({ [TUNABLES_KEY]: state });
    expect(events).toEqual([{ kind: 'event', type: 'event/tunables', payload: state }]);
    await expect(owner.handlers['tunables/set']({ path: 'tts.temperature', value: 9 })).rejects.toThrow(
      '"tts.temperature" must be <= 2',
    );
    await expect(owner.handlers['tunables/set']({ path: 'tts.nope', value: 1 })).rejects.toThrow('unknown key "tts.nope"');
    expect(events).toHaveLength(1); // a refused value changes and sends nothing
    const got = await owner.handlers['tunables/get']({});
    expect(got.overrides).toEqual({ 'tts.temperature': 0.3 });
    expect(got.values.tts?.temperature).toBe(0.3);
  });

  it('reset restores every default; the version keeps growing', async () => {
    const { area, owner } = setup();
    await owner.handlers['tunables/set']({ path: 'lipsync.jawAttack', value: 0.5 });
    const reset = await owner.handlers['tunables/reset']({});
    expect(reset).toEqual({ version: 1001, overrides: {} });
    expect(lipsyncTunables.jawAttack).toBe(0.7);
    expect(area.data[TUNABLES_KEY]).toEqual(reset);
  });

  it('a restarted background restores what was persisted before it answers, dropping knobs that no longer exist', async () => {
    const stored = { version: 5000, overrides: { 'llm.maxNewTokens': 99, 'page.maxExtractChars': 1000 } };
    const { area, owner } = setup({ [TUNABLES_KEY]: stored });
    const handler = owner.afterRestore({ 'probe/read': () => llmTunables.maxNewTokens });
    expect(await handler['probe/read']()).toBe(99);
    expect(await owner.handlers['tunables/get']({})).toMatchObject({ version: 5000, overrides: { 'llm.maxNewTokens': 99 } });
    expect(area.data[TUNABLES_KEY]).toEqual({ version: 5000, overrides: { 'llm.maxNewTokens': 99 } });
    const next = await owner.handlers['tunables/set']({ path: 'llm.maxNewTokens', value: 100 });
    expect(next.version).toBe(5001); // newer than anything a context applied before the restart
  });
});

describe('the offscreen document forwards tunables to its workers', () => {
  it('posts every applied change to both workers, and greets each new worker with the current values', () => {
    FakeWorker.made = [];
    const model = new ModelWorkerClient(() => new FakeWorker<ModelWorkerEvent>());
    const tts = new TtsClient(() => new FakeWorker<TtsWorkerEvent>());
    const [mw, tw] = FakeWorker.made;
    expect(mw!.sent).toEqual([]); // all defaults: nothing to say
    applyOverrides({ 'llm.maxNewTokens': 64, 'tts.lsdSteps': 2 });
    const message = { type: 'tunables', overrides: { 'llm.maxNewTokens': 64, 'tts.lsdSteps': 2 } };
    expect(mw!.sent.at(-1)).toEqual(message);
    expect(tw!.sent.at(-1)).toEqual(message);
    // A replaced worker (GPU loss, hung load) hears the values before anything else.
    (model as unknown as { channel: { replace(e: Error): void } }).channel.replace(new Error('replaced'));
    (tts as unknown as { channel: { replace(e: Error): void } }).channel.replace(new Error('replaced'));
    expect(FakeWorker.made[2]!.sent[0]).toEqual(message);
    expect(FakeWorker.made[3]!.sent[0]).toEqual(message);
  });

  it('reads a worker’s live values', async () => {
    FakeWorker.made = [];
    const model = new ModelWorkerClient(() => new FakeWorker<ModelWorkerEvent>());
    expect(ModelWorkerClient.latest).toBe(model);
    const live = model.liveTunables();
    (FakeWorker.made[0] as FakeWorker<ModelWorkerEvent>).reply('tunables-snapshot', {
      type: 'tunables-snapshot',
      values: { llm: { maxNewTokens: 64 } },
    });
    expect(await live).toEqual({ llm: { maxNewTokens: 64 } });
  });
});

describe('the workers apply what the offscreen document sends', () => {
  it('model worker: applies, answers its live values, reports a refusal as a typed error', async () => {
    const { host, events } = hostWithEvents();
    await host.handle({ type: 'tunables', overrides: { 'llm.maxNewTokens': 32, 'vision.scoreThreshold': 0.3 } });
    expect([llmTunables.maxNewTokens, events]).toEqual([32, []]);
    await host.handle({ type: 'tunables-snapshot', requestId: 's1' });
    expect(events[0]).toMatchObject({ type: 'tunables-snapshot', requestId: 's1', values: { llm: { maxNewTokens: 32 } } });
    await host.handle({ type: 'tunables', overrides: { 'llm.maxNewTokens': 0 } });
    expect(events[1]).toMatchObject({ type: 'error', code: 'bad-message', message: expect.stringContaining('maxNewTokens') });
    await host.handle({ type: 'tunables', overrides: { 'not a path': 1 } });
    expect(events[2]).toMatchObject({ type: 'error', code: 'bad-message' });
  });

  it('voice worker: applies and answers its live values', async () => {
    const { PocketWorkerHost } = await import('../../../models/tts/pocket/worker-host');
    const events: TtsWorkerEvent[] = [];
    const host = new PocketWorkerHost({ ort: {} as never, post: (e) => events.push(e) });
    await host.handle({ type: 'tunables', overrides: { 'tts.temperature': 0.3 } });
    expect(ttsTunables.temperature).toBe(0.3);
    await host.handle({ type: 'tunables-snapshot', requestId: 's1' });
    expect(events).toEqual([expect.objectContaining({ type: 'tunables-snapshot', requestId: 's1' })]);
    expect((events[0] as Extract<TtsWorkerEvent, { type: 'tunables-snapshot' }>).values.tts?.temperature).toBe(0.3);
  });
});
