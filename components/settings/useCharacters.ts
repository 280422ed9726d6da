import { useEffect, useState } from 'preact/hooks';
import type { Character } from '../../core/characters';
import { createEventReceiver } from '../../core/protocol';
import { request } from '../ui/runtime';

export interface CharactersView {
  characters: Character[];
  activeId: string;
}

/** The character list as the background holds it, kept live by its event/characters broadcasts. */
export function useCharacters(): [CharactersView | null, string | null, (view: CharactersView) => void] {
  const [view, setView] = useState<CharactersView | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    request('characters/list', {}).then(setView, (e: Error) => setError(e.message));
    const receive = createEventReceiver(
      (event) => {
        if (event.type === 'event/characters') setView(event.payload);
      },
      () => undefined,
    );
    chrome.runtime.onMessage.addListener(receive);
    return () => chrome.runtime.onMessage.removeListener(receive);
  }, []);
  return [view, error, setView];
}
