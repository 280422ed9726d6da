import { useCallback, useEffect, useState } from 'preact/hooks';
import type { ClonedVoice, VoiceList } from '../../core/protocol';
import { base64ToBytes, bytesToBase64, MAX_VOICE_TRANSFER_BYTES } from '../../core/tts/voice-transfer';
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

/** Saves bytes as a file through a blob link (the side panel has no downloads permission and needs none). */
function downloadBytes(fileName: string, bytes: Uint8Array<ArrayBuffer>): void {
  const url = URL.createObjectURL(new Blob([bytes], { type: 'application/octet-stream' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.style.display = 'none';
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Downloads a clone's voice file (the stored STVOICE bytes, consent inside). */
export async function exportVoice(id: string): Promise<string> {
  const file = await request('voices/export', { id }, 60_000);
  downloadBytes(file.fileName, base64ToBytes(file.bytesBase64));
  return file.fileName;
}

/** Sends a chosen voice file to the offscreen document, which validates it and adds it as a new clone. */
export async function importVoiceFile(file: File): Promise<ClonedVoice> {
  if (file.size > MAX_VOICE_TRANSFER_BYTES) {
    throw new Error(`That file is too large to be a Sidetalk voice file (${MAX_VOICE_TRANSFER_BYTES / 1024 / 1024} MB at most).`);
  }
  const bytes = new Uint8Array(await file.arrayBuffer());
  try {
    // The model may load first (seconds) so the file's model can be checked.
    return await request('voices/import', { fileName: file.name, bytesBase64: bytesToBase64(bytes) }, 120_000);
  } catch (e) {
    // The router prefixes the request type; the sentence after it is the one meant for the user.
    throw new Error(
      (e as Error).message.replace(/^"voices\/import" failed: /, '').replace(/^Bad payload for "voices\/import": \w+: /, ''),
    );
  }
}
