import { useState } from 'preact/hooks';
import { request } from '../ui/runtime';
import { useCharacters } from './useCharacters';

/** The side panel header's quick switch; the new character greets the user when the models are loaded. */
export function CharacterSwitcher() {
  const [view, , setView] = useCharacters();
  const [error, setError] = useState<string | null>(null);
  if (!view) return null;
  const choose = async (id: string) => {
    setError(null);
    setView({ ...view, activeId: id });
    try {
      await request('characters/set-active', { id, greet: true });
    } catch (e) {
      setError((e as Error).message);
      setView(view);
    }
  };
  return (
    <label class="char-switch" title={error ?? 'Who you are talking to'}>
      <span class="visually-hidden">Character</span>
      <select
        value={view.activeId}
        onChange={(e) => void choose(e.currentTarget.value)}
        aria-invalid={error ? true : undefined}
        data-testid="character-switcher"
      >
        {view.characters.map((c) => (
          <option key={c.id} value={c.id}>
            {c.name}
          </option>
        ))}
      </select>
    </label>
  );
}
