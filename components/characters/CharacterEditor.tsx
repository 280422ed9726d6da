import { useState } from 'preact/hooks';
import {
  CHARACTER_LIMITS,
  characterDraftSchema,
  describeIssues,
  type Character,
  type CharacterDraft,
  type VoiceRef,
} from '../../core/characters';
import { PronunciationTable } from './PronunciationTable';

export interface VoiceOption {
  kind: VoiceRef['kind'];
  voiceId: string;
  /** e.g. "Alba (built-in)" or "My voice (cloned, synthetic)". */
  label: string;
}

export interface AvatarOption {
  glbId: string;
  label: string;
}

interface Props {
  character: Character;
  voices: readonly VoiceOption[];
  userAvatars: readonly AvatarOption[];
  onSave(draft: CharacterDraft): void;
  onCancel(): void;
  /** Built-ins are read-only: the form offers a copy instead. */
  onDuplicate(id: string): void;
  /** An error from the store after saving (e.g. the character was deleted meanwhile). */
  error?: string | null;
}

function toDraft(c: Character): CharacterDraft {
  return structuredClone({
    name: c.name,
    avatar: c.avatar,
    voice: c.voice,
    persona: c.persona,
    pronunciations: c.pronunciations,
  });
}

const voiceKey = (v: { kind: string; voiceId: string }) => `${v.kind}:${v.voiceId}`;

/** Edit form for one character. Validates with the same schema as the store before calling onSave. */
export function CharacterEditor({ character, voices, userAvatars, onSave, onCancel, onDuplicate, error }: Props) {
  const [draft, setDraft] = useState<CharacterDraft>(() => toDraft(character));
  const [invalid, setInvalid] = useState<string | null>(null);
  const readOnly = character.builtIn;
  const set = (patch: Partial<CharacterDraft>) => setDraft((d) => ({ ...d, ...patch }));
  const setPersona = (patch: Partial<CharacterDraft['persona']>) =>
    setDraft((d) => ({ ...d, persona: { ...d.persona, ...patch } }));
  // A voice missing from the list (deleted clone) is still shown so the select never silently changes it.
  const voiceOptions = voices.some((v) => voiceKey(v) === voiceKey(draft.voice))
    ? voices
    : [...voices, { ...draft.voice, label: `${draft.voice.voiceId} (missing)` }];

  const submit = (e: Event) => {
    e.preventDefault();
    const cleaned = { ...draft, pronunciations: draft.pronunciations.filter((p) => p.word.trim() || p.sayAs.trim()) };
    const parsed = characterDraftSchema.safeParse(cleaned);
    if (!parsed.success) {
      setInvalid(describeIssues(parsed.error));
      return;
    }
    setInvalid(null);
    onSave(parsed.data);
  };

  const id = `char-${character.id.replace(/[^A-Za-z0-9_-]/g, '-')}`;
  return (
    <form class="chars-form" onSubmit={submit} aria-label={`Edit ${character.name}`} noValidate>
      {readOnly && (
        <div class="notice" role="status">
          <p>Built-in characters can’t be changed. Make a copy to edit it.</p>
          <button type="button" class="button primary" onClick={() => onDuplicate(character.id)}>
            Duplicate to edit
          </button>
        </div>
      )}
      <fieldset disabled={readOnly}>
        <legend>Character</legend>
        <label class="chars-field">
          <span>Name</span>
          <input
            type="text"
            value={draft.name}
            maxLength={CHARACTER_LIMITS.name}
            required
            onInput={(e) => set({ name: e.currentTarget.value })}
          />
        </label>
        <label class="chars-field">
          <span>Calls itself</span>
          <input
            type="text"
            value={draft.persona.name}
            maxLength={CHARACTER_LIMITS.personaName}
            required
            onInput={(e) => setPersona({ name: e.currentTarget.value })}
          />
        </label>
        <label class="chars-field">
          <span>Personality and speaking style</span>
          <textarea
            value={draft.persona.style}
            maxLength={CHARACTER_LIMITS.style}
            rows={3}
            onInput={(e) => setPersona({ style: e.currentTarget.value })}
          />
        </label>
        <label class="chars-field">
          <span>Greeting</span>
          <input
            type="text"
            value={draft.persona.greeting}
            maxLength={CHARACTER_LIMITS.greeting}
            onInput={(e) => setPersona({ greeting: e.currentTarget.value })}
          />
        </label>
        <label class="chars-field">
          <span>Voice</span>
          <select
            value={voiceKey(draft.voice)}
            onChange={(e) => {
              const v = voiceOptions.find((o) => voiceKey(o) === e.currentTarget.value);
              if (v) set({ voice: { kind: v.kind, voiceId: v.voiceId } });
            }}
          >
            {voiceOptions.map((v) => (
              <option key={voiceKey(v)} value={voiceKey(v)}>
                {v.label}
              </option>
            ))}
          </select>
        </label>
        <fieldset>
          <legend>Avatar</legend>
          <label class="chars-radio">
            <input
              type="radio"
              name={`${id}-avatar`}
              checked={draft.avatar.kind === 'default'}
              onChange={() => set({ avatar: { kind: 'default' } })}
            />
            Default avatar
          </label>
          {userAvatars.map((a) => (
            <label class="chars-radio" key={a.glbId}>
              <input
                type="radio"
                name={`${id}-avatar`}
                checked={draft.avatar.kind === 'user' && draft.avatar.glbId === a.glbId}
                onChange={() => set({ avatar: { kind: 'user', glbId: a.glbId } })}
              />
              {a.label}
            </label>
          ))}
          {userAvatars.length === 0 && <p class="chars-hint">Load your own GLB avatar in settings to choose it here.</p>}
        </fieldset>
      </fieldset>
      <PronunciationTable
        value={draft.pronunciations}
        onChange={(pronunciations) => set({ pronunciations })}
        disabled={readOnly}
      />
      {(invalid ?? error) && (
        <p class="chars-error" role="alert">
          {invalid ?? error}
        </p>
      )}
      <div class="chars-actions">
        <button type="submit" class="button primary" disabled={readOnly}>
          Save
        </button>
        <button type="button" class="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
