import { createTunablesReceiver } from '../tunables';
import { createEventReceiver, sendRequest, type Send } from './router';

/**
 * A receiving context's side of the tunables (offscreen document, side panel, popup, permissions page): pull the
 * owner's state now and apply every `event/tunables` broadcast, newest first whichever arrives first. `listen` hooks
 * a runtime message listener (chrome.runtime.onMessage, filtered to the extension's own senders). Resolves once the
 * pulled state is applied (or could not be had: then the defaults stay until the next broadcast).
 */
export async function followTunables(send: Send, listen: (onMessage: (raw: unknown) => void) => void): Promise<void> {
  const receive = createTunablesReceiver();
  const warn = (refused: string[]) => {
    if (refused.length) console.warn(`[sidetalk] tunables refused here: ${refused.join('; ')}`);
  };
  listen(
    createEventReceiver(
      (event) => {
        if (event.type === 'event/tunables') warn(receive(event.payload));
      },
      () => undefined, // other contexts' malformed events are theirs to report
    ),
  );
  const reply = await sendRequest(send, 'tunables/get', {}, 10_000);
  if (reply.ok) warn(receive(reply.data));
  else console.warn(`[sidetalk] could not load tunables: ${reply.error.message}`);
}
