import { useRef, useState } from 'preact/hooks';
import type { ClonedVoice } from '../../core/protocol';
import { VOICE_FILE_EXTENSION } from '../../core/tts/voice-transfer';
import { exportVoice, importVoiceFile } from './useVoices';

/** Saves one clone as a voice file, to import in another browser or profile. */
export function ExportVoiceButton(props: {
  clone: ClonedVoice;
  onExported(fileName: string): void;
  onError(message: string | null): void;
}) {
  const [busy, setBusy] = useState(false);
  const run = async () => {
    props.onError(null);
    setBusy(true);
    try {
      props.onExported(await exportVoice(props.clone.id));
    } catch (e) {
      props.onError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <button
      type="button"
      class="button"
      disabled={busy}
      onClick={() => void run()}
      aria-label={`Export voice ${props.clone.name}`}
    >
      {busy ? 'Exporting…' : 'Export'}
    </button>
  );
}

/**
 * Adds a voice file exported from Sidetalk. A real button opens the file picker, so the control has the normal
 * focus ring and works from the keyboard; the input itself stays out of the tab order.
 */
export function ImportVoiceFile(props: {
  disabled: boolean;
  onStart(): void;
  onImported(voice: ClonedVoice): Promise<void>;
  onError(message: string): void;
}) {
  const input = useRef<HTMLInputElement>(null);
  const [busy, setBusy] = useState(false);
  const pick = async (e: Event) => {
    const el = e.currentTarget as HTMLInputElement;
    const file = el.files?.[0];
    el.value = ''; // choosing the same file again must fire change again
    if (!file) return;
    props.onStart();
    setBusy(true);
    try {
      await props.onImported(await importVoiceFile(file));
    } catch (err) {
      props.onError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="chars-actions">
      <button
        type="button"
        class="button"
        disabled={props.disabled || busy}
        onClick={() => input.current?.click()}
        data-testid="voice-import"
      >
        {busy ? 'Importing…' : 'Import voice file…'}
      </button>
      <input
        ref={input}
        type="file"
        accept={VOICE_FILE_EXTENSION}
        class="visually-hidden"
        tabIndex={-1}
        aria-hidden="true"
        onChange={(e) => void pick(e)}
        data-testid="voice-import-file"
      />
    </div>
  );
}
