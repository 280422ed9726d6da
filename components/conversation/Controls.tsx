import type { usePushToTalk } from './push-to-talk';

interface OrbState {
  /** Hands-free is on (the user's choice). */
  listening: boolean;
  /** The engine said it listens: the only time the orb shows "listening". */
  live: boolean;
  /** Hands-free is on but the engine has not started listening yet. */
  starting: boolean;
  canListen: boolean;
  ready: boolean;
  ptt: ReturnType<typeof usePushToTalk>;
}

interface Props {
  orb: OrbState;
  onStopListening(): void;
  busy: boolean;
  onInterrupt(): void;
  draft: string;
  onDraft(text: string): void;
  onSubmit(): void;
}

/** The orb (hands-free and push-to-talk), Stop, and the composer. */
export function Controls({ orb, onStopListening, busy, onInterrupt, draft, onDraft, onSubmit }: Props) {
  const label = orb.live
    ? 'Stop listening'
    : orb.starting
      ? 'Starting to listen… (click to cancel)'
      : 'Start listening (hold to push to talk)';
  return (
    <footer class="controls">
      <button
        type="button"
        class={`orb ${orb.live ? 'on' : ''} ${orb.starting ? 'starting' : ''}`}
        aria-pressed={orb.listening}
        disabled={!orb.canListen || !orb.ready}
        title={
          orb.canListen
            ? 'Click: hands-free listening (Alt+Shift+L). Hold (or hold Space): push to talk.'
            : 'Grant microphone access first'
        }
        {...(orb.listening ? { onClick: onStopListening } : orb.ptt.orbHandlers)}
        data-testid="orb"
        data-listening={orb.live ? 'yes' : 'no'}
      >
        <span class="visually-hidden">{label}</span>
      </button>
      {busy && (
        <button type="button" class="button" onClick={onInterrupt} data-testid="stop" title="Stop (Esc)">
          Stop
        </button>
      )}
      <form
        class="composer"
        onSubmit={(e) => {
          e.preventDefault();
          onSubmit();
        }}
      >
        <label class="visually-hidden" for="composer-input">
          Type a message
        </label>
        <input
          id="composer-input"
          value={draft}
          onInput={(e) => onDraft((e.target as HTMLInputElement).value)}
          placeholder="Type instead of talking…"
          autocomplete="off"
          data-testid="composer"
        />
        <button type="submit" class="button primary" disabled={!draft.trim()}>
          Send
        </button>
      </form>
    </footer>
  );
}
