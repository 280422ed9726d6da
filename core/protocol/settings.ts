import { z } from 'zod';

/**
 * User settings persisted by the background in chrome.storage.local. Parsing is lenient per field: a corrupt or
 * outdated field falls back to its default while every valid field the user chose is kept.
 */
export const SettingsSchema = z.object({
  visionEnabled: z.boolean(),
  handsFree: z.boolean(),
  theme: z.enum(['system', 'light', 'dark']),
  captions: z.boolean(),
  mirrorBaseUrl: z.string().max(2048),
  asrModel: z.enum(['moonshine-base', 'whisper-base']),
  /** 'auto': WebGPU when the adapter is healthy, else WASM; 'wasm': always the CPU (slower, but never the GPU). */
  computeBackend: z.enum(['auto', 'wasm']),
  /** Language Whisper transcribes (ignored by the English-only Moonshine). */
  speechLanguage: z.string().regex(/^[a-z]{2}$/),
  debugPanel: z.boolean(),
  /** Remember facts the user states (core/memory/fact-memory.ts); off: nothing new is kept and nothing kept is used. */
  memoryEnabled: z.boolean(),
  /** The first-run welcome was completed or skipped; Settings can show it again (docs/onboarding.md). */
  onboardingDone: z.boolean(),
});
export type Settings = z.infer<typeof SettingsSchema>;

export const DEFAULT_SETTINGS: Settings = {
  visionEnabled: false,
  handsFree: false,
  theme: 'system',
  captions: true,
  mirrorBaseUrl: '',
  asrModel: 'moonshine-base',
  computeBackend: 'auto',
  speechLanguage: 'en',
  debugPanel: false,
  memoryEnabled: true,
  onboardingDone: false,
};

export const SettingsPatchSchema = SettingsSchema.partial().strict();
export type SettingsPatch = z.infer<typeof SettingsPatchSchema>;

/** Reads whatever is stored, keeping each valid field and replacing only the invalid or missing ones. */
export function settingsFromStored(stored: unknown): Settings {
  const out: Settings = { ...DEFAULT_SETTINGS };
  if (stored === null || typeof stored !== 'object') return out;
  const record = stored as Record<string, unknown>;
  const shape = SettingsSchema.shape;
  for (const key of Object.keys(shape) as (keyof Settings)[]) {
    const parsed = shape[key].safeParse(record[key]);
    if (parsed.success) (out as Record<keyof Settings, unknown>)[key] = parsed.data;
  }
  return out;
}

/**
 * Settings after an install or update: as stored, field by field. Stored settings written before the welcome existed
 * (no `onboardingDone` field) belong to a user who set Sidetalk up without it: they do not get the welcome now.
 */
export function migratedSettings(stored: unknown): Settings {
  const out = settingsFromStored(stored);
  if (stored !== null && typeof stored === 'object' && !('onboardingDone' in stored)) out.onboardingDone = true;
  return out;
}
