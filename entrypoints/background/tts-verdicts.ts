import { z } from 'zod';
import { TtsVerdictSchema, type Handlers } from '../../core/protocol';
import type { LocalStorageArea } from './characters';

export const TTS_VERDICTS_KEY = 'ttsVerdicts';
/** A few adapters/drivers/bundles per profile at most; the oldest verdict goes first. */
const MAX_VERDICTS = 16;

const verdictsSchema = z.record(z.string(), TtsVerdictSchema);
type Verdicts = z.infer<typeof verdictsSchema>;

async function load(area: LocalStorageArea): Promise<Verdicts> {
  const parsed = verdictsSchema.safeParse((await area.get(TTS_VERDICTS_KEY))[TTS_VERDICTS_KEY]);
  return parsed.success ? parsed.data : {};
}

/**
 * The voice's WebGPU self-test verdicts outlive the offscreen document (which has no chrome.storage), so a device is
 * tested once per driver and bundle, and one that failed — at the test or later mid-sentence — is not tried again.
 * A driver update changes the key, so it gets a fresh test.
 */
export function createTtsVerdictHandlers(area: LocalStorageArea): Pick<Handlers<'background'>, 'tts/verdicts' | 'tts/verdict'> {
  return {
    'tts/verdicts': () => load(area),
    'tts/verdict': async ({ key, verdict }) => {
      const all = { ...(await load(area)), [key]: verdict };
      const kept = Object.entries(all)
        .sort((a, b) => b[1].at - a[1].at)
        .slice(0, MAX_VERDICTS);
      await area.set({ [TTS_VERDICTS_KEY]: Object.fromEntries(kept) });
      return {};
    },
  };
}
