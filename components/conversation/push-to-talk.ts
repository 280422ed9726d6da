import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { request } from '../ui/runtime';
import { PushToTalkHold } from '../../core/lifecycle/push-to-talk-hold';
import { realTimers } from '../../core/lifecycle/timers';

const HOLD_MS = 300;

const typingInto = (target: EventTarget | null) =>
  target instanceof HTMLElement && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));

/**
 * Push-to-talk on the orb and the keyboard: holding the orb (≥ 300 ms) or the space bar (outside text fields) listens
 * while held, and letting go ends the turn at once. A short click on the orb still toggles hands-free. A hold also ends
 * when the panel loses the user (blur, hidden, page hide) and at the cap (core/lifecycle/push-to-talk-hold.ts).
 */
export function usePushToTalk(enabled: boolean, toggleHandsFree: () => void) {
  const [talking, setTalking] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const hold = useMemo(
    () =>
      new PushToTalkHold(realTimers, () => {
        setTalking(false);
        void request('conversation/ptt', { down: false }, 120_000).catch(() => undefined);
      }),
    [],
  );

  const press = (down: boolean) => {
    if (!down) {
      hold.release('released');
      return;
    }
    if (!hold.press()) return;
    setTalking(true);
    void request('conversation/ptt', { down: true }, 120_000).catch(() => undefined);
  };

  // Whatever takes the user away from the panel ends the hold: its key-up or pointer-up will never arrive here.
  useEffect(() => {
    const onBlur = () => hold.release('blur');
    const onVisibility = () => {
      if (document.visibilityState === 'hidden') hold.release('hidden');
    };
    const onPageHide = () => hold.release('pagehide');
    window.addEventListener('blur', onBlur);
    document.addEventListener('visibilitychange', onVisibility);
    window.addEventListener('pagehide', onPageHide);
    return () => {
      window.removeEventListener('blur', onBlur);
      document.removeEventListener('visibilitychange', onVisibility);
      window.removeEventListener('pagehide', onPageHide);
      hold.release('pagehide');
    };
  }, [hold]);

  useEffect(() => {
    if (!enabled) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.code !== 'Space' || typingInto(e.target) || e.repeat) return;
      e.preventDefault();
      if (e.type === 'keydown' && !hold.held) press(true);
      else if (e.type === 'keyup' && hold.held) press(false);
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
        if (hold.held) press(false);
        else if (enabled) toggleHandsFree();
      },
      onPointerLeave: () => {
        if (timer.current) clearTimeout(timer.current);
        timer.current = null;
        if (hold.held) press(false);
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
