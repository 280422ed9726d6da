import { followTunables } from '../../core/protocol';
import { snapshotTunables, type TunablesSnapshot } from '../../core/tunables';
import { fromBroadcasters, request, send } from './runtime';
import { TEST_HOOKS } from '../../core/build-flags';

/** Debug hook for the knob walk (tests/e2e/tunables.e2e.ts): this page's live tunables; refused unless the debug panel is on. */
type WithHook = { __sidetalkTunables?: () => Promise<TunablesSnapshot> };

/**
 * Makes this page (side panel, popup, permissions page) follow the background's tunables: code here reads them too
 * (the avatar's lip sync, shared modules), so a change in the debug panel must reach it like every other context.
 */
export function startTunablesSync(): void {
  void followTunables(send, (onMessage) => chrome.runtime.onMessage.addListener(fromBroadcasters(onMessage)));
  // Test builds only (docs/security.md, "Test hooks and the release build").
  if (TEST_HOOKS)
    (globalThis as WithHook).__sidetalkTunables = async () => {
      if (!(await request('settings/get', {})).debugPanel) throw new Error('Reading live tunables needs the debug panel on.');
      return snapshotTunables();
    };
}
