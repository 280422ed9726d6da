import type { Pronunciation } from '../../core/characters';
import { CHARACTER_LIMITS } from '../../core/characters';

interface Props {
  value: readonly Pronunciation[];
  onChange(next: Pronunciation[]): void;
  disabled?: boolean;
}

/** Edits "word → say it as" rows. Whole-word, case-insensitive matching is explained under the table. */
export function PronunciationTable({ value, onChange, disabled = false }: Props) {
  const set = (i: number, patch: Partial<Pronunciation>) => onChange(value.map((p, j) => (j === i ? { ...p, ...patch } : p)));
  const full = value.length >= CHARACTER_LIMITS.pronunciations;
  return (
    <fieldset class="chars-pron" disabled={disabled}>
      <legend>Pronunciations (spoken only)</legend>
      {value.length > 0 && (
        <table class="chars-table">
          <thead>
            <tr>
              <th scope="col">Word</th>
              <th scope="col">Say it as</th>
              <th scope="col">
                <span class="visually-hidden">Remove</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {value.map((p, i) => (
              <tr key={i}>
                <td>
                  <input
                    type="text"
                    aria-label={`Word ${i + 1}`}
                    value={p.word}
                    maxLength={CHARACTER_LIMITS.word}
                    onInput={(e) => set(i, { word: e.currentTarget.value })}
                  />
                </td>
                <td>
                  <input
                    type="text"
                    aria-label={`Say word ${i + 1} as`}
                    value={p.sayAs}
                    maxLength={CHARACTER_LIMITS.sayAs}
                    onInput={(e) => set(i, { sayAs: e.currentTarget.value })}
                  />
                </td>
                <td>
                  <button
                    type="button"
                    class="button"
                    aria-label={`Remove pronunciation for ${p.word || `row ${i + 1}`}`}
                    onClick={() => onChange(value.filter((_, j) => j !== i))}
                  >
                    ✕
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <button type="button" class="button" disabled={full} onClick={() => onChange([...value, { word: '', sayAs: '' }])}>
        Add pronunciation
      </button>
      <p class="chars-hint">
        Whole words only, any capitalisation: “Sidetalk” changes “sidetalk” and “Sidetalk’s”, not “Sidetalks”.
      </p>
    </fieldset>
  );
}
