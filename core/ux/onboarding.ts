/**
 * The first-run welcome (docs/onboarding.md): what it offers to download, how far the download is, and which step
 * the user is on. Every number comes from the pinned weights manifest and the weights snapshot, never from here.
 */
import type { PermissionStateName } from '../protocol/status';
import { defaultSet, type DeviceFacts } from '../weights/default-set';
import { bundleTotalBytes } from '../weights/registry';
import type { WeightsSnapshot } from '../weights/state';
import type { DownloadProgress, ModelBundle } from '../weights/types';

export interface PlanItem {
  id: string;
  label: string;
  license: string;
  bytes: number;
}

export interface DownloadPlan {
  items: PlanItem[];
  totalBytes: number;
}

/**
 * The default set for this device (core/weights/default-set.ts): what a new user needs to hold a spoken conversation,
 * plus the GPU voice and page search by meaning where a hardware GPU runs the models. The total is every byte the
 * download of these bundles fetches.
 */
export function downloadPlan(catalog: readonly ModelBundle[], device: DeviceFacts): DownloadPlan {
  const items = defaultSet(catalog, device).map((b) => ({
    id: b.id,
    label: b.label,
    license: b.license,
    bytes: bundleTotalBytes(b),
  }));
  return { items, totalBytes: items.reduce((s, i) => s + i.bytes, 0) };
}

/** Megabytes as the welcome states the total: whole MB, one decimal under 10 MB (decimal units, as Settings). */
export function formatMegabytes(bytes: number): string {
  const mb = bytes / 1e6;
  const digits = mb < 10 ? 1 : 0;
  return `${mb.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })} MB`;
}

export type PlanStatus = 'unknown' | 'missing' | 'downloading' | 'paused' | 'failed' | 'complete';

export interface PlanProgress {
  status: PlanStatus;
  /** Bytes of the default set held now (stored, plus the live position of the bundle downloading). */
  bytes: number;
  totalBytes: number;
  speedBps: number;
  /** Seconds left for the whole set at the current speed; null while the speed is unknown. */
  etaSeconds: number | null;
  /** Bundles of the set not complete yet: what "Download" and "Resume" ask for. */
  missingIds: string[];
  /** The download's last failure, a sentence for the user (weights errors carry no URLs: core/weights/state.ts). */
  error: string | null;
}

/** Where the default set stands, from the persisted snapshot and the latest progress event. */
export function planProgress(plan: DownloadPlan, snapshot: WeightsSnapshot | null, live: DownloadProgress | null): PlanProgress {
  const base = { totalBytes: plan.totalBytes, speedBps: 0, etaSeconds: null, error: null };
  if (!snapshot) return { ...base, status: 'unknown', bytes: 0, missingIds: plan.items.map((i) => i.id) };
  const stateOf = (id: string) => snapshot.bundles.find((b) => b.id === id);
  const missingIds = plan.items.filter((i) => stateOf(i.id)?.status !== 'complete').map((i) => i.id);
  const activeId = snapshot.active?.bundleId ?? null;
  let bytes = 0;
  for (const item of plan.items) {
    const stored = Math.min(item.bytes, stateOf(item.id)?.bytesStored ?? 0);
    bytes +=
      live && activeId === item.id && live.bundleId === item.id ? Math.max(stored, Math.min(item.bytes, live.bytes)) : stored;
  }
  const downloading = activeId !== null && plan.items.some((i) => i.id === activeId);
  const speedBps = downloading && live ? live.speedBps : 0;
  const left = Math.max(0, plan.totalBytes - bytes);
  const etaSeconds = speedBps > 0 ? left / speedBps : null;
  const failure = snapshot.lastError && plan.items.some((i) => i.id === snapshot.lastError?.bundleId) ? snapshot.lastError : null;
  let status: PlanStatus;
  if (missingIds.length === 0) status = 'complete';
  else if (downloading) status = 'downloading';
  else if (failure?.code === 'aborted') status = 'paused';
  else if (failure) status = 'failed';
  else status = bytes > 0 ? 'paused' : 'missing';
  return {
    status,
    bytes,
    totalBytes: plan.totalBytes,
    speedBps,
    etaSeconds,
    missingIds,
    error: status === 'failed' ? failure!.message : null,
  };
}

export type OnboardingStep = 'welcome' | 'download' | 'microphone' | 'greeting' | 'finished';

export type GreetingState = 'waiting' | 'loading' | 'speaking' | 'spoken' | 'failed';

export interface OnboardingFacts {
  /** The user pressed the welcome's button (or a download of the set is already under way). */
  begun: boolean;
  models: PlanStatus;
  mic: PermissionStateName;
  /** The user chose to type instead of granting the microphone. */
  micSkipped: boolean;
  greeting: GreetingState;
}

/**
 * The step follows from facts, not from clicks alone: a download that finished while the panel was closed, or a
 * microphone granted in another tab, moves the user on by itself.
 */
export function onboardingStep(f: OnboardingFacts): OnboardingStep {
  if (!f.begun) return 'welcome';
  if (f.models !== 'complete') return 'download';
  if (f.mic !== 'granted' && !f.micSkipped) return 'microphone';
  if (f.greeting !== 'spoken') return 'greeting';
  return 'finished';
}
