import { useCallback, useEffect, useState } from 'preact/hooks';
import type { VoiceList } from '../../core/protocol';
import { request } from '../ui/runtime';

/** Voices of the TTS bundle and the stored clones. The first call may load the voice model (seconds). */
export function useVoices(): { voices: VoiceList | null; error: string | null; refresh: () => Promise<void> } {
  const [voices, setVoices] = useState<VoiceList | null>(null);
  const [error, setError] = useState<string | null>(null);
  const refresh = useCallback(async () => {
    try {
      await request('offscreen/ensure', {});
      setVoices(await request('voices/list', {}, 90_000));
      setError(null);
    } catch (e) {
      setError((e as Error).message);
    }
  }, []);
  useEffect(() => {
    void refresh();
  }, [refresh]);
  return { voices, error, refresh };
}

/** "alba" → "Alba". */
export function voiceLabel(name: string): string {
  return name ? name[0]!.toUpperCase() + name.slice(1) : name;
}
