import { useEffect, useRef, useState } from 'preact/hooks';
import {
  call,
  checkSender,
  createEventReceiver,
  senderKind,
  type AppStatus,
  type PermissionStateName,
  type RequestPayload,
  type RequestType,
  type Settings,
} from '../../core/protocol';
import { contextOfRequest, toUserError, UserFacingError } from '../../core/ux/user-errors';

/** The UI's one way to talk to the other contexts: typed, validated requests over runtime messaging. */
export const send = (message: unknown): Promise<unknown> => chrome.runtime.sendMessage(message);

/**
 * Rejects with a UserFacingError: its message is one plain sentence (core/ux/user-errors.ts), so any component may
 * show it as it is. The raw failure (request name, protocol code, the handler's text) goes to the debug log only.
 */
export async function request<T extends RequestType>(type: T, payload: RequestPayload<T>, timeoutMs?: number) {
  try {
    return await call(send, type, payload, timeoutMs);
  } catch (err) {
    const user = toUserError(err, contextOfRequest(type));
    console.warn(`[sidetalk] "${type}" failed:`, user.detail);
    throw new UserFacingError(user);
  }
}

const logUiError = (error: { code: string; message: string }) => console.warn(`[sidetalk] ui rejected event: ${error.message}`);

/**
 * A runtime listener that passes on only events from the two contexts that broadcast them (the background and the
 * offscreen document): core/protocol/senders.ts. Add and remove the returned function.
 */
export function fromBroadcasters(receive: (raw: unknown) => void) {
  return (raw: unknown, sender: chrome.runtime.MessageSender): false => {
    const kind = senderKind(sender, { id: chrome.runtime.id, origin: chrome.runtime.getURL('') });
    if (checkSender('page', kind, raw).accept) receive(raw);
    return false;
  };
}

/** Settings as the background holds them, kept live by its broadcast events. */
export function useSettings(): [Settings | null, (patch: Partial<Settings>) => Promise<void>, string | null] {
  const [settings, setSettings] = useState<Settings | null>(null);
  const [error, setError] = useState<string | null>(null);
  // Counts the background's settings broadcasts. A reply is applied only when none arrived while its request was in
  // flight: the broadcasts come in write order, and one that arrived meanwhile is as new as the reply or newer (the
  // background turning hands-free back off when it could not start: docs/onboarding.md).
  const heardCount = useRef(0);
  useEffect(() => {
    request('settings/get', {}).then(setSettings, (e: Error) => setError(e.message));
    const receive = createEventReceiver((event) => {
      if (event.type !== 'event/settings') return;
      heardCount.current += 1;
      setSettings(event.payload.settings);
    }, logUiError);
    const heard = fromBroadcasters(receive);
    chrome.runtime.onMessage.addListener(heard);
    return () => chrome.runtime.onMessage.removeListener(heard);
  }, []);
  const update = async (patch: Partial<Settings>) => {
    try {
      const before = heardCount.current;
      const next = await request('settings/set', { patch });
      if (heardCount.current === before) setSettings(next);
      setError(null);
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return [settings, update, error];
}

/** Status of the engine (offscreen document); `ensure` asks the background to create it if missing. */
export function useAppStatus(ensure: boolean): AppStatus | null {
  const [status, setStatus] = useState<AppStatus | null>(null);
  useEffect(() => {
    request(ensure ? 'offscreen/ensure' : 'status/get', {}).then(setStatus, () => undefined);
    const receive = createEventReceiver((event) => {
      if (event.type === 'event/status') setStatus(event.payload.status);
    }, logUiError);
    const heard = fromBroadcasters(receive);
    chrome.runtime.onMessage.addListener(heard);
    return () => chrome.runtime.onMessage.removeListener(heard);
  }, [ensure]);
  return status;
}

/** Live microphone / camera permission of the extension origin. */
export function usePermission(name: 'microphone' | 'camera'): PermissionStateName {
  const [state, setState] = useState<PermissionStateName>('unknown');
  useEffect(() => {
    let status: PermissionStatus | null = null;
    const update = () => status && setState(status.state);
    navigator.permissions
      .query({ name: name as PermissionName })
      .then((s) => {
        status = s;
        update();
        s.addEventListener('change', update);
      })
      .catch(() => setState('unknown'));
    return () => status?.removeEventListener('change', update);
  }, [name]);
  return state;
}

export function openPermissionsPage(): void {
  void chrome.tabs.create({ url: chrome.runtime.getURL('/permissions.html') });
}
