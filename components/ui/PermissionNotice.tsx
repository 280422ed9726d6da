import type { PermissionStateName } from '../../core/protocol';
import { openPermissionsPage } from './runtime';

interface Props {
  device: 'microphone' | 'camera';
  state: PermissionStateName;
}

/** Shown when a grant is missing: the side panel and popup cannot prompt, so the fix is the permissions page. */
export function PermissionNotice({ device, state }: Props) {
  if (state === 'granted') return null;
  const blocked = state === 'denied';
  return (
    <div class="notice" role="status" data-testid={`${device}-notice`}>
      <p>
        {blocked
          ? `The ${device} is blocked for Sidetalk. Allow it in Chrome's site settings for this extension.`
          : `Sidetalk needs the ${device} to ${device === 'microphone' ? 'hear you' : 'see for you'}.`}
      </p>
      <button type="button" class="button" onClick={openPermissionsPage}>
        Grant {device} access
      </button>
    </div>
  );
}
