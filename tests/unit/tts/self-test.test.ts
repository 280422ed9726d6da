import { describe, expect, it } from 'vitest';
import { isFrameHealthy } from '../../../core/tts/audio-health';
import { BackendGuard } from '../../../core/tts/backend-guard';
import { judgeSelfTest, MemoryVerdictCache, selfTestCacheKey } from '../../../core/tts/self-test';
import { decideBackend } from '../../../models/tts/pocket/self-test-runner';

const tone = (amp: number, hz = 240) =>
  Float32Array.from({ length: 1920 }, (_, i) => amp * Math.sin((2 * Math.PI * hz * i) / 24000));
const noise = () =>
  Float32Array.from({ length: 1920 }, (_, i) => ((i * 7919) % 2 === 0 ? 0.3 : -0.3) * ((i * 104729) % 3 === 0 ? 1 : 0.7));

describe('self-test verdict', () => {
  it('good speech-like audio passes, with and without a WASM reference', () => {
    expect(judgeSelfTest([tone(0.3), tone(0.3)]).pass).toBe(true);
    const v = judgeSelfTest([tone(0.3)], [tone(0.3).map((x) => x * 1.001)]);
    expect(v.pass).toBe(true);
  });
  it('NaN → reject; silent → reject; overflow → reject; noise → reject; mismatch → reject', () => {
    const nan = tone(0.3);
    nan[7] = NaN;
    expect(judgeSelfTest([nan])).toMatchObject({ pass: false, reason: 'non-finite' });
    expect(judgeSelfTest([new Float32Array(1920)])).toMatchObject({ pass: false, reason: 'silent' });
    expect(judgeSelfTest([tone(40)])).toMatchObject({ pass: false, reason: 'overflow' });
    expect(judgeSelfTest([noise()])).toMatchObject({ pass: false, reason: 'noisy' });
    expect(judgeSelfTest([tone(0.3, 300)], [tone(0.3, 240)])).toMatchObject({ pass: false, reason: 'mismatch' });
    expect(judgeSelfTest([])).toMatchObject({ pass: false, reason: 'no-audio' });
  });
  it('caches per adapter vendor / architecture / driver description / bundle', async () => {
    const a = { vendor: 'nvidia', architecture: 'ada', description: 'driver 1' };
    expect(selfTestCacheKey(a, 'b')).not.toBe(selfTestCacheKey({ ...a, description: 'driver 2' }, 'b'));
    const cache = new MemoryVerdictCache();
    let runs = 0;
    const test = async () => (runs++, judgeSelfTest([new Float32Array(1920)]));
    const first = await decideBackend({ adapter: a, bundleId: 'b', cache, test });
    const second = await decideBackend({ adapter: a, bundleId: 'b', cache, test });
    expect([first.backend, first.source, second.backend, second.source, runs]).toEqual(['wasm', 'tested', 'wasm', 'cached', 1]);
    const good = await decideBackend({
      adapter: { ...a, vendor: 'amd' },
      bundleId: 'b',
      cache,
      test: async () => judgeSelfTest([tone(0.3)]),
    });
    expect(good).toMatchObject({ backend: 'webgpu', source: 'tested' });
    expect(await decideBackend({ adapter: null, bundleId: 'b', cache, test })).toMatchObject({
      backend: 'wasm',
      source: 'no-webgpu',
    });
  });
});

describe('mid-session fallback switch', () => {
  it('detector: finite in-range frames are healthy; NaN, Inf, overflow are not', () => {
    expect(isFrameHealthy(tone(0.5), 1.5)).toBe(true);
    expect(isFrameHealthy(Float32Array.of(0, Infinity), 1.5)).toBe(false);
    expect(isFrameHealthy(Float32Array.of(0, NaN), 1.5)).toBe(false);
    expect(isFrameHealthy(Float32Array.of(0, 3), 1.5)).toBe(false);
  });
  it('first bad WebGPU frame switches to WASM once; a bad WASM frame is fatal', () => {
    const g = new BackendGuard('webgpu', () => 1.5);
    expect(g.inspect(tone(0.5), 0)).toEqual({ action: 'play' });
    expect(g.inspect(Float32Array.of(NaN), 1)).toMatchObject({ action: 'switch', to: 'wasm' });
    expect([g.backend, g.switchedAtFrame]).toEqual(['wasm', 1]);
    expect(g.inspect(Float32Array.of(NaN), 2)).toMatchObject({ action: 'fail' });
  });
});
