/** The status line says what is missing and how to fix it, most important first (issue #19). */
import { describe, expect, it } from 'vitest';
import { modelsReadiness, statusLine, type StatusFacts } from '../../../core/ux/status-line';

const ready: StatusFacts = { engine: 'idle', detail: null, models: 'complete', mic: 'granted', cpuOnly: false };

describe('statusLine', () => {
  it('says Ready only when nothing is missing', () => {
    expect(statusLine(ready)).toEqual({ text: 'Ready', tone: 'ok', action: null });
    for (const missing of [
      { models: 'missing' },
      { models: 'downloading' },
      { mic: 'denied' },
      { mic: 'prompt' },
      { cpuOnly: true },
    ] as Partial<StatusFacts>[])
      expect(statusLine({ ...ready, ...missing }).text, JSON.stringify(missing)).not.toBe('Ready');
  });

  it('names the missing piece with the action that fixes it, the models first', () => {
    expect(statusLine({ ...ready, models: 'missing', mic: 'denied', cpuOnly: true })).toMatchObject({
      text: 'Voice models not downloaded',
      action: { id: 'download-models' },
    });
    expect(statusLine({ ...ready, mic: 'denied', cpuOnly: true })).toMatchObject({
      text: 'Microphone blocked',
      action: { id: 'grant-microphone' },
    });
    expect(statusLine({ ...ready, cpuOnly: true })).toMatchObject({
      text: 'Running on CPU — slower',
      action: { id: 'open-compute' },
    });
  });

  it('while the assistant works, says what it does; its own detail wins over the resting hints', () => {
    expect(statusLine({ ...ready, engine: 'listening', mic: 'denied' }).text).toBe('Listening…');
    expect(statusLine({ ...ready, engine: 'thinking', detail: 'Loading the models…' }).text).toBe('Loading the models…');
    expect(statusLine({ ...ready, detail: 'Models ready (CPU)', cpuOnly: true }).text).toBe('Models ready (CPU)');
    // …but never hides that the models are missing.
    expect(statusLine({ ...ready, detail: 'Models ready (CPU)', models: 'missing' }).text).toBe('Voice models not downloaded');
  });
});

describe('modelsReadiness', () => {
  const snap = (statuses: Record<string, string>, active: string | null = null) => ({
    bundles: Object.entries(statuses).map(([id, status]) => ({ id, status })),
    active: active ? { bundleId: active } : null,
  });

  it('is complete only when every bundle a turn needs is stored; optional ones do not count', () => {
    expect(modelsReadiness(null, ['asr', 'llm'])).toBe('unknown');
    expect(modelsReadiness(snap({ asr: 'complete', llm: 'complete', gpu: 'missing' }), ['asr', 'llm'])).toBe('complete');
    expect(modelsReadiness(snap({ asr: 'complete', llm: 'partial' }), ['asr', 'llm'])).toBe('missing');
    expect(modelsReadiness(snap({ asr: 'complete', llm: 'partial' }, 'llm'), ['asr', 'llm'])).toBe('downloading');
    expect(modelsReadiness(snap({ asr: 'complete', llm: 'missing', gpu: 'partial' }, 'gpu'), ['asr', 'llm'])).toBe('missing');
  });
});
