/** The welcome's plan, progress and steps (issue #19, onboarding): numbers from the manifest, steps from facts. */
import { describe, expect, it } from 'vitest';
import { downloadPlan, formatMegabytes, onboardingStep, planProgress, type OnboardingFacts } from '../../../core/ux/onboarding';
import { bundleTotalBytes, defaultDownloadBytes } from '../../../core/weights/registry';
import type { WeightsSnapshot } from '../../../core/weights/state';
import { MODEL_BUNDLES } from '../../../models/registry';
import { DEFAULT_SETTINGS, migratedSettings } from '../../../core/protocol/settings';

/** A machine without a hardware GPU (the e2e browser's SwiftShader is one): the manifest's `default` bundles. */
const CPU_DEVICE = {
  gpu: { available: true, isFallbackAdapter: true, architecture: 'swiftshader' },
  computeBackend: 'auto',
} as const;
const plan = downloadPlan(MODEL_BUNDLES, CPU_DEVICE);

function snapshot(stored: Record<string, number>, extra: Partial<WeightsSnapshot> = {}): WeightsSnapshot {
  return {
    version: 2,
    baseUrl: 'https://huggingface.co',
    updatedAt: 1,
    bundles: MODEL_BUNDLES.map((b) => {
      const total = bundleTotalBytes(b);
      const bytes = stored[b.id] ?? 0;
      return {
        id: b.id,
        status: bytes >= total ? 'complete' : bytes > 0 ? 'partial' : 'missing',
        bytesStored: bytes,
        totalBytes: total,
        files: [],
      };
    }),
    active: null,
    lastError: null,
    ...extra,
  };
}

describe('downloadPlan', () => {
  it('lists exactly the manifest’s default bundles with their licence and size, and their total', () => {
    expect(plan.items.map((i) => i.id)).toEqual(MODEL_BUNDLES.filter((b) => b.default).map((b) => b.id));
    for (const item of plan.items) {
      const b = MODEL_BUNDLES.find((x) => x.id === item.id)!;
      expect(item).toEqual({ id: b.id, label: b.label, license: b.license, bytes: bundleTotalBytes(b) });
    }
    expect(plan.totalBytes).toBe(defaultDownloadBytes(MODEL_BUNDLES));
  });

  it('states the total in MB', () => {
    expect(formatMegabytes(1_328_518_282)).toBe('1,329 MB');
    expect(formatMegabytes(4_250_000)).toBe('4.3 MB');
  });
});

describe('planProgress', () => {
  const [first, second] = plan.items as [(typeof plan.items)[0], (typeof plan.items)[0]];

  it('is unknown before the first snapshot, missing on a fresh profile', () => {
    expect(planProgress(plan, null, null).status).toBe('unknown');
    const fresh = planProgress(plan, snapshot({}), null);
    expect(fresh).toMatchObject({ status: 'missing', bytes: 0, totalBytes: plan.totalBytes, etaSeconds: null });
    expect(fresh.missingIds).toEqual(plan.items.map((i) => i.id));
  });

  it('adds the live position of the bundle downloading to what is stored, and gives the ETA of the whole set', () => {
    const snap = snapshot({ [first.id]: first.bytes, [second.id]: 10 }, { active: { bundleId: second.id, path: 'x' } });
    const live = {
      bundleId: second.id,
      path: 'x',
      fileBytes: 0,
      fileTotal: 0,
      bytes: 1000,
      total: second.bytes,
      speedBps: 2e6,
      etaSeconds: 5,
    };
    const p = planProgress(plan, snap, live);
    expect(p.status).toBe('downloading');
    expect(p.bytes).toBe(first.bytes + 1000);
    expect(p.speedBps).toBe(2e6);
    expect(p.etaSeconds).toBeCloseTo((plan.totalBytes - first.bytes - 1000) / 2e6);
    expect(p.missingIds).not.toContain(first.id);
  });

  it('tells paused (the user’s cancel) from failed (a sentence to show), and complete', () => {
    const paused = snapshot({ [first.id]: 5 }, { lastError: { bundleId: first.id, code: 'aborted', message: 'Paused.' } });
    expect(planProgress(plan, paused, null)).toMatchObject({ status: 'paused', error: null });
    const failed = snapshot({}, { lastError: { bundleId: first.id, code: 'network', message: 'The connection dropped.' } });
    expect(planProgress(plan, failed, null)).toMatchObject({ status: 'failed', error: 'The connection dropped.' });
    const all = Object.fromEntries(plan.items.map((i) => [i.id, i.bytes]));
    expect(planProgress(plan, snapshot(all), null)).toMatchObject({ status: 'complete', bytes: plan.totalBytes, missingIds: [] });
  });
});

describe('onboardingStep', () => {
  const start: OnboardingFacts = { begun: false, models: 'missing', mic: 'prompt', micSkipped: false, greeting: 'waiting' };

  it('walks welcome → download → microphone → greeting → finished as the facts change', () => {
    expect(onboardingStep(start)).toBe('welcome');
    expect(onboardingStep({ ...start, begun: true })).toBe('download');
    expect(onboardingStep({ ...start, begun: true, models: 'downloading' })).toBe('download');
    expect(onboardingStep({ ...start, begun: true, models: 'complete' })).toBe('microphone');
    expect(onboardingStep({ ...start, begun: true, models: 'complete', mic: 'granted' })).toBe('greeting');
    expect(onboardingStep({ ...start, begun: true, models: 'complete', mic: 'granted', greeting: 'failed' })).toBe('greeting');
    expect(onboardingStep({ ...start, begun: true, models: 'complete', mic: 'granted', greeting: 'spoken' })).toBe('finished');
  });

  it('lets the user type instead of granting the microphone', () => {
    expect(onboardingStep({ ...start, begun: true, models: 'complete', mic: 'denied', micSkipped: true })).toBe('greeting');
  });
});

describe('who sees the welcome', () => {
  it('a fresh profile does; a user whose settings predate the welcome does not; a choice once stored stays', () => {
    expect(migratedSettings(undefined).onboardingDone).toBe(false);
    expect(migratedSettings({ handsFree: true, theme: 'dark' })).toEqual({
      ...DEFAULT_SETTINGS,
      handsFree: true,
      theme: 'dark',
      onboardingDone: true,
    });
    expect(migratedSettings({ ...DEFAULT_SETTINGS, onboardingDone: false }).onboardingDone).toBe(false);
    expect(migratedSettings({ ...DEFAULT_SETTINGS, onboardingDone: true }).onboardingDone).toBe(true);
  });
});
