import { useState } from 'preact/hooks';
import { CharacterEditor, CharacterList, type VoiceOption } from '../characters';
import { BUILT_IN_CHARACTERS, draftChanges, type Character, type CharacterDraft } from '../../core/characters';
import { request } from '../ui/runtime';
import { useVoices, voiceLabel } from '../voices/useVoices';
import { useCharacters } from './useCharacters';

const NEW_ID = 'new:draft';

function blankCharacter(): Character {
  const base = BUILT_IN_CHARACTERS[0]!;
  return {
    id: NEW_ID,
    name: 'New character',
    avatar: { kind: 'default' },
    voice: structuredClone(base.voice),
    persona: { name: 'Sidetalk', style: '', greeting: '' },
    pronunciations: [],
    createdAt: 0,
    updatedAt: 0,
    builtIn: false,
  };
}

/** Saves text as a file through a blob link (the side panel has no downloads permission and needs none). */
export function downloadText(fileName: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.style.display = 'none';
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Settings → Characters: the list (switch, edit, duplicate, delete, export, import) and the editor. */
export function CharactersSettings() {
  const [view, loadError] = useCharacters();
  const { voices } = useVoices();
  const [editing, setEditing] = useState<Character | null>(null);
  const [editorError, setEditorError] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notices, setNotices] = useState<string[]>([]);
  const [confirmDelete, setConfirmDelete] = useState<Character | null>(null);

  const run = async (work: () => Promise<unknown>) => {
    setError(null);
    setNotices([]);
    try {
      await work();
    } catch (e) {
      setError((e as Error).message);
    }
  };

  // Presets the loaded bundle offers (before it loads: the voices the built-ins use), then the user's clones.
  const presetIds = voices?.ready
    ? voices.presets.map((v) => v.id)
    : [...new Set(BUILT_IN_CHARACTERS.map((c) => c.voice.voiceId))];
  const voiceOptions: VoiceOption[] = [
    ...presetIds.map((id) => ({ kind: 'builtin' as const, voiceId: id, label: `${voiceLabel(id)} (built-in)` })),
    ...(voices?.clones ?? [])
      .filter((c) => c.usable)
      .map((c) => ({ kind: 'cloned' as const, voiceId: c.id, label: `${c.name} (cloned, synthetic)` })),
  ];

  const save = async (draft: CharacterDraft) => {
    if (!editing) return;
    setEditorError(null);
    try {
      if (editing.id === NEW_ID) await request('characters/create', { draft });
      // Only what this editor changed: an edit saved meanwhile from another panel is kept.
      else await request('characters/update', { id: editing.id, patch: draftChanges(editing, draft) });
      setEditing(null);
    } catch (e) {
      setEditorError((e as Error).message);
    }
  };

  const duplicate = (id: string) =>
    run(async () => {
      const copy = await request('characters/duplicate', { id });
      if (editing) setEditing(copy);
    });

  if (!view) return <p class="muted">{loadError ?? 'Loading characters…'}</p>;

  if (editing) {
    return (
      <CharacterEditor
        key={editing.id}
        character={editing}
        voices={voiceOptions}
        userAvatars={[]}
        onSave={(draft) => void save(draft)}
        onCancel={() => {
          setEditing(null);
          setEditorError(null);
        }}
        onDuplicate={(id) => void duplicate(id)}
        error={editorError}
      />
    );
  }

  return (
    <div class="settings-section" data-testid="characters-settings">
      <CharacterList
        characters={view.characters}
        activeId={view.activeId}
        onSwitch={(id) => void run(() => request('characters/set-active', { id, greet: true }))}
        onEdit={(id) => setEditing(view.characters.find((c) => c.id === id) ?? null)}
        onDuplicate={(id) => void duplicate(id)}
        onDelete={(id) => setConfirmDelete(view.characters.find((c) => c.id === id) ?? null)}
        onExport={(id) =>
          void run(async () => {
            const file = await request('characters/export', id ? { ids: [id] } : {});
            downloadText(file.fileName, file.text);
          })
        }
        onImport={(text) =>
          void run(async () => {
            const clonedVoiceIds = (voices?.clones ?? []).map((c) => c.id);
            const result = await request('characters/import', { text, clonedVoiceIds });
            if (!result.ok) throw new Error(result.error);
            setNotices([`Imported ${result.characters.map((c) => c.name).join(', ')}.`, ...result.warnings]);
          })
        }
        error={error}
        notices={notices}
      />
      {confirmDelete && (
        <div class="notice" role="alertdialog" aria-label="Confirm delete">
          <p>Delete “{confirmDelete.name}” for good? This can’t be undone (export it first to keep a copy).</p>
          <div class="chars-actions">
            <button
              type="button"
              class="button primary"
              onClick={() => {
                const id = confirmDelete.id;
                setConfirmDelete(null);
                void run(() => request('characters/delete', { id }));
              }}
            >
              Delete
            </button>
            <button type="button" class="button" onClick={() => setConfirmDelete(null)}>
              Keep
            </button>
          </div>
        </div>
      )}
      <button type="button" class="button" onClick={() => setEditing(blankCharacter())}>
        New character
      </button>
    </div>
  );
}
