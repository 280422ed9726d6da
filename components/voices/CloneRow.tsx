import { useState } from 'preact/hooks';
import type { ClonedVoice } from '../../core/protocol';
import { request } from '../ui/runtime';
import { ExportVoiceButton } from './VoiceFileActions';

/** One cloned voice: preview, rename, export as a file, delete (after a confirmation). */
export function CloneRow(props: {
  clone: ClonedVoice;
  disabled: boolean;
  playing: boolean;
  onPreview(): void;
  onChanged(): Promise<void>;
  onStatus(message: string): void;
  onError(message: string | null): void;
}) {
  const { clone } = props;
  const [renaming, setRenaming] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const act = async (work: () => Promise<unknown>) => {
    props.onError(null);
    try {
      await work();
      await props.onChanged();
    } catch (e) {
      props.onError((e as Error).message);
    }
  };
  return (
    <li class="voice-item" data-testid="cloned-voice">
      {renaming === null ? (
        <span class="chars-name" title={`Consent: ${clone.consentStatement}`}>
          {clone.name}
        </span>
      ) : (
        <form
          class="voice-rename"
          onSubmit={(e) => {
            e.preventDefault();
            const name = renaming.trim();
            if (!name) return;
            setRenaming(null);
            void act(() => request('voices/rename', { id: clone.id, name }));
          }}
        >
          <input
            type="text"
            aria-label={`New name for ${clone.name}`}
            value={renaming}
            maxLength={60}
            onInput={(e) => setRenaming(e.currentTarget.value)}
          />
          <button type="submit" class="button">
            Save
          </button>
        </form>
      )}
      <span class="chars-tag" title="Made by voice cloning">
        synthetic
      </span>
      {!clone.usable && (
        <span class="chars-tag" title="Made with another version of the voice model">
          unavailable
        </span>
      )}
      {renaming === null && !confirming && (
        <>
          <button
            type="button"
            class="button"
            disabled={props.disabled || !clone.usable}
            onClick={props.onPreview}
            aria-label={`Preview ${clone.name}`}
          >
            {props.playing ? 'Playing…' : 'Preview'}
          </button>
          <button type="button" class="button" onClick={() => setRenaming(clone.name)} aria-label={`Rename ${clone.name}`}>
            Rename
          </button>
          <ExportVoiceButton
            clone={clone}
            onError={props.onError}
            onExported={(fileName) =>
              props.onStatus(
                `Saved ${fileName}. Import it under Settings → Voices in another browser; the consent you gave goes with it.`,
              )
            }
          />
          <button type="button" class="button" onClick={() => setConfirming(true)} aria-label={`Delete ${clone.name}`}>
            Delete
          </button>
        </>
      )}
      {confirming && (
        <>
          <span class="small">Delete for good?</span>
          <button
            type="button"
            class="button primary"
            onClick={() => void act(() => request('voices/delete', { id: clone.id }))}
            aria-label={`Confirm delete ${clone.name}`}
          >
            Delete
          </button>
          <button type="button" class="button" onClick={() => setConfirming(false)}>
            Keep
          </button>
        </>
      )}
    </li>
  );
}
