/**
 * <Avatar>: the side panel's talking character. Creates one TalkingHead in its container, loads the generated default
 * avatar (or the user's GLB), and hands the parent an imperative handle through `onReady`. Without WebGL it shows a
 * calm static face and still plays audio, so the conversation keeps working.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import {
  AvatarController,
  PCM_SAMPLE_RATE,
  webglAvailable,
  type AvatarEvents,
  type AvatarState,
  type ChunkQueued,
} from './avatar-controller';
import type { AvatarProbeHost } from './avatar-probe';
import { FallbackPlayer } from './fallback-player';
import { TEST_HOOKS } from '../../core/build-flags';
import { toUserError } from '../../core/ux/user-errors';

export const DEFAULT_AVATAR_URL = '/avatars/sidetalk-default.glb';

export interface AvatarHandle {
  /** Queue one TTS chunk: 24 kHz mono Float32 PCM and the text it speaks; resolves once it is handed to the player. */
  speakChunk(pcm24k: Float32Array, text: string): Promise<ChunkQueued | void>;
  /** The reply has no more chunks. */
  endOfSpeech(): void;
  /** Stop audio and mouth now (barge-in). */
  interrupt(): void;
  /** Hold the reply where it is (speech over it), or let it go on from there; nothing of it is skipped. */
  pause(paused: boolean): void;
  setState(state: AvatarState): void;
  setMood(mood: string): void;
  /** The microphone feed runs behind real time (the thread is shared): draw fewer frames until it catches up. */
  feedBehind?(behind: boolean): void;
}

export interface AvatarProps extends AvatarEvents {
  /** User avatar (validated before loading); the generated default otherwise. */
  source?: { url: string } | { bytes: ArrayBuffer };
  state?: AvatarState;
  view?: 'head' | 'upper';
  amplitudeJaw?: boolean;
  onReady?: (handle: AvatarHandle) => void;
  class?: string;
}

function prefersReducedMotion(): boolean {
  return typeof matchMedia === 'function' && matchMedia('(prefers-reduced-motion: reduce)').matches;
}

export function Avatar(props: AvatarProps) {
  const box = useRef<HTMLDivElement>(null);
  const ctl = useRef<AvatarController | null>(null);
  const events = useRef<AvatarEvents>(props);
  events.current = props;
  const [status, setStatus] = useState<'loading' | 'ready' | 'no-webgl' | 'error'>('loading');
  const [error, setError] = useState('');

  // Events go through a ref so changing callbacks never rebuilds TalkingHead.
  const relay: AvatarEvents = {
    onStarted: () => events.current.onStarted?.(),
    onLevel: (v, at, windowAt) => events.current.onLevel?.(v, at, windowAt),
    onEnded: (i) => events.current.onEnded?.(i),
    onError: (m) => events.current.onError?.(m),
    onPlayed: (samples, heardAt, rate) => events.current.onPlayed?.(samples, heardAt, rate),
  };

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    if (!webglAvailable()) {
      const player = new FallbackPlayer(relay, PCM_SAMPLE_RATE);
      setStatus('no-webgl');
      props.onReady?.({
        speakChunk: (pcm) => player.speakChunk(pcm),
        endOfSpeech: () => player.endOfSpeech(),
        interrupt: () => player.interrupt(),
        pause: (paused) => player.pause(paused),
        setState: () => {},
        setMood: () => {},
      });
      return () => player.dispose();
    }
    const c = new AvatarController(el, relay, {
      reducedMotion: prefersReducedMotion(),
      amplitudeJaw: props.amplitudeJaw ?? true,
      view: props.view ?? 'upper',
    });
    ctl.current = c;
    // Measurement handle for the e2e tests and the frame-time bench (test builds only); nothing runs until probe().
    if (TEST_HOOKS) (el as HTMLElement & { sidetalkAvatar?: AvatarProbeHost }).sidetalkAvatar = { probe: () => c.startProbe() };
    setStatus('loading'); // a new source: state changes wait until this avatar is loaded
    let alive = true;
    c.load(props.source ?? { url: DEFAULT_AVATAR_URL }).then(
      () => {
        if (!alive) return;
        setStatus('ready');
        c.setState(props.state ?? 'idle');
        props.onReady?.({
          speakChunk: (pcm, text) => c.speakChunk(pcm, text),
          endOfSpeech: () => c.endOfSpeech(),
          interrupt: () => c.interrupt(),
          pause: (paused) => c.pause(paused),
          setState: (s) => c.setState(s),
          setMood: (m) => c.setMood(m),
          feedBehind: (b) => c.feedBehind(b),
        });
      },
      (e: unknown) => {
        if (!alive) return;
        const msg = e instanceof Error ? e.message : String(e);
        setError(msg);
        setStatus('error');
        relay.onError?.(msg);
      },
    );
    return () => {
      alive = false;
      c.dispose();
      ctl.current = null;
    };
    // The source object identity decides reloads; other props are applied below.
  }, [props.source]);

  useEffect(() => {
    if (status === 'ready' && props.state) ctl.current?.setState(props.state);
  }, [props.state, status]);

  return (
    <div
      class={`sidetalk-avatar ${props.class ?? ''}`}
      data-status={status}
      data-state={props.state ?? 'idle'}
      style={{ position: 'relative', width: '100%', height: '100%' }}
    >
      <div ref={box} style={{ position: 'absolute', inset: 0 }} aria-label="Sidetalk assistant avatar" role="img" />
      {status === 'no-webgl' && (
        <div role="status" style={{ position: 'absolute', inset: 0, display: 'grid', placeItems: 'center', textAlign: 'center' }}>
          <svg viewBox="0 0 100 100" width="120" height="120" aria-hidden="true">
            <circle cx="50" cy="50" r="40" fill="#efb894" />
            <circle cx="36" cy="45" r="6" fill="#2f9c8c" />
            <circle cx="64" cy="45" r="6" fill="#2f9c8c" />
            <path d="M36 64 Q50 74 64 64" stroke="#c95e6a" stroke-width="4" fill="none" stroke-linecap="round" />
          </svg>
          <p>3D avatar unavailable (WebGL is off). Voice still works.</p>
        </div>
      )}
      {status === 'error' && (
        <p role="alert" style={{ position: 'absolute', bottom: 8, left: 8, right: 8 }}>
          {toUserError(error).sentence}
        </p>
      )}
    </div>
  );
}
