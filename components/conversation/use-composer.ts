import { useState } from 'preact/hooks';

export interface Composer {
  draft: string;
  setDraft(text: string): void;
  submit(): void;
}

/**
 * The text box's draft and its sending. The box empties the moment a message is sent, not when its reply ends (a
 * spoken reply can run for a minute, and clearing then would wipe what the user typed meanwhile). If the send fails,
 * the message comes back into the box, unless the user has already started a new one; `onError` gets a retry that
 * sends that same message again.
 */
export function useComposer(
  send: (text: string) => Promise<unknown>,
  onError: (err: unknown, retry: () => void) => void,
): Composer {
  const [draft, setDraft] = useState('');
  const sendText = async (text: string) => {
    try {
      await send(text);
    } catch (err) {
      setDraft((now) => (now.trim() ? now : text));
      onError(err, () => void sendText(text));
    }
  };
  const submit = () => {
    const text = draft.trim();
    if (!text) return;
    setDraft('');
    void sendText(text);
  };
  return { draft, setDraft, submit };
}
