import { useState } from 'preact/hooks';
import { MAX_CHARACTER_FILE_BYTES, type Character } from '../../core/characters';

interface Props {
  characters: readonly Character[];
  activeId: string;
  onSwitch(id: string): void;
  onEdit(id: string): void;
  onDuplicate(id: string): void;
  /** The parent confirms (the character is gone for good) and deletes. Never offered for built-ins. */
  onDelete(id: string): void;
  /** Export one character, or all of the user's when id is undefined; the parent saves the file. */
  onExport(id?: string): void;
  /** Text of the chosen file; the parent imports it and passes back `error` / `notices`. */
  onImport(text: string): void;
  /** Last failure (import rejected, delete refused …), shown as an alert. */
  error?: string | null;
  /** Non-fatal messages, e.g. import warnings about missing avatars or voices. */
  notices?: readonly string[];
}

/** The character list: switch the active one, and manage characters. Presentational: every action is a callback. */
export function CharacterList(props: Props) {
  const { characters, activeId, notices = [] } = props;
  const [fileError, setFileError] = useState<string | null>(null);
  const error = fileError ?? props.error;

  const pickFile = async (e: Event) => {
    const input = e.currentTarget as HTMLInputElement;
    const file = input.files?.[0];
    input.value = ''; // choosing the same file again should fire again
    if (!file) return;
    // The importer checks the size too; checking here avoids reading a huge file into memory at all.
    if (file.size > MAX_CHARACTER_FILE_BYTES) {
      setFileError(`That file is too large for a characters file (limit ${MAX_CHARACTER_FILE_BYTES / 1024} KB).`);
      return;
    }
    setFileError(null);
    props.onImport(await file.text());
  };

  return (
    <section class="chars" aria-labelledby="chars-heading">
      <h2 id="chars-heading">Characters</h2>
      <ul class="chars-list">
        {characters.map((c) => {
          const active = c.id === activeId;
          return (
            <li class="chars-item" key={c.id} aria-current={active ? 'true' : undefined}>
              <span class="chars-name" title={c.name}>
                {c.name}
              </span>
              {c.builtIn && <span class="chars-tag">built-in</span>}
              <button
                type="button"
                class="button"
                disabled={active}
                aria-pressed={active}
                onClick={() => props.onSwitch(c.id)}
                aria-label={active ? `${c.name} is active` : `Talk with ${c.name}`}
              >
                {active ? 'Active' : 'Use'}
              </button>
              <button
                type="button"
                class="button"
                onClick={() => props.onEdit(c.id)}
                aria-label={`${c.builtIn ? 'View' : 'Edit'} ${c.name}`}
              >
                {c.builtIn ? 'View' : 'Edit'}
              </button>
              <button type="button" class="button" onClick={() => props.onDuplicate(c.id)} aria-label={`Duplicate ${c.name}`}>
                Duplicate
              </button>
              <button type="button" class="button" onClick={() => props.onExport(c.id)} aria-label={`Export ${c.name}`}>
                Export
              </button>
              {!c.builtIn && (
                <button type="button" class="button" onClick={() => props.onDelete(c.id)} aria-label={`Delete ${c.name}`}>
                  Delete
                </button>
              )}
            </li>
          );
        })}
      </ul>
      <div class="chars-actions">
        <button type="button" class="button" disabled={!characters.some((c) => !c.builtIn)} onClick={() => props.onExport()}>
          Export my characters
        </button>
        <label class="button">
          Import characters…
          <input type="file" accept="application/json,.json" class="visually-hidden" onChange={pickFile} />
        </label>
      </div>
      {error && (
        <p class="chars-error" role="alert">
          {error}
        </p>
      )}
      {notices.length > 0 && (
        <ul class="chars-warn" role="status">
          {notices.map((n, i) => (
            <li key={i}>{n}</li>
          ))}
        </ul>
      )}
    </section>
  );
}
