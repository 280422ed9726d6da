import { useEffect, useState } from 'preact/hooks';
import type { Character } from '../../core/characters';
import { createEventReceiver } from '../../core/protocol';
import { request, fromBroadcasters } from '../ui/runtime';

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
    const heard = fromBroadcasters(receive);
    chrome.runtime.onMessage.addListener(heard);
    return () => chrome.runtime.onMessage.removeListener(heard);
  }, []);
  return [view, error, setView];
}
