import { useEffect, useRef, useState } from 'preact/hooks';
import { request } from '../ui/runtime';

const HOLD_MS = 300;

const typingInto = (target: EventTarget | null) =>
  target instanceof HTMLElement && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));

/**
 * Push-to-talk on the orb and the keyboard: holding the orb (≥ 300 ms) or the space bar (outside text fields) listens
 * while held, and letting go ends the turn at once. A short click on the orb still toggles hands-free.
 */
export function usePushToTalk(enabled: boolean, toggleHandsFree: () => void) {
  const [talking, setTalking] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const held = useRef(false);

  const press = (down: boolean) => {
    held.current = down;
    setTalking(down);
    void request('conversation/ptt', { down }, 120_000).catch(() => undefined);
  };

  useEffect(() => {
    if (!enabled) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.code !== 'Space' || typingInto(e.target) || e.repeat) return;
      e.preventDefault();
      if (e.type === 'keydown' && !held.current) press(true);
      else if (e.type === 'keyup' && held.current) press(false);
    };
    window.addEventListener('keydown', onKey);
    window.addEventListener('keyup', onKey);
    return () => {
      window.removeEventListener('keydown', onKey);
      window.removeEventListener('keyup', onKey);
    };
  }, [enabled]);

  return {
    talking,
    orbHandlers: {
      onPointerDown: () => {
        if (!enabled) return;
        timer.current = setTimeout(() => press(true), HOLD_MS);
      },
      onPointerUp: () => {
        if (timer.current) clearTimeout(timer.current);
        timer.current = null;
        if (held.current) press(false);
        else if (enabled) toggleHandsFree();
      },
      onPointerLeave: () => {
        if (timer.current) clearTimeout(timer.current);
        timer.current = null;
        if (held.current) press(false);
      },
      // Keyboard activation (Enter) of the focused orb toggles hands-free like a click.
      onKeyDown: (e: KeyboardEvent) => {
        if (e.key === 'Enter') {
          e.preventDefault();
          toggleHandsFree();
        }
      },
    },
  };
}
