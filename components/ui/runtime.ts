import { useEffect, useState } from 'preact/hooks';
import {
  call,
  createEventReceiver,
  type AppStatus,
  type PermissionStateName,
  type RequestPayload,
  type RequestType,
  type Settings,
} from '../../core/protocol';

/** The UI's one way to talk to the other contexts: typed, validated requests over runtime messaging. */
export const send = (message: unknown): Promise<unknown> => chrome.runtime.sendMessage(message);

export function request<T extends RequestType>(type: T, payload: RequestPayload<T>, timeoutMs?: number) {
  return call(send, type, payload, timeoutMs);
}

const logUiError = (error: { code: string; message: string }) => console.warn(`[sidetalk] ui rejected event: ${error.message}`);

/** Settings as the background holds them, kept live by its broadcast events. */
export function useSettings(): [Settings | null, (patch: Partial<Settings>) => Promise<void>, string | null] {
  const [settings, setSettings] = useState<Settings | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    request('settings/get', {}).then(setSettings, (e: Error) => setError(e.message));
    const receive = createEventReceiver((event) => {
      if (event.type === 'event/settings') setSettings(event.payload.settings);
    }, logUiError);
    chrome.runtime.onMessage.addListener(receive);
    return () => chrome.runtime.onMessage.removeListener(receive);
  }, []);
  const update = async (patch: Partial<Settings>) => {
    try {
      setSettings(await request('settings/set', { patch }));
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
    chrome.runtime.onMessage.addListener(receive);
    return () => chrome.runtime.onMessage.removeListener(receive);
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
