/**
 * The side panel's status line: what the assistant is doing, and while it rests, what keeps it from working and
 * the action that fixes it. It never says "Ready" while something the user needs is missing (docs/onboarding.md).
 */
import type { EngineState } from '../engine/types';
import type { PermissionStateName } from '../protocol/status';
import type { FixAction } from './user-errors';

export type ModelsReadiness = 'unknown' | 'missing' | 'downloading' | 'complete';

export interface StatusFacts {
  engine: EngineState;
  /** The engine's own detail ("Loading the models…"), shown as it is. */
  detail: string | null;
  models: ModelsReadiness;
  mic: PermissionStateName;
  /** No WebGPU adapter, or the user chose the CPU: the models run on WASM. */
  cpuOnly: boolean;
}

export interface StatusLine {
  text: string;
  tone: 'ok' | 'busy' | 'warn' | 'error';
  action: { id: FixAction | 'show-downloads' | 'open-compute'; label: string } | null;
}

const ACTIVE: Record<Exclude<EngineState, 'idle'>, string> = {
  listening: 'Listening…',
  thinking: 'Thinking…',
  speaking: 'Speaking',
};

/**
 * Most important first: nothing works without the models; then what the engine says it is doing ("Loading the
 * models…"); then nothing is heard without the microphone; then it works, but slowly.
 */
export function statusLine(f: StatusFacts): StatusLine {
  if (f.engine !== 'idle') return { text: f.detail ?? ACTIVE[f.engine], tone: 'busy', action: null };
  if (f.models === 'missing')
    return { text: 'Voice models not downloaded', tone: 'error', action: { id: 'download-models', label: 'Download' } };
  if (f.models === 'downloading')
    return { text: 'Downloading the voice models…', tone: 'busy', action: { id: 'show-downloads', label: 'Show' } };
  if (f.detail) return { text: f.detail, tone: 'busy', action: null };
  if (f.mic === 'denied')
    return { text: 'Microphone blocked', tone: 'error', action: { id: 'grant-microphone', label: 'How to allow it' } };
  if (f.mic === 'prompt')
    return { text: 'Microphone not allowed yet', tone: 'warn', action: { id: 'grant-microphone', label: 'Allow' } };
  if (f.cpuOnly) return { text: 'Running on CPU — slower', tone: 'warn', action: { id: 'open-compute', label: 'Settings' } };
  return { text: 'Ready', tone: 'ok', action: null };
}

/** Whether the bundles a spoken turn needs (`required`) are stored, coming, or missing, from the weights snapshot. */
export function modelsReadiness(
  snapshot: { bundles: { id: string; status: string }[]; active: { bundleId: string } | null } | null,
  required: readonly string[],
): ModelsReadiness {
  if (!snapshot) return 'unknown';
  const missing = required.filter((id) => snapshot.bundles.find((b) => b.id === id)?.status !== 'complete');
  if (missing.length === 0) return 'complete';
  return snapshot.active && missing.includes(snapshot.active.bundleId) ? 'downloading' : 'missing';
}
